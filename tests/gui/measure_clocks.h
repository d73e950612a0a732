#pragma once

// Clocks the timing view's tests measure with (MeasureClock's contract), each read on the sweep's worker.

#include "core/measure/thread_cpu_clock.h"

#include <QCoreApplication>
#include <QMetaObject>
#include <QThread>

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <memory>
#include <mutex>

namespace attnlab {

constexpr int kClockWaitMs = 60000;

// Wall time read as the CPU time of the measuring thread (CLOCK_THREAD_CPUTIME_ID): the kernel's work,
// whatever share of a core the machine's load leaves it. The team's CPU comes from the system clock.
class ThreadCpuClock final : public MeasureClock {
public:
    double wallSeconds() const override {
        timespec now{};
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
        return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
    }
    double teamCpuSeconds(int threads) const override { return systemMeasureClock().teamCpuSeconds(threads); }
};

// Posts a call to the UI thread and waits (at most kClockWaitMs) until it has run: everything the
// caller posted before has then been delivered. True if the UI thread answered.
inline bool awaitUiAnswer() {
    struct Answer {
        std::mutex mutex;
        std::condition_variable given;
        bool done = false;
    };
    const auto answer = std::make_shared<Answer>();
    QMetaObject::invokeMethod(
        qApp,
        [answer] {
            {
                const std::lock_guard lock(answer->mutex);
                answer->done = true;
            }
            answer->given.notify_all();
        },
        Qt::QueuedConnection);
    std::unique_lock lock(answer->mutex);
    return answer->given.wait_for(lock, std::chrono::milliseconds(kClockWaitMs), [&] { return answer->done; });
}

// The system clock with a step before every reading (on whichever thread reads it).
class SystemClockWithStep : public MeasureClock {
public:
    double wallSeconds() const override {
        beforeReading();
        return systemMeasureClock().wallSeconds();
    }
    double teamCpuSeconds(int threads) const override {
        beforeReading();
        return systemMeasureClock().teamCpuSeconds(threads);
    }

protected:
    virtual void beforeReading() const = 0;
};

// The system clock, which notes whether it was ever read on the UI thread and, at its first reading,
// holds the measurement until the UI thread has answered a queued call: a sweep that measured on the UI
// thread, or blocked it, could never get that answer.
class HandshakeClock final : public SystemClockWithStep {
public:
    explicit HandshakeClock(QThread* uiThread) : m_uiThread(uiThread) {}
    bool readOnUiThread() const { return m_readOnUiThread; }
    bool uiAnsweredWhileMeasuring() const { return m_answered; }

private:
    void beforeReading() const override {
        if (QThread::currentThread() == m_uiThread) m_readOnUiThread = true;
        if (m_asked.exchange(true)) return;
        m_answered = awaitUiAnswer();
    }

    QThread* m_uiThread;
    mutable std::atomic<bool> m_readOnUiThread{false};
    mutable std::atomic<bool> m_asked{false};
    mutable std::atomic<bool> m_answered{false};
};

// The system clock, which at every reading on the worker first waits until the UI thread has answered a
// queued call (so every point the worker finished before it has been delivered), then waits while
// paused. Paused from a progress handler, it holds the sweep inside its next point however fast the
// machine is: the test can then change settings or cancel while the sweep is surely running.
class PausingClock final : public SystemClockWithStep {
public:
    explicit PausingClock(QThread* uiThread) : m_uiThread(uiThread) {}
    void pause() { setPaused(true); }
    void resume() { setPaused(false); }
    bool heldAPoint() const {
        const std::lock_guard lock(m_mutex);
        return m_held;
    }

private:
    void setPaused(bool paused) {
        {
            const std::lock_guard lock(m_mutex);
            m_paused = paused;
        }
        m_resumed.notify_all();
    }
    void beforeReading() const override {
        if (QThread::currentThread() == m_uiThread) return;
        awaitUiAnswer();
        std::unique_lock lock(m_mutex);
        if (m_paused) m_held = true;
        m_resumed.wait_for(lock, std::chrono::milliseconds(kClockWaitMs), [&] { return !m_paused; });
    }

    QThread* m_uiThread;
    mutable std::mutex m_mutex;
    mutable std::condition_variable m_resumed;
    bool m_paused = false;
    mutable bool m_held = false;
};

// The system's wall time, and the team's CPU time stated as a share of it: all of every core (no point is
// CPU-starved, however busy the machine) until starve(), then kStarvedShare of them, so every point
// measured from then on is starved.
class StarvingClock final : public MeasureClock {
public:
    static constexpr double kStarvedShare = 0.3;
    double wallSeconds() const override { return systemMeasureClock().wallSeconds(); }
    double teamCpuSeconds(int threads) const override { return wallSeconds() * threads * m_share.load(); }
    void starve() { m_share = kStarvedShare; }

private:
    std::atomic<double> m_share{1.0};
};

} // namespace attnlab
