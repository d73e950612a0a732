// Run by the tsan test preset only: two OpenMP threads of runTasks increment one counter without
// synchronisation, so ThreadSanitizer must report a data race. The test passes when it does, which
// shows that the preset's suppressions and options hide the uninstrumented runtimes, not our code.
#include "core/parallel_tasks.h"

#include <cstdio>

int main() {
    long counter = 0;
    attnlab::runTasks(64, 2, {}, [&counter](std::int64_t) {
        for (int k = 0; k < 1000; ++k) ++counter;
    });
    std::printf("%ld increments counted\n", counter);
    return 0;
}
