#include "core/jobs/parallel_tasks.h"

#include <algorithm>

namespace attnlab {

void ParallelErrors::capture(std::exception_ptr error) noexcept {
    const std::lock_guard<std::mutex> lock(m_mutex);
    if (!m_first) m_first = std::move(error);
    m_failed.store(true, std::memory_order_relaxed);
}

bool runTasks(std::int64_t count, int threads, const CancelCheck& cancelled, const std::function<void(std::int64_t)>& task,
              std::int64_t grain) {
    std::atomic<bool> stop{false};
    ParallelErrors errors;
    const auto chunk = static_cast<int>(std::max<std::int64_t>(1, grain));
#pragma omp parallel for schedule(guided, chunk) num_threads(std::max(1, threads))
    for (std::int64_t t = 0; t < count; ++t) {
        if (stop.load(std::memory_order_relaxed)) continue;
        errors.run([&] {
            if (cancelled && cancelled()) {
                stop = true;
                return;
            }
            task(t);
        });
    }
    errors.rethrowFirst();
    return !stop.load();
}

} // namespace attnlab
