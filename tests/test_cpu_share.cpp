// The CPU share a timing reports (TimingResult::cpuShare): judged per repetition, so that one repetition
// held up off the CPU does not mark a point of many as starved, while a point most of whose repetitions
// waited is marked. The rules are checked on recorded readings (support/recorded_clock.h); one test reads
// the real clocks and asserts only what holds under any load.
#include "core/analysis/timing_sweep.h"
#include "core/measure/thread_cpu_clock.h"
#include "core/measure/timing.h"
#include "support/recorded_clock.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <vector>

namespace attnlab {
namespace {

using testing::RecordedClock;
using testing::RecordedRun;
using testing::replay;

constexpr double kMs = 1e-3;

// A point as the sweep keeps it, for its starved() rule.
TimingPoint pointOf(const TimingResult& result) {
    TimingPoint point;
    point.medianSeconds = result.medianSeconds;
    point.cpuShare = result.cpuShare;
    return point;
}

TEST(CpuShare, OneRepetitionHeldUpOffTheCpuDoesNotMarkThePoint) {
    // A warm-up and 15 repetitions of 2 ms on the CPU; the fourth waits 60 ms off it.
    std::vector<RecordedRun> runs(16, {2 * kMs, 2 * kMs});
    runs[4] = {60 * kMs, 0.1 * kMs};
    RecordedClock clock;
    std::size_t calls = 0;
    const TeamCpuShareClock wholeRun(1, clock);
    const TimingResult result = timeRepeated(replay(clock, runs, calls), 0.0, 15, 15, {}, 1, clock);
    EXPECT_EQ(calls, runs.size());
    const double whole = wholeRun.share();
    EXPECT_NEAR(whole, (15 * 2 + 0.1) / (15 * 2 + 60.0), 1e-12);
    EXPECT_LT(whole, kStarvedCpuShare) << "the held-up repetition dominates the whole run's wall time";
    EXPECT_DOUBLE_EQ(result.cpuShare, 1.0) << "the median repetition had the core to itself";
    EXPECT_FALSE(pointOf(result).starved());
}

TEST(CpuShare, APointWhoseRepetitionsMostlyWaitIsMarked) {
    // Every fourth repetition runs on the CPU; the others get a twentieth of it.
    std::vector<RecordedRun> runs;
    for (int call = 0; call <= 15; ++call) runs.push_back(call % 4 == 0 ? RecordedRun{2 * kMs, 2 * kMs} : RecordedRun{2 * kMs, 0.1 * kMs});
    RecordedClock clock;
    std::size_t calls = 0;
    const TimingResult result = timeRepeated(replay(clock, runs, calls), 0.0, 15, 15, {}, 1, clock);
    EXPECT_NEAR(result.cpuShare, 0.05, 1e-12);
    EXPECT_TRUE(pointOf(result).starved());
}

// The share is of the team's cores: CPU seconds / (wall seconds × threads), with the median taken over
// repetitions (the middle of an odd count). 0.75 is trusted, just below it is not.
TEST(CpuShare, IsTheMedianOverRepetitionsOfTheTeamsShareOfItsCores) {
    RecordedClock clock;
    std::size_t calls = 0;
    // Two threads: 10 ms of wall time offer 20 ms of CPU. Shares 0.2, 0.75, 0.9 (warm-up first).
    const std::vector<RecordedRun> runs = {{10 * kMs, 0}, {10 * kMs, 4 * kMs}, {10 * kMs, 18 * kMs}, {10 * kMs, 15 * kMs}};
    const TimingResult result = timeRepeated(replay(clock, runs, calls), 0.0, 3, 3, {}, 2, clock);
    EXPECT_NEAR(result.cpuShare, 0.75, 1e-12);
    EXPECT_FALSE(pointOf(result).starved());

    TimingResult below = result;
    below.cpuShare = 0.7499;
    EXPECT_TRUE(pointOf(below).starved());
}

TEST(CpuShare, MeasuredOnlyWhenAsked) {
    RecordedClock clock;
    std::size_t calls = 0;
    const TimingResult result = timeRepeated(replay(clock, std::vector<RecordedRun>(4, {kMs, kMs}), calls), 0.0, 3, 3,
                                             {}, 0, clock);
    EXPECT_TRUE(std::isnan(result.cpuShare));
    EXPECT_FALSE(pointOf(result).starved()) << "an unmeasured share marks nothing";
}

// The one test of the real clocks: a team's CPU seconds over an interval are positive when it worked and
// never more than its threads × the wall seconds of an interval enclosing the readings, however busy the
// machine is; a timing through them reports positive seconds and a positive share.
TEST(SystemMeasureClock, ReadingsHoldUnderAnyLoad) {
    const MeasureClock& clock = systemMeasureClock();
    const auto work = [] {
        volatile double sink = 0;
        for (int k = 0; k < 2'000'000; ++k) sink = sink + 1e-9 * k;
        return true;
    };
    for (const int threads : {1, 2}) {
        SCOPED_TRACE(threads);
        const double wallBefore = clock.wallSeconds();
        const double cpuBefore = clock.teamCpuSeconds(threads);
        work();
        const double cpu = clock.teamCpuSeconds(threads) - cpuBefore;
        const double wall = clock.wallSeconds() - wallBefore;
        EXPECT_GT(cpu, 0.0);
        EXPECT_GT(wall, 0.0);
        constexpr double kReadingGranularity = 1e-3;
        EXPECT_LE(cpu, wall * threads + kReadingGranularity);

        const TimingResult result = timeRepeated(work, 0.0, 3, 3, {}, threads);
        EXPECT_EQ(result.repeats, 3);
        EXPECT_GT(result.minSeconds, 0.0);
        EXPECT_GT(result.cpuShare, 0.0);
    }
}

} // namespace
} // namespace attnlab
