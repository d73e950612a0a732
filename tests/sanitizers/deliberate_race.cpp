// Run by the tsan test preset only: two OpenMP threads of runTasks write one counter without
// synchronisation, so ThreadSanitizer must report a data race. The test passes when it does, which
// shows that the preset's suppressions and options hide the uninstrumented runtimes, not our code.
#include "core/jobs/parallel_tasks.h"

#include <atomic>
#include <chrono>
#include <cstdio>

int main() {
    long counter = 0;
    // Both tasks wait until both have started (relaxed atomics order nothing for TSan), so the two
    // writes really come from two threads instead of one thread taking both tasks.
    std::atomic<int> started{0};
    attnlab::runTasks(2, 2, {}, [&](std::int64_t) {
        started.fetch_add(1, std::memory_order_relaxed);
        const auto giveUp = std::chrono::steady_clock::now() + std::chrono::seconds(5);
        while (started.load(std::memory_order_relaxed) < 2 && std::chrono::steady_clock::now() < giveUp) {
        }
        ++counter;
    });
    std::printf("%ld writes\n", counter);
    return 0;
}
