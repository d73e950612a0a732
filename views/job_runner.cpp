#include "views/job_runner.h"

#include <QMetaObject>

#include <algorithm>
#include <exception>
#include <thread>

namespace attnlab {

JobRunner::JobRunner(QObject* parent) : QObject(parent) {
    // One worker per view keeps jobs of a view in submission order; kernels get their own threads.
    m_pool.setMaxThreadCount(1);
}

JobRunner::~JobRunner() {
    bumpGeneration();
    m_pool.waitForDone();
}

int JobRunner::kernelThreads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1); }

std::uint64_t JobRunner::bumpGeneration() { return ++m_state->generation; }

void JobRunner::submitErased(ErasedWork work, ErasedDeliver deliver) {
    const std::uint64_t jobGeneration = generation();
    if (m_pending++ == 0) emit busyChanged(true);
    // The destructor waits for the pool, so `this` outlives every worker; a queued call whose context
    // object is gone is dropped by Qt.
    m_pool.start([this, state = m_state, jobGeneration, work = std::move(work), deliver = std::move(deliver)] {
        const CancelCheck cancelled = [state, jobGeneration] { return state->generation.load() != jobGeneration; };
        std::shared_ptr<const void> result;
        if (!cancelled()) {
            try {
                result = work(cancelled);
            } catch (const std::exception&) {
                // Work reports user errors inside its result; anything else drops this job's result.
            }
        }
        QMetaObject::invokeMethod(
            this, [this, jobGeneration, result, deliver] { finishJob(jobGeneration, result, deliver); },
            Qt::QueuedConnection);
    });
}

void JobRunner::finishJob(std::uint64_t jobGeneration, const std::shared_ptr<const void>& result,
                          const ErasedDeliver& deliver) {
    if (result && jobGeneration == generation()) deliver(result);
    if (--m_pending == 0) emit busyChanged(false);
}

} // namespace attnlab
