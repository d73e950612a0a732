#include "core/analysis/receptive_field.h"

#include "core/errors.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <string>

namespace attnlab {
namespace {

std::unique_ptr<Pattern> registryPattern(const std::string& id, std::int64_t n, bool causal,
                                         const ParamOverrides& overrides = {}) {
    const VariantInfo& variant = requireVariant(id);
    ProblemShape shape;
    shape.n = n;
    shape.d = 16;
    shape.dv = 16;
    shape.causal = causal;
    const ParamSet params = prepareParams(variant, shape, overrides);
    return buildPattern(variant, shape, params);
}

// Independent reference: reachability as repeated boolean products of the dense mask,
// R_0 = I, R_l = R_{l-1} ∪ R_{l-1}·M, and hop(i, j) = the first l with R_l(i, j).
std::vector<std::uint8_t> hopsByMatrixPowers(const Pattern& pattern, int layers) {
    const std::int64_t n = pattern.size();
    const std::vector<std::uint8_t> mask = denseMask(pattern);
    std::vector<std::uint8_t> reach(static_cast<std::size_t>(n * n), 0);
    std::vector<std::uint8_t> hops(static_cast<std::size_t>(n * n), static_cast<std::uint8_t>(layers + 1));
    for (std::int64_t i = 0; i < n; ++i) {
        reach[i * n + i] = 1;
        hops[i * n + i] = 0;
    }
    for (int l = 1; l <= layers; ++l) {
        std::vector<std::uint8_t> next = reach;
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t k = 0; k < n; ++k)
                if (reach[i * n + k])
                    for (std::int64_t j = 0; j < n; ++j)
                        if (mask[k * n + j]) next[i * n + j] = 1;
        for (std::size_t c = 0; c < next.size(); ++c)
            if (next[c] && !reach[c]) hops[c] = static_cast<std::uint8_t>(l);
        reach.swap(next);
    }
    return hops;
}

std::int64_t distance(std::int64_t i, std::int64_t j) { return i > j ? i - j : j - i; }
std::int64_t ceilDiv(std::int64_t a, std::int64_t b) { return (a + b - 1) / b; }

TEST(ReceptiveField, ChunkNeverLeavesItsChunk) {
    const std::int64_t n = 40, chunk = 7;
    const auto pattern = registryPattern("chunk", n, false, {{"chunk", std::to_string(chunk)}});
    const HopMatrix matrix = hopMatrix(*pattern, 5);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const int expected = i == j ? 0 : (i / chunk == j / chunk ? 1 : 6);
            ASSERT_EQ(matrix.at(i, j), expected) << i << "," << j;
        }
}

TEST(ReceptiveField, LongformerWindowGrowsByHalfWindowPerLayer) {
    const std::int64_t n = 100, window = 6, radius = window / 2;
    const int layers = 4;
    const auto pattern = registryPattern("longformer", n, false, {{"window", std::to_string(window)}});
    const HopMatrix matrix = hopMatrix(*pattern, layers);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const std::int64_t hops = ceilDiv(distance(i, j), radius);
            ASSERT_EQ(matrix.at(i, j), std::min<std::int64_t>(hops, layers + 1)) << i << "," << j;
        }
    const ReachCurve curve = reachCurve(*pattern, layers, n);
    for (int l = 0; l <= layers; ++l) EXPECT_EQ(curve.maxReachDistance[l], l * radius) << l;
}

TEST(ReceptiveField, DilatedLongformerReachesOnlyMultiplesOfTheDilation) {
    const std::int64_t n = 90, window = 4, dilation = 3, radius = window / 2;
    const int layers = 3;
    const auto pattern = registryPattern("longformer", n, false,
                                         {{"window", std::to_string(window)}, {"dilation", std::to_string(dilation)}});
    const HopMatrix matrix = hopMatrix(*pattern, layers);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const std::int64_t gap = distance(i, j);
            const std::int64_t hops = gap % dilation == 0 ? ceilDiv(gap, radius * dilation) : layers + 1;
            ASSERT_EQ(matrix.at(i, j), std::min<std::int64_t>(hops, layers + 1)) << i << "," << j;
        }
    const ReachCurve curve = reachCurve(*pattern, layers, n);
    for (int l = 0; l <= layers; ++l) EXPECT_EQ(curve.maxReachDistance[l], l * radius * dilation) << l;
}

TEST(ReceptiveField, StridedReachesEverythingWithinTwoHops) {
    for (const bool causal : {false, true}) {
        const std::int64_t n = 64;
        const auto pattern = registryPattern("strided", n, causal);
        const HopMatrix matrix = hopMatrix(*pattern, 3);
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < n; ++j) {
                const bool reachable = !causal || j <= i;
                const int expected = i == j ? 0 : (!reachable ? 4 : (pattern->allowed(i, j) ? 1 : 2));
                ASSERT_EQ(matrix.at(i, j), expected) << causal << " " << i << "," << j;
            }
        const ReachCurve curve = reachCurve(*pattern, 3, n);
        const double reachablePairs = causal ? n * (n + 1) / 2.0 : static_cast<double>(n * n);
        EXPECT_DOUBLE_EQ(curve.reachablePairs[2], reachablePairs);
        EXPECT_DOUBLE_EQ(curve.reachablePairs[3], reachablePairs);
        EXPECT_LT(curve.reachablePairs[1], reachablePairs);
    }
}

TEST(ReceptiveField, CausalFullAttentionSeesThePastInOneLayer) {
    const std::int64_t n = 30;
    const auto pattern = registryPattern("full", n, true);
    const HopMatrix matrix = hopMatrix(*pattern, 2);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) ASSERT_EQ(matrix.at(i, j), i == j ? 0 : (j < i ? 1 : 3));
}

TEST(ReceptiveField, TransformerXlGoesBackOneMemoryPerLayer) {
    // Query i reaches back to ⌊i/L⌋·L − m in one layer; repeating that map gives the reach per layer.
    const std::int64_t n = 96, segment = 8, memory = 8;
    const int layers = 4;
    const auto pattern = registryPattern("xl", n, true,
                                         {{"segment", std::to_string(segment)}, {"memory", std::to_string(memory)}});
    const HopMatrix matrix = hopMatrix(*pattern, layers);
    for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t earliest = i;
        for (int l = 1; l <= layers; ++l) {
            const std::int64_t previous = earliest;
            earliest = std::max<std::int64_t>(0, earliest / segment * segment - memory);
            for (std::int64_t j = earliest; j < previous; ++j) ASSERT_EQ(matrix.at(i, j), l) << i << "," << j;
        }
        for (std::int64_t j = 0; j < earliest; ++j) ASSERT_EQ(matrix.at(i, j), layers + 1);
        for (std::int64_t j = i + 1; j < n; ++j) ASSERT_EQ(matrix.at(i, j), layers + 1);
    }
}

TEST(ReceptiveField, MatchesBooleanMatrixPowersForEveryPatternedVariant) {
    const std::int64_t n = 48;
    const int layers = 3;
    for (const VariantInfo& variant : allVariants()) {
        if (variant.dataDependentPattern) continue;
        for (const bool causal : {false, true}) {
            if (variant.causalSupport == CausalSupport::CausalOnly && !causal) continue;
            if (variant.causalSupport == CausalSupport::BidirectionalOnly && causal) continue;
            const auto pattern = registryPattern(variant.id, n, causal);
            EXPECT_EQ(hopMatrix(*pattern, layers).hops, hopsByMatrixPowers(*pattern, layers))
                << variant.id << " causal=" << causal;
        }
    }
}

TEST(ReceptiveField, ReachCurveOverAllRowsAggregatesTheHopMatrix) {
    const std::int64_t n = 57;
    const int layers = 4;
    const auto pattern = registryPattern("bigbird", n, false, {{"window", "2"}, {"globals", "0"}, {"random", "1"}});
    const HopMatrix matrix = hopMatrix(*pattern, layers);
    const ReachCurve curve = reachCurve(*pattern, layers, n);
    ASSERT_EQ(curve.sources.size(), static_cast<std::size_t>(n));
    for (int l = 0; l <= layers; ++l) {
        double pairs = 0, sumFarthest = 0, maxFarthest = 0;
        for (std::int64_t i = 0; i < n; ++i) {
            std::int64_t farthest = 0;
            for (std::int64_t j = 0; j < n; ++j)
                if (matrix.at(i, j) <= l) {
                    ++pairs;
                    farthest = std::max(farthest, distance(i, j));
                }
            sumFarthest += static_cast<double>(farthest);
            maxFarthest = std::max(maxFarthest, static_cast<double>(farthest));
        }
        EXPECT_DOUBLE_EQ(curve.reachablePairs[l], pairs) << l;
        EXPECT_DOUBLE_EQ(curve.fractionReachable[l], pairs / (n * n)) << l;
        EXPECT_DOUBLE_EQ(curve.meanReachDistance[l], sumFarthest / n) << l;
        EXPECT_DOUBLE_EQ(curve.maxReachDistance[l], maxFarthest) << l;
    }
    EXPECT_DOUBLE_EQ(curve.fractionReachable[0], 1.0 / n);
}

TEST(ReceptiveField, SampledSourcesAreSpreadEvenlyAndAgreeWithSingleRowHops) {
    const std::int64_t n = 1000;
    const auto pattern = registryPattern("longformer", n, false, {{"window", "10"}});
    const ReachCurve curve = reachCurve(*pattern, 3, 11);
    ASSERT_EQ(curve.sources.size(), 11u);
    for (std::size_t k = 0; k < curve.sources.size(); ++k)
        EXPECT_EQ(curve.sources[k], static_cast<std::int64_t>(k) * 999 / 10);
    double pairs = 0;
    for (const std::int64_t source : curve.sources) {
        const auto hops = hopsFrom(*pattern, source, 3);
        pairs += static_cast<double>(std::count_if(hops.begin(), hops.end(), [](std::uint8_t h) { return h <= 3; }));
    }
    EXPECT_DOUBLE_EQ(curve.reachablePairs[3], pairs);
}

TEST(ReceptiveField, CancelledWorkStopsAndSaysSo) {
    const auto pattern = registryPattern("full", 64, false);
    EXPECT_TRUE(hopMatrix(*pattern, 2, [] { return true; }).cancelled);
    EXPECT_TRUE(reachCurve(*pattern, 2, 64, [] { return true; }).cancelled);
    EXPECT_FALSE(hopMatrix(*pattern, 2, [] { return false; }).cancelled);
}

TEST(ReceptiveField, RejectsLayerCountsTheHopTypeCannotHold) {
    const auto pattern = registryPattern("full", 8, false);
    EXPECT_THROW(hopMatrix(*pattern, 255), InputError);
    EXPECT_THROW(reachCurve(*pattern, -1, 8), InputError);
}

} // namespace
} // namespace attnlab
