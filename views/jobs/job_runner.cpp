#include "views/jobs/job_runner.h"

#include "views/jobs/job_board.h"

#include <QMetaObject>

#include <algorithm>
#include <exception>
#include <thread>

namespace attnlab {

JobRunner::JobRunner(const QString& name, QObject* parent) : QObject(parent), m_name(name) {
    // One worker per view keeps jobs of a view in submission order; kernels get their own threads.
    m_pool.setMaxThreadCount(1);
}

JobRunner::~JobRunner() {
    bumpGeneration();
    m_pool.waitForDone();
    JobBoard::instance().forget(this);
}

int JobRunner::kernelThreads() { return std::max(1, static_cast<int>(std::thread::hardware_concurrency()) - 1); }

std::uint64_t JobRunner::bumpGeneration() {
    if (!m_lastError.isEmpty()) {
        m_lastError.clear();
        emit errorCleared();
    }
    return ++m_state->generation;
}

void JobRunner::submitErased(ErasedWork work, ErasedDeliver deliver) {
    const std::uint64_t jobGeneration = generation();
    if (m_pending++ == 0) {
        JobBoard::instance().setBusy(this, true);
        emit busyChanged(true);
    }
    // The destructor waits for the pool, so `this` outlives every worker; a queued call whose context
    // object is gone is dropped by Qt.
    m_pool.start([this, state = m_state, jobGeneration, work = std::move(work), deliver = std::move(deliver)] {
        const CancelCheck cancelled = [state, jobGeneration] { return state->generation.load() != jobGeneration; };
        std::shared_ptr<const void> result;
        QString error;
        if (!cancelled()) {
            try {
                result = work(cancelled);
            } catch (const std::exception& exception) {
                error = QString::fromUtf8(exception.what());
            } catch (...) {
                error = QStringLiteral("unknown error");
            }
        }
        QMetaObject::invokeMethod(
            this, [this, jobGeneration, result, error, deliver] { finishJob(jobGeneration, result, error, deliver); },
            Qt::QueuedConnection);
    });
}

void JobRunner::finishJob(std::uint64_t jobGeneration, const std::shared_ptr<const void>& result, const QString& error,
                          const ErasedDeliver& deliver) {
    if (jobGeneration == generation()) {
        if (!error.isEmpty()) {
            m_lastError = (m_name.isEmpty() ? QString() : m_name + QStringLiteral(": ")) + error;
            emit failed(m_lastError);
        } else if (result) {
            deliver(result);
        }
    }
    if (--m_pending == 0) {
        JobBoard::instance().setBusy(this, false);
        emit busyChanged(false);
    }
}

} // namespace attnlab
