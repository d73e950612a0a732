// The timing sweep of the analysis layer (core/analysis/timing_sweep.h), part of the test_analysis
// program: the layer crossover of timing points, the cost model's prediction and slopes fitted to them,
// the block kernel's prediction, and the sweeps over a grid's scaled copies.

#include "core/analysis/timing_sweep.h"
#include "core/analysis/accuracy.h"
#include "core/analysis/animation_range.h"
#include "core/analysis/block_cost.h"
#include "core/analysis/flop_breakdown.h"
#include "core/analysis/inference.h"
#include "core/analysis/lab_settings.h"
#include "core/analysis/receptive_field.h"
#include "core/analysis/settings_check.h"
#include "core/decode/decode.h"
#include "core/errors.h"
#include "core/random/input_generator.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <string>

namespace attnlab {
namespace {

TimingPoint layerPoint(int part, std::int64_t n, double seconds) {
    TimingPoint point;
    point.seriesIndex = part;
    point.shape.n = n;
    point.medianSeconds = seconds;
    return point;
}

// Self-attention (parts 0–2) against the FFN (part 3): the crossover lies between the last n where it
// is smaller and the first where it is larger for good; n with a missing part do not count.
TEST(TimingSweep, LayerCrossoverUsesOnlyCompleteLayers) {
    std::vector<TimingPoint> points;
    const std::vector<std::pair<std::int64_t, double>> attention = {
        {64, 0.2}, {128, 0.5}, {256, 2.0}, {512, 8.0}};
    for (const auto& [n, seconds] : attention) {
        points.push_back(layerPoint(0, n, seconds / 2));
        points.push_back(layerPoint(1, n, seconds / 4));
        points.push_back(layerPoint(2, n, seconds / 4));
        points.push_back(layerPoint(3, n, 1.0));
    }
    points.push_back(layerPoint(0, 1024, 1.0)); // incomplete: no other part at 1024
    EXPECT_EQ(completeLayers(points).size(), 4u);
    const MeasuredCrossover crossover = layerCrossover(points);
    ASSERT_TRUE(crossover.n);
    EXPECT_GT(*crossover.n, 128.0);
    EXPECT_LT(*crossover.n, 256.0);
    EXPECT_EQ(timingSweepSizes(512), (std::vector<std::int64_t>{64, 128, 256, 512}));
}

// A CPU-starved part makes its whole layer untrustworthy: a slowed FFN at n = 128 would put the
// crossover below 128 if it counted.
TEST(TimingSweep, LayerCrossoverLeavesOutStarvedLayers) {
    std::vector<TimingPoint> points;
    const std::vector<std::pair<std::int64_t, double>> attention = {
        {64, 0.2}, {128, 0.5}, {256, 2.0}, {512, 8.0}};
    for (const auto& [n, seconds] : attention) {
        for (int part = 0; part < 3; ++part)
            points.push_back(layerPoint(part, n, seconds / 3));
        points.push_back(layerPoint(3, n, n == 128 ? 0.25 : 1.0));
        for (int part = 0; part < 4; ++part)
            points[points.size() - 4 + part].cpuShare = 1.0;
    }
    ASSERT_TRUE(layerCrossover(points).n);
    EXPECT_LT(*layerCrossover(points).n, 128.0) << "with the slowed point the crossover moves below 128";
    points[7].cpuShare = 0.3; // the FFN at n = 128, starved
    ASSERT_TRUE(points[7].starved());
    const MeasuredCrossover crossover = layerCrossover(points);
    ASSERT_TRUE(crossover.n);
    EXPECT_GT(*crossover.n, 128.0);
    EXPECT_LT(*crossover.n, 256.0);
}

TEST(TimingSweep, PredictionFitsOneRateToTheCurvesTrustedPoints) {
    std::vector<TimingPoint> points(3);
    points[0].shape.n = 1024, points[0].medianSeconds = 1, points[0].macs = 100;    // 100 MACs/s
    points[1].shape.n = 2048, points[1].medianSeconds = 1, points[1].macs = 400;    // 400 MACs/s
    points[2].shape.n = 4096, points[2].medianSeconds = 100, points[2].macs = 1600; // starved: left out
    points[2].cpuShare = 0.2;
    ASSERT_TRUE(points[2].starved());
    // Rate √(100 · 400) = 200: each trusted point a factor 2 off, one below and one above.
    EXPECT_NEAR(predictedSeconds(points, points[0]), 0.5, 1e-12);
    EXPECT_NEAR(predictedSeconds(points, points[1]), 2.0, 1e-12);
    EXPECT_NEAR(predictedSeconds(points, points[2]), 8.0, 1e-12);
}

TEST(TimingSweep, PredictionUsesEveryValidPointWhenNoneIsTrusted) {
    std::vector<TimingPoint> points(2);
    points[0].shape.n = 64, points[0].medianSeconds = 1, points[0].macs = 100; // below kSlopeMinN
    points[1].shape.n = 128, points[1].medianSeconds = 1, points[1].macs = 400;
    EXPECT_NEAR(predictedSeconds(points, points[0]), 0.5, 1e-12);
    EXPECT_NEAR(predictedSeconds(points, points[1]), 2.0, 1e-12);
}

TEST(TimingSweep, SlopesFitTheMeasuredTimesAndTheModelsMacsAboveTheOverheadRange) {
    std::vector<TimingPoint> points;
    for (std::int64_t n = 64; n <= 8192; n *= 2) {
        TimingPoint point;
        point.shape.n = n;
        point.macs = 3.0 * static_cast<double>(n) * static_cast<double>(n);
        // n^1.5 above the overhead range; a flat 1 ms below it must not bend the fit.
        point.medianSeconds = n >= kSlopeMinN ? 1e-9 * std::pow(static_cast<double>(n), 1.5) : 1e-3;
        point.cpuShare = 1.0;
        points.push_back(point);
    }
    points.back().cpuShare = 0.2; // starved: its time is inflated and left out
    points.back().medianSeconds *= 10;
    const auto slopes = seriesSlopes(points, 0);
    ASSERT_TRUE(slopes);
    EXPECT_NEAR(slopes->measured, 1.5, 1e-9);
    EXPECT_NEAR(slopes->model, 2.0, 1e-9);
    EXPECT_EQ(slopes->points, 4); // 512, 1024, 2048, 4096
    EXPECT_FALSE(seriesSlopes(points, 1)) << "no points in that series";
    points.resize(5); // 64 … 1024: two points from kSlopeMinN up
    EXPECT_FALSE(seriesSlopes(points, 0)) << "no slope through two points";
    points.push_back(points.back());
    points.back().shape.n = 2048;
    EXPECT_TRUE(seriesSlopes(points, 0)) << "three points make a slope";
}

// The block kernel's prediction fits its own rate to the same times, and its slope is stated only where
// every trusted point has its MACs.
TEST(TimingSweep, BlockKernelPredictionFitsItsOwnRate) {
    std::vector<TimingPoint> points(3);
    for (std::size_t k = 0; k < points.size(); ++k) {
        points[k].shape.n = 1024 << k;
        points[k].medianSeconds = 1.0 * static_cast<double>(1 << k);
        points[k].macs = 100.0 * static_cast<double>(1 << k);            // the exact count doubles
        points[k].blockMacs = 300.0 * static_cast<double>(1 << (2 * k)); // the blocks quadruple
        points[k].cpuShare = 1.0;
    }
    const double rate = std::cbrt(300.0 * 600.0 * 1200.0); // the geometric mean of blockMacs / seconds
    for (const TimingPoint& point : points) {
        EXPECT_NEAR(predictedSeconds(points, point, CostModel::BlockKernel), point.blockMacs / rate, 1e-9);
        EXPECT_NEAR(predictedSeconds(points, point), point.macs / 100.0, 1e-9)
            << "the exact model: 100 MACs/s";
    }
    const auto slopes = seriesSlopes(points, 0);
    ASSERT_TRUE(slopes);
    EXPECT_NEAR(slopes->model, 1.0, 1e-9);
    EXPECT_NEAR(slopes->blockModel, 2.0, 1e-9);
    points[1].blockMacs = std::nan("");
    EXPECT_TRUE(std::isnan(seriesSlopes(points, 0)->blockModel));
    EXPECT_TRUE(std::isnan(predictedSeconds(points, points[1], CostModel::BlockKernel)));
}

// With a grid, the sweeps run over its scaled copies: a 3 × 3 neighbourhood has exactly 9 keys per cell
// on every copy, so the cost is 9n (d + dv) h MACs at every n; the block kernel's cost is computed cells
// × (d + dv) × h.
TEST(TimingSweep, SweepsOverImageSizesCostEachScaledGrid) {
    LabSettings settings;
    settings.variant = "custom";
    settings.params = {{"expr", "neighborhood(3)"}};
    settings.grid = "16,16";
    settings.n = 256;
    settings.heads = 2;
    settings.d = 8;
    settings.timingMaxN = 4096;
    EXPECT_EQ(timingSweepSizes(settings), (std::vector<std::int64_t>{64, 144, 256, 576, 1024, 2304, 4096}));
    const VariantInfo& custom = requireVariant("custom");
    for (const std::int64_t n : timingSweepSizes(settings)) {
        const ProblemShape shape = sweepShape(settings, custom, n);
        ASSERT_TRUE(shape.grid) << n;
        EXPECT_EQ(shape.grid->height(), shape.grid->width());
        const auto pattern = buildPattern(custom, shape, prepareParams(custom, shape, settings.params));
        EXPECT_EQ(pattern->nnz(), 9 * n);
        const BlockCounts blocks = countBlocks(*pattern, 64);
        EXPECT_DOUBLE_EQ(sweepBlockMacs({"custom", settings.params}, settings, n, 64),
                         static_cast<double>(blocks.computedCells) * 16.0 * 2.0);
    }
    EXPECT_TRUE(std::isnan(sweepBlockMacs({"linear", {}}, settings, 256, 64)))
        << "no block kernel for linear attention";
    settings.order = "tiles:8,8";
    EXPECT_EQ(timingSweepSizes(settings), (std::vector<std::int64_t>{64, 256, 576, 1024, 2304, 4096}));
    settings.grid.clear();
    settings.order.clear();
    EXPECT_EQ(timingSweepSizes(settings), timingSweepSizes(4096));

    settings.grid = "16,16";
    const FlopBreakdown breakdown = flopBreakdown(settings);
    ASSERT_FALSE(breakdown.sweep.empty());
    const auto grid = makeTokenGrid("16,16", "");
    EXPECT_EQ(breakdown.sweep.size(), flopSweepSizes(2, 8, grid.get()).size());
    for (const auto& point : breakdown.sweep)
        EXPECT_DOUBLE_EQ(point.cost.attentionMacs, 9.0 * static_cast<double>(point.n) * 16.0 * 2.0)
            << point.n;
    const auto bar = [&](const std::string& id) {
        return *std::find_if(breakdown.bars.begin(), breakdown.bars.end(),
                             [&](const auto& b) { return b.variant == id; });
    };
    ASSERT_TRUE(bar("custom").block);
    EXPECT_EQ(bar("custom").block->blocks.allowedCells, 9 * 256);
    EXPECT_DOUBLE_EQ(bar("custom").block->exactMacs, bar("custom").attentionMacs);
    EXPECT_DOUBLE_EQ(bar("custom").block->blockMacs,
                     static_cast<double>(bar("custom").block->blocks.computedCells) * 16.0 * 2.0);
    EXPECT_FALSE(bar("linear").block);
}

// A fixed cost per call: times t = macs / R + c. Where c outweighs the multiply-adds (small n) the measured
// time exceeds the cost model's, fitted over n >= 512, by twice or more, and by far less at the largest n:
// those points are named, with measured / predicted. A curve slower by the same factor at every n, and a
// starved point, are not.
TEST(TimingSweep, OverheadMissesAreThePointsAFixedCostPerCallDominates) {
    constexpr double rate = 1e10, perCall = 1e-3;
    std::vector<TimingPoint> points;
    for (std::int64_t n = 64; n <= 4096; n *= 2) {
        const double macs = 2.0 * static_cast<double>(n * n) * 64;
        TimingPoint overhead;
        overhead.series = "full";
        overhead.seriesIndex = 0;
        overhead.shape.n = n;
        overhead.macs = macs;
        overhead.medianSeconds = macs / rate + perCall;
        overhead.cpuShare = 1.0;
        points.push_back(overhead);
        TimingPoint uniform = overhead;
        uniform.series = "linear";
        uniform.seriesIndex = 1;
        uniform.medianSeconds = 3 * macs / rate;
        if (n == 64) uniform.medianSeconds *= 10, uniform.cpuShare = 0.3; // a starved point, far off the model
        points.push_back(uniform);
    }
    const std::vector<OverheadMiss> misses = overheadMisses(points);
    std::vector<std::int64_t> named;
    for (const OverheadMiss& miss : misses) {
        EXPECT_EQ(miss.seriesIndex, 0);
        named.push_back(miss.n);
        const TimingPoint& point = *std::find_if(points.begin(), points.end(), [&](const TimingPoint& p) { return p.seriesIndex == 0 && p.shape.n == miss.n; });
        EXPECT_DOUBLE_EQ(miss.ratio, point.medianSeconds / predictedSeconds(points, point));
        // The fit over n >= 512 runs close to the true rate: measured / predicted is close to 1 + c·R / macs.
        EXPECT_NEAR(miss.ratio, 1 + perCall * rate / point.macs, 0.1 * (1 + perCall * rate / point.macs));
    }
    EXPECT_EQ(named, (std::vector<std::int64_t>{64, 128, 256}));
}

} // namespace
} // namespace attnlab
