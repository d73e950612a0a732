#pragma once

// A MeasureClock whose readings move only when the code under test says a repetition happened: the test
// scripts each repetition's wall seconds and its team's CPU seconds, so a timing rule is checked against
// exactly those numbers, whatever the machine's load.
#include "core/measure/thread_cpu_clock.h"

#include <cstddef>
#include <functional>
#include <vector>

namespace attnlab::testing {

class RecordedClock final : public MeasureClock {
public:
    double wallSeconds() const override { return m_wall; }
    double teamCpuSeconds(int) const override { return m_cpu; }
    void advance(double wallSeconds, double cpuSeconds) {
        m_wall += wallSeconds;
        m_cpu += cpuSeconds;
    }

private:
    double m_wall = 0;
    double m_cpu = 0;
};

// One call of the timed work as recorded: how long it took and how much CPU its whole team used.
struct RecordedRun {
    double wallSeconds = 0;
    double cpuSeconds = 0;
};

// A `once` for timeRepeated that replays `runs` in order on `clock` (the warm-up takes the first) and
// counts its calls; a call beyond the recording fails the test through the exception of at().
inline std::function<bool()> replay(RecordedClock& clock, const std::vector<RecordedRun>& runs, std::size_t& calls) {
    return [&clock, runs, &calls] {
        const RecordedRun& run = runs.at(calls++);
        clock.advance(run.wallSeconds, run.cpuSeconds);
        return true;
    };
}

} // namespace attnlab::testing
