#include "core/parallel_tasks.h"

#include <algorithm>
#include <atomic>

namespace attnlab {

bool runTasks(std::int64_t count, int threads, const CancelCheck& cancelled, const std::function<void(std::int64_t)>& task) {
    std::atomic<bool> stop{false};
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, threads))
    for (std::int64_t t = 0; t < count; ++t) {
        if (stop.load(std::memory_order_relaxed)) continue;
        if (cancelled && cancelled()) {
            stop = true;
            continue;
        }
        task(t);
    }
    return !stop.load();
}

} // namespace attnlab
