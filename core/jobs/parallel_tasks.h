#pragma once

#include "core/jobs/cancel_check.h"

#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>

namespace attnlab {

// The first exception thrown inside an OpenMP parallel region, carried out of it. An exception must not
// leave a region (the runtime calls std::terminate), so every region body runs through run(), which
// catches; the caller calls rethrowFirst() after the region, and e.g. std::bad_alloc in a workspace
// reaches the job runner or the command line's out-of-memory exit like any other error.
class ParallelErrors {
public:
    // Runs body() unless an earlier body has failed (then the rest of the region is skipped).
    template <typename Body>
    void run(Body&& body) noexcept {
        if (failed()) return;
        try {
            body();
        } catch (...) {
            capture(std::current_exception());
        }
    }
    bool failed() const { return m_failed.load(std::memory_order_relaxed); }
    // Call after the region has ended (all threads joined).
    void rethrowFirst() const {
        if (m_first) std::rethrow_exception(m_first);
    }

private:
    void capture(std::exception_ptr error) noexcept;

    std::atomic<bool> m_failed{false};
    std::mutex m_mutex;
    std::exception_ptr m_first;
};

// Runs task(t) for every t in [0, count) on `threads` OpenMP threads, handing tasks out in runs of
// consecutive ones that shrink from a share of what is left down to `grain` (OpenMP's guided schedule):
// long runs keep a thread on neighbouring blocks, whose keys are still in its own caches and whose next
// block it can prepare; the short ones at the end even out blocks and heads that differ in cost (measured
// against runs of a fixed length: docs/execution_plans.md, "Memory layout and traffic"). `cancelled` is
// polled before each task; once it answers true no
// further task starts. Returns false when the run was cancelled. The first exception a task throws
// stops further tasks and is rethrown here once every thread has finished.
bool runTasks(std::int64_t count, int threads, const CancelCheck& cancelled, const std::function<void(std::int64_t)>& task,
              std::int64_t grain = 1);

} // namespace attnlab
