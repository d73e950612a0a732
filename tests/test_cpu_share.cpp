// The CPU share a timing reports (TimingResult::cpuShare): judged per repetition, so that one repetition
// held up off the CPU does not mark a point of many as starved, while a point most of whose repetitions
// waited is marked.
#include "core/analysis/timing_sweep.h"
#include "core/measure/thread_cpu_clock.h"
#include "core/measure/timing.h"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <thread>

namespace attnlab {
namespace {

using namespace std::chrono_literals;

void spinFor(std::chrono::steady_clock::duration length) {
    const auto end = std::chrono::steady_clock::now() + length;
    volatile unsigned sink = 0;
    while (std::chrono::steady_clock::now() < end) sink = sink + 1;
}

constexpr int kRepeats = 15;

TEST(CpuShare, OneRepetitionHeldUpOffTheCpuDoesNotMarkThePoint) {
    int calls = 0;
    const TeamCpuShareClock wholeRun(1);
    const TimingResult result = timeRepeated(
        [&] {
            if (++calls == 4) std::this_thread::sleep_for(60ms);
            else spinFor(2ms);
            return true;
        },
        0.0, kRepeats, kRepeats, {}, 1);
    const double whole = wholeRun.share();
    EXPECT_LT(whole, kStarvedCpuShare) << "the held-up repetition dominates the whole run's wall time";
    EXPECT_GT(result.cpuShare, 2 * whole) << "the repetitions' median is not dragged down by the one held up";
    EXPECT_GE(result.cpuShare, kStarvedCpuShare);
    EXPECT_LE(result.cpuShare, 1.05);
}

TEST(CpuShare, APointWhoseRepetitionsMostlyWaitIsMarked) {
    int calls = 0;
    const TimingResult result = timeRepeated(
        [&] {
            if (++calls % 4 == 0) spinFor(2ms);
            else std::this_thread::sleep_for(2ms);
            return true;
        },
        0.0, kRepeats, kRepeats, {}, 1);
    EXPECT_LT(result.cpuShare, 0.5);
    EXPECT_GE(result.cpuShare, 0.0);
}

TEST(CpuShare, MeasuredOnlyWhenAsked) {
    const TimingResult result = timeRepeated([] { return true; }, 0.0, 3, 3);
    EXPECT_TRUE(std::isnan(result.cpuShare));
}

} // namespace
} // namespace attnlab
