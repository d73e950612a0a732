#include "core/measure/thread_cpu_clock.h"

#include <chrono>
#include <cmath>
#include <ctime>

#if defined(__linux__)
#include <sys/resource.h>
#endif

namespace attnlab {

namespace {

double threadCpuSeconds() {
    timespec now{};
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now);
    return static_cast<double>(now.tv_sec) + 1e-9 * static_cast<double>(now.tv_nsec);
}

} // namespace

// A team started from the same thread with the same size reuses the same threads (libgomp keeps one
// pool per starting thread), so the sum before and after a measurement brackets exactly its work.
double teamCpuSeconds(int threads) {
    double total = 0;
#pragma omp parallel num_threads(threads) reduction(+ : total)
    total += threadCpuSeconds();
    return total;
}

namespace {

class SystemMeasureClock final : public MeasureClock {
public:
    double wallSeconds() const override {
        return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
    }
    double teamCpuSeconds(int threads) const override { return attnlab::teamCpuSeconds(threads); }
};

} // namespace

const MeasureClock& systemMeasureClock() {
    static const SystemMeasureClock clock;
    return clock;
}

TeamCpuShareClock::TeamCpuShareClock(int threads, const MeasureClock& clock)
    : m_clock(&clock), m_threads(threads), m_cpu(clock.teamCpuSeconds(threads)), m_wall(clock.wallSeconds()) {}

double TeamCpuShareClock::share() const {
    const double cpu = m_clock->teamCpuSeconds(m_threads) - m_cpu;
    const double wall = m_clock->wallSeconds() - m_wall;
    return wall > 0 ? cpu / (wall * m_threads) : std::nan("");
}

void lowerWorkerPriority() {
#if defined(__linux__)
    constexpr int kWorkerNice = 10;
    setpriority(PRIO_PROCESS, 0, kWorkerNice);
#endif
}

} // namespace attnlab
