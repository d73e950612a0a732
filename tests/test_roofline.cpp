// The roofline's pieces: bytes_min of the cost model against byte counts written out here by hand from
// each variant's data movement, the roofline arithmetic, the timing view's cost-model prediction, and the
// memory-bandwidth loop (positive and finite; its speed is a benchmark's business, not a test's).
#include "core/cost/cost_model.h"
#include "core/measure/machine_peak.h"
#include "core/measure/timing.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <cmath>
#include <vector>
#include <cstdint>
#include <string>

namespace attnlab {
namespace {

ProblemShape shapeOf(std::int64_t n, std::int64_t d, std::int64_t dv, int heads, bool causal = false) {
    ProblemShape shape;
    shape.n = n;
    shape.d = d;
    shape.dv = dv;
    shape.heads = heads;
    shape.causal = causal;
    return shape;
}

double bytesMinOf(const std::string& id, const ProblemShape& shape, const ParamOverrides& overrides = {}) {
    const VariantInfo& variant = requireVariant(id);
    return layerCost(variant, shape, prepareParams(variant, shape, overrides)).bytesMin;
}

// Q [h,n,d] and K [h,n,d] read, V [h,n,dv] read, out [h,n,dv] written, 4 bytes each.
double qkvOutBytes(double h, double n, double d, double dv) { return 4.0 * (h * n * d + h * n * d + h * n * dv + h * n * dv); }

TEST(BytesMin, FullAttentionMovesQkvAndOutOnceInEitherDirection) {
    for (const bool causal : {false, true}) {
        const ProblemShape shape = shapeOf(300, 24, 40, 3, causal);
        EXPECT_DOUBLE_EQ(bytesMinOf("full", shape), qkvOutBytes(3, 300, 24, 40));
    }
}

TEST(BytesMin, WindowAndBlockPatternsNeedNoExtraTraffic) {
    const ProblemShape shape = shapeOf(257, 16, 16, 2, true);
    for (const std::string id : {"strided", "fixed", "chunk", "xl", "longformer"})
        EXPECT_DOUBLE_EQ(bytesMinOf(id, shape), qkvOutBytes(2, 257, 16, 16)) << id;
}

TEST(BytesMin, BigBirdReadsEachRowsRandomKeysAndValuesAgain) {
    const ProblemShape shape = shapeOf(200, 32, 8, 4);
    const double random = 5;
    EXPECT_DOUBLE_EQ(bytesMinOf("bigbird", shape, {{"random", "5"}}),
                     qkvOutBytes(4, 200, 32, 8) + 4.0 * 4 * 200 * random * (32 + 8));
    EXPECT_DOUBLE_EQ(bytesMinOf("bigbird", shape, {{"random", "0"}}), qkvOutBytes(4, 200, 32, 8));
}

TEST(BytesMin, LshWritesAndReadsSortedCopiesPerRound) {
    const ProblemShape shape = shapeOf(256, 16, 24, 2);
    const double h = 2, n = 256, d = 16, dv = 24;
    // Shared QK: sorted Q and V per round; K is never read.
    EXPECT_DOUBLE_EQ(bytesMinOf("lsh", shape, {{"rounds", "3"}}),
                     qkvOutBytes(h, n, d, dv) - 4 * h * n * d + 3 * 2 * 4 * h * n * (d + dv));
    // Separate keys: sorted Q, K and V per round.
    EXPECT_DOUBLE_EQ(bytesMinOf("lsh", shape, {{"rounds", "2"}, {"shared_qk", "false"}}),
                     qkvOutBytes(h, n, d, dv) + 2 * 2 * 4 * h * n * (2 * d + dv));
}

TEST(BytesMin, LinformerAddsProjectedKeysValuesAndItsProjections) {
    const ProblemShape shape = shapeOf(512, 32, 32, 3);
    const double h = 3, n = 512, k = 40, d = 32;
    const double projected = 2 * 4 * h * k * (d + d); // E·K and F·V written and read
    EXPECT_DOUBLE_EQ(bytesMinOf("linformer", shape, {{"k", "40"}}), qkvOutBytes(h, n, d, d) + projected + 4 * 2 * k * n);
    EXPECT_DOUBLE_EQ(bytesMinOf("linformer", shape, {{"k", "40"}, {"proj", "pool"}}), qkvOutBytes(h, n, d, d) + projected);
}

TEST(BytesMin, FullAttentionIntensityIsAQuarterOfN) {
    // Full bidirectional attention with dv = d: 2·(2n²dh) flops over 16·h·n·d bytes = n/4 flop per byte.
    const ProblemShape shape = shapeOf(1024, 64, 64, 12);
    const VariantInfo& full = requireVariant("full");
    const LayerCost cost = layerCost(full, shape, prepareParams(full, shape, {}));
    PeakResult peak;
    peak.fmaGflops = 1e9;
    peak.bandwidthGBs = 1;
    EXPECT_DOUBLE_EQ(rooflinePoint(cost.attentionMacs, cost.bytesMin, 1, peak).intensity, 1024.0 / 4);
}

TEST(Roofline, RoofIsTheLowerOfComputeAndMemoryLimits) {
    PeakResult peak;
    peak.fmaGflops = 400;
    peak.bandwidthGBs = 10;
    // 1e9 MACs over 1e8 bytes: 20 flop/byte, memory roof 200 GFLOP/s below the FMA peak.
    const RooflinePoint memory = rooflinePoint(1e9, 1e8, 50, peak);
    EXPECT_DOUBLE_EQ(memory.intensity, 20);
    EXPECT_TRUE(memory.memoryBound);
    EXPECT_DOUBLE_EQ(memory.roofGflops, 200);
    EXPECT_DOUBLE_EQ(memory.fractionOfRoof, 0.25);
    // 100 flop/byte: memory would allow 1000, the FMA peak caps the roof at 400.
    const RooflinePoint compute = rooflinePoint(5e9, 1e8, 300, peak);
    EXPECT_FALSE(compute.memoryBound);
    EXPECT_DOUBLE_EQ(compute.roofGflops, 400);
    EXPECT_DOUBLE_EQ(compute.fractionOfRoof, 0.75);
}

TEST(CostModelPrediction, FittedRateIsTheGeometricMeanOfTheCurvesRates) {
    // Rates 1e6 and 4e6 MACs per second: the geometric mean 2e6 puts both points a factor 2 off, the
    // least a single rate can do in log time.
    EXPECT_NEAR(fittedMacRate({1e6, 8e6}, {1.0, 2.0}), 2e6, 1e-3);
    EXPECT_NEAR(fittedMacRate({3e6}, {1.5}), 2e6, 1e-3);
    EXPECT_EQ(fittedMacRate({}, {}), 0.0);
}

TEST(CostModelPrediction, FittedRateMinimisesTheSquaredLogError) {
    const std::vector<double> macs = {1e6, 5e6, 3e7, 2e8}, seconds = {0.002, 0.004, 0.05, 0.9};
    const auto logError = [&](double rate) {
        double sum = 0;
        for (std::size_t k = 0; k < macs.size(); ++k) sum += std::pow(std::log(macs[k] / rate / seconds[k]), 2);
        return sum;
    };
    const double rate = fittedMacRate(macs, seconds);
    EXPECT_LT(logError(rate), logError(rate * 1.01));
    EXPECT_LT(logError(rate), logError(rate / 1.01));
}

TEST(TriadBandwidth, DefaultArraysAreAtLeastTheLastLevelCacheAndNeverBelow64MiB) {
    const std::int64_t mib = std::int64_t{1} << 20;
    EXPECT_EQ(defaultTriadArrayBytes(0), 64 * mib);
    EXPECT_EQ(defaultTriadArrayBytes(32 * mib), 64 * mib);
    EXPECT_EQ(defaultTriadArrayBytes(480 * mib), 480 * mib);
}

TEST(TriadBandwidth, IsPositiveAndFiniteOnTheArraysAskedFor) {
    const BandwidthResult result = measureTriadBandwidth(2, 0.05, std::int64_t{16} << 20);
    EXPECT_EQ(result.arrayBytes, std::int64_t{16} << 20);
    EXPECT_GE(result.passes, 3);
    EXPECT_TRUE(std::isfinite(result.gbPerSecond));
    EXPECT_GT(result.gbPerSecond, 0);
}

} // namespace
} // namespace attnlab
