#pragma once

namespace attnlab {

// CPU seconds the calling thread and the OpenMP team it starts with `threads` threads have used so far
// (CLOCK_THREAD_CPUTIME_ID on every team thread). Other threads of the process — the UI, other
// jobs with their own OpenMP teams — are not counted.
double teamCpuSeconds(int threads);

// The two readings every timing takes, as one seam so that the rules built on them (the median over
// repetitions, the repeat budget, the CPU share of a team) can be checked against recorded readings
// instead of the machine's scheduler. Data contract:
// - wallSeconds(): seconds from an arbitrary origin fixed for the clock's lifetime, never decreasing
//   from one call to the next;
// - teamCpuSeconds(threads): CPU seconds used so far by the calling thread and the OpenMP team it starts
//   with `threads` threads, never decreasing between calls with the same `threads` from the same thread;
// - only differences between two readings are meaningful; over one interval the CPU difference of a team
//   of t threads is at most t × the wall difference (plus the cost of the readings themselves).
// Both are called on the measuring thread (a worker in the app), so an implementation must be safe to
// call from any one thread at a time. systemMeasureClock() reads steady_clock and teamCpuSeconds.
class MeasureClock {
public:
    virtual ~MeasureClock() = default;
    virtual double wallSeconds() const = 0;
    virtual double teamCpuSeconds(int threads) const = 0;
};
const MeasureClock& systemMeasureClock();

// Wall time and the CPU time of the calling thread's OpenMP team from construction on; share() is the
// fraction of `threads` cores the team got in between (well below 1 when other programs held them).
class TeamCpuShareClock {
public:
    explicit TeamCpuShareClock(int threads, const MeasureClock& clock = systemMeasureClock());
    double share() const;

private:
    const MeasureClock* m_clock;
    int m_threads;
    double m_cpu;
    double m_wall;
};

// Lowers the calling thread's scheduling priority (Linux: nice 10; the OpenMP threads it starts
// inherit it), so that a long measurement leaves the UI responsive under load. On an otherwise idle
// machine the measurement is unchanged.
void lowerWorkerPriority();

} // namespace attnlab
