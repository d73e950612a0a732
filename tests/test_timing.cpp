// The timing helpers: the repetition rules on recorded clock readings (support/recorded_clock.h), where a
// measured ratio crosses 1, and the memory a measurement reports.
#include "core/measure/timing.h"
#include "support/recorded_clock.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstddef>
#include <string>
#include <thread>
#include <vector>

namespace attnlab {
namespace {

using testing::RecordedClock;
using testing::RecordedRun;
using testing::replay;

constexpr double kMs = 1e-3;

// The warm-up is not timed; the seconds reported are the median, fastest and slowest repetition.
TEST(TimeRepeated, ReportsTheMedianFastestAndSlowestRepetitionAfterAnUntimedWarmUp) {
    RecordedClock clock;
    std::size_t calls = 0;
    const std::vector<RecordedRun> runs = {{900 * kMs, 0}, {5 * kMs, 0}, {1 * kMs, 0}, {3 * kMs, 0}, {2 * kMs, 0}, {4 * kMs, 0}};
    const TimingResult result = timeRepeated(replay(clock, runs, calls), 0.0, 5, 5, {}, 0, clock);
    EXPECT_EQ(calls, runs.size());
    EXPECT_EQ(result.repeats, 5);
    EXPECT_NEAR(result.medianSeconds, 3 * kMs, 1e-12);
    EXPECT_NEAR(result.minSeconds, 1 * kMs, 1e-12);
    EXPECT_NEAR(result.maxSeconds, 5 * kMs, 1e-12);
    EXPECT_FALSE(result.cancelled);
}

// Repetitions go on until both the minimum count and the budget are reached, never past the maximum.
TEST(TimeRepeated, RepeatsUntilTheMinimumAndTheBudgetAreBothReachedAndNoMoreThanTheMaximum) {
    const auto repeatsOf = [](double budget, int minRepeats, int maxRepeats) {
        RecordedClock clock;
        std::size_t calls = 0;
        return timeRepeated(replay(clock, std::vector<RecordedRun>(100, {3 * kMs, 0}), calls), budget, minRepeats,
                            maxRepeats, {}, 0, clock)
            .repeats;
    };
    EXPECT_EQ(repeatsOf(10 * kMs, 2, 1000), 4) << "3, 6, 9 ms spent: under the budget; 12 ms: done";
    EXPECT_EQ(repeatsOf(10 * kMs, 6, 1000), 6) << "the minimum outlasts the budget";
    EXPECT_EQ(repeatsOf(10 * kMs, 2, 3), 3) << "the maximum cuts the budget short";
    EXPECT_EQ(repeatsOf(0.0, 1, 1000), 1);
}

TEST(TimeRepeated, CancelledBetweenRepetitionsReportsCancelledAndRunsNoMore) {
    RecordedClock clock;
    std::size_t calls = 0;
    int polls = 0;
    const TimingResult result = timeRepeated(replay(clock, std::vector<RecordedRun>(100, {kMs, kMs}), calls), 1.0, 3,
                                             1000, [&polls] { return ++polls > 2; }, 1, clock);
    EXPECT_TRUE(result.cancelled);
    EXPECT_EQ(calls, 3u) << "the warm-up and the two repetitions before the third poll";
}

TEST(MeasuredCrossover, InterpolatesInLogLogSpaceBetweenTheGridPointsAroundTheChange) {
    // log ratio goes from log(1/2) to log 2 between n = 256 and 512: halfway in log n.
    const MeasuredCrossover crossing = measuredCrossover({128, 256, 512, 1024}, {0.25, 0.5, 2.0, 4.0});
    ASSERT_TRUE(crossing.n.has_value());
    EXPECT_NEAR(*crossing.n, 256.0 * std::sqrt(2.0), 1e-9);
    EXPECT_FALSE(crossing.alwaysAbove);
}

TEST(MeasuredCrossover, ANoisyEarlyPointAboveOneDoesNotMakeAnEarlyCrossing) {
    const MeasuredCrossover crossing = measuredCrossover({256, 512, 1024, 2048}, {1.3, 0.6, 0.9, 1.5});
    ASSERT_TRUE(crossing.n.has_value());
    EXPECT_GT(*crossing.n, 1024.0);
    EXPECT_LT(*crossing.n, 2048.0);
}

TEST(MeasuredCrossover, OutsideTheGridIsSaidAsSuch) {
    const MeasuredCrossover above = measuredCrossover({256, 512}, {1.1, 3.0});
    EXPECT_TRUE(above.alwaysAbove);
    EXPECT_FALSE(above.n.has_value());
    const MeasuredCrossover below = measuredCrossover({256, 512, 1024}, {0.2, 1.5, 0.9});
    EXPECT_FALSE(below.alwaysAbove);
    EXPECT_FALSE(below.n.has_value());
    EXPECT_FALSE(measuredCrossover({}, {}).n.has_value());
}

// The app measures its points one after another on a worker thread, n outermost and the compared
// variants within. Each point frees its inputs and output when it ends; the next point's output must
// still count as that point's memory. (With a heap of its own, the worker kept the freed memory resident,
// the output reused it, and some points read a few KiB.)
TEST(MeasuredMemory, EachPointOnAWorkerCountsItsOutputAfterEarlierPointsFreedTheirs) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "the sanitizers' allocators keep freed memory in quarantine: resident memory says nothing here";
#endif
    prepareAllocatorForMeasurements(); // as main does, before the worker starts
    struct Point {
        std::string variant;
        std::int64_t n;
        double extraBytes;
    };
    std::vector<Point> points;
    std::thread worker([&] {
        for (const std::int64_t n : {1024, 2048, 4096})
            for (const char* variant : {"performer", "linformer", "mixed_chunk", "linear"}) {
                TimingRequest request;
                request.variant = variant;
                request.shape.heads = 4;
                request.shape.n = n;
                request.shape.d = request.shape.dv = 64;
                request.budgetSeconds = 0;
                request.minRepeats = request.maxRepeats = 1;
                points.push_back({variant, n, timeVariant(request).peakExtraBytes});
            }
    });
    worker.join();
    for (const Point& point : points) {
        const double outputBytes = 4.0 * 4 * static_cast<double>(point.n) * 64;
        EXPECT_GE(point.extraBytes, 0.9 * outputBytes) << point.variant << " at n = " << point.n;
    }
}

// The GEMM engine a layer measurement uses: the faster of those timed, the earlier on a tie, and a warning
// exactly when it runs under kSlowGemmShare of the attention core's rate (rates injected, nothing timed).
TEST(GemmChoice, TheFasterEngineIsChosenAndASlowOneIsWarnedAbout) {
    const GemmEngineRate generic{GemmEngine::OpenBlas, "OpenBLAS (kernels: Prescott)", 15.0};
    const GemmEngineRate tuned{GemmEngine::OpenBlas, "OpenBLAS (kernels: SkylakeX)", 120.0};
    const GemmEngineRate eigen{GemmEngine::Eigen, "Eigen (own kernels)", 90.0};
    EXPECT_EQ(chooseGemmEngine({generic, eigen}).chosen.name, eigen.name);
    EXPECT_EQ(chooseGemmEngine({tuned, eigen}).chosen.name, tuned.name);
    EXPECT_EQ(chooseGemmEngine({eigen}).chosen.name, eigen.name);
    const GemmEngineRate equal{GemmEngine::Eigen, "Eigen (own kernels)", 120.0};
    EXPECT_EQ(chooseGemmEngine({tuned, equal}).chosen.engine, GemmEngine::OpenBlas) << "a tie keeps the earlier engine";
    EXPECT_EQ(chooseGemmEngine({generic, eigen}).measured.size(), 2u);
    EXPECT_THROW(chooseGemmEngine({}), std::logic_error);

    const double attention = 160.0;
    EXPECT_TRUE(gemmFarBelowAttention(15.0, attention));
    EXPECT_FALSE(gemmFarBelowAttention(90.0, attention));
    EXPECT_FALSE(gemmFarBelowAttention(kSlowGemmShare * attention, attention)) << "the bound itself is not far below";
    EXPECT_TRUE(gemmFarBelowAttention(0.99 * kSlowGemmShare * attention, attention));
    EXPECT_FALSE(gemmFarBelowAttention(15.0, 0.0)) << "no attention rate measured: nothing to compare";

    const std::string warning = gemmWarningText(chooseGemmEngine({generic}), attention);
    EXPECT_NE(warning.find("15.0 GFLOP/s"), std::string::npos) << warning;
    EXPECT_NE(warning.find("9%"), std::string::npos) << warning; // 15 / 160
    EXPECT_NE(warning.find("160.0 GFLOP/s"), std::string::npos) << warning;
    EXPECT_TRUE(gemmWarningText(chooseGemmEngine({generic, eigen}), attention).empty());
    const std::string text = gemmChoiceText(chooseGemmEngine({generic, eigen}));
    EXPECT_EQ(text.rfind(eigen.name + ", 90.0 GFLOP/s", 0), 0u) << text;
    EXPECT_NE(text.find(generic.name + ", 15.0 GFLOP/s"), std::string::npos) << text;
}

// Every engine of the build computes the same product as a plain triple loop, and OpenBLAS's name carries
// the kernel set it runs.
TEST(GemmChoice, EveryEngineComputesTheProduct) {
    const std::int64_t m = 37, k = 19, n = 23;
    std::vector<float> a(m * k), b(k * n);
    for (std::size_t i = 0; i < a.size(); ++i) a[i] = static_cast<float>((i * 7) % 11) - 5.0f;
    for (std::size_t i = 0; i < b.size(); ++i) b[i] = static_cast<float>((i * 5) % 13) - 6.0f;
    const auto engines = availableGemmEngines();
    EXPECT_EQ(engines.back(), GemmEngine::Eigen);
    for (const GemmEngine engine : engines) {
        SCOPED_TRACE(gemmEngineName(engine));
        for (const int threads : {1, 3}) {
            std::vector<float> c(m * n, -1.0f);
            multiplyRowMajor(a.data(), b.data(), c.data(), m, k, n, threads, engine);
            for (std::int64_t i = 0; i < m; ++i)
                for (std::int64_t j = 0; j < n; ++j) {
                    double expected = 0;
                    for (std::int64_t p = 0; p < k; ++p) expected += static_cast<double>(a[i * k + p]) * b[p * n + j];
                    ASSERT_EQ(c[i * n + j], static_cast<float>(expected)) << i << "," << j; // small integers: exact
                }
        }
        if (engine == GemmEngine::OpenBlas) {
            EXPECT_NE(gemmEngineName(engine).find("(kernels: " + openBlasCoreName() + ")"), std::string::npos);
        }
    }
}

} // namespace
} // namespace attnlab
