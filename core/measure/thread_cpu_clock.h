#pragma once

#include <chrono>

namespace attnlab {

// CPU seconds the calling thread and the OpenMP team it starts with `threads` threads have used so far
// (CLOCK_THREAD_CPUTIME_ID on every team thread). Other threads of the process — the UI, other
// jobs with their own OpenMP teams — are not counted.
double teamCpuSeconds(int threads);

// Wall time and the CPU time of the calling thread's OpenMP team from construction on; share() is the
// fraction of `threads` cores the team got in between (well below 1 when other programs held them).
class TeamCpuShareClock {
public:
    explicit TeamCpuShareClock(int threads);
    double share() const;

private:
    int m_threads;
    double m_cpu;
    std::chrono::steady_clock::time_point m_wall;
};

// Lowers the calling thread's scheduling priority (Linux: nice 10; the OpenMP threads it starts
// inherit it), so that a long measurement leaves the UI responsive under load. On an otherwise idle
// machine the measurement is unchanged.
void lowerWorkerPriority();

} // namespace attnlab
