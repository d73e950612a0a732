// The cost model against the published numbers (Su 2021, as docs/cost_model.md derives them) and against counts made here from first principles:
// crossovers where the named terms are equal, the layer terms of docs/cost_model.md, and mask-aware core costs
// equal to counting the allowed pairs of each variant's own pattern.
#include "core/cost/cost_model.h"
#include "core/errors.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {
namespace {

ProblemShape shapeOf(std::int64_t n, std::int64_t d, int heads, bool causal = false) {
    ProblemShape shape;
    shape.n = n;
    shape.d = d;
    shape.dv = d;
    shape.heads = heads;
    shape.causal = causal;
    return shape;
}

LayerCost costOf(const std::string& id, const ProblemShape& shape, const ParamOverrides& overrides = {}) {
    const VariantInfo& variant = requireVariant(id);
    return layerCost(variant, shape, prepareParams(variant, shape, overrides));
}

// Projections + attention core of a layer ("self-attention"), and the rest.
double selfAttentionMacs(const LayerCost& cost) {
    return cost.terms.at("qkv_proj") + cost.terms.at("out_proj") + cost.attentionMacs;
}

TEST(CostModel, LayerTermsAreTheSpecsProducts) {
    const double n = 4096, hd = 768;
    const LayerCost cost = costOf("full", shapeOf(4096, 64, 12));
    EXPECT_EQ(cost.terms.at("qkv_proj"), 3 * n * hd * hd);
    EXPECT_EQ(cost.terms.at("out_proj"), n * hd * hd);
    EXPECT_EQ(cost.terms.at("ffn"), 8 * n * hd * hd);
    EXPECT_EQ(cost.terms.at("scores"), n * n * hd);
    EXPECT_EQ(cost.terms.at("weights_v"), n * n * hd);
    EXPECT_EQ(cost.attentionMacs, 2 * n * n * hd);
    EXPECT_EQ(cost.layerMacs, 12 * n * hd * hd + 2 * n * n * hd);
    EXPECT_EQ(cost.layerFlops(), 2 * cost.layerMacs);
    EXPECT_EQ(cost.exps, n * n * 12);
}

LayerCost gauCostOf(const std::string& id, const ProblemShape& shape, const ParamOverrides& overrides = {}) {
    const VariantInfo& variant = requireVariant(id);
    return gauLayerCost(variant, shape, prepareParams(variant, gauCoreShape(shape), overrides));
}

// FLASH (Hua et al. 2022): e = 2hd, s = 128, one head, no FFN; the products counted by hand at hd = 768, n = 512.
TEST(CostModel, GauLayerIsFlashsProductsWithoutAnFfn) {
    const double n = 512, hd = 768, e = 2 * hd, s = 128;
    const LayerCost gau = gauCostOf("relu2", shapeOf(512, 64, 12));
    EXPECT_EQ(gau.layer, LayerKind::Gau);
    EXPECT_EQ(gau.terms.size(), 5u);
    EXPECT_EQ(gau.terms.at("uv_proj"), 2 * n * hd * e);
    EXPECT_EQ(gau.terms.at("z_proj"), n * hd * s);
    EXPECT_EQ(gau.terms.at("scores"), n * n * s);
    EXPECT_EQ(gau.terms.at("weights_v"), n * n * e);
    EXPECT_EQ(gau.terms.at("out_proj"), n * e * hd);
    EXPECT_EQ(gau.terms.count("ffn"), 0u);
    EXPECT_EQ(gau.terms.count("qkv_proj"), 0u);
    EXPECT_EQ(gau.layerMacs, 2298478592.0);
    EXPECT_EQ(gau.attentionMacs, n * n * (s + e));
    // Two GAU layers take the place of one attention + FFN layer: 4,596,957,184 against 4,026,531,840 MACs.
    EXPECT_EQ(2 * gau.layerMacs, 4596957184.0);
    EXPECT_EQ(costOf("full", shapeOf(512, 64, 12)).layerMacs, 4026531840.0);
}

TEST(CostModel, GauLayerCountsTheCausalTriangleAndMixedChunksParts) {
    const double n = 1024, hd = 256, e = 2 * hd, s = 128, c = 64;
    const LayerCost causal = gauCostOf("relu2", shapeOf(1024, 64, 4, true));
    EXPECT_EQ(causal.terms.at("scores"), n * (n + 1) / 2 * s);
    EXPECT_EQ(causal.terms.at("weights_v"), n * (n + 1) / 2 * e);
    // n/c chunks of c × c cells (bidirectional) and the linear part's state build and read-out over d = s, dv = e.
    const LayerCost mixed = gauCostOf("mixed_chunk", shapeOf(1024, 64, 4), {{"chunk", "64"}});
    EXPECT_EQ(mixed.terms.at("scores"), n * c * s);
    EXPECT_EQ(mixed.terms.at("weights_v"), n * c * e);
    EXPECT_EQ(mixed.terms.at("linear_state"), 2 * n * s * e);
    EXPECT_EQ(mixed.layerMacs, 3 * n * hd * e + n * hd * s + n * c * (s + e) + 2 * n * s * e);
}

TEST(CostModel, GauLayerTakesOnlyFlashsAttentions) {
    EXPECT_TRUE(hasGauLayer(requireVariant("relu2")));
    EXPECT_TRUE(hasGauLayer(requireVariant("mixed_chunk")));
    EXPECT_FALSE(hasGauLayer(requireVariant("full")));
    const VariantInfo& full = requireVariant("full");
    const ProblemShape shape = shapeOf(64, 8, 2);
    EXPECT_THROW(gauLayerCost(full, shape, prepareParams(full, gauCoreShape(shape), {})), InputError);
}

TEST(CostModel, SelfAttentionEqualsTheFfnExactlyAtTwoHd) {
    for (const auto& [heads, d] : std::vector<std::pair<int, std::int64_t>>{{12, 64}, {8, 32}, {1, 16}}) {
        const auto crossover = 2 * heads * d;
        const LayerCost at = costOf("full", shapeOf(crossover, d, heads));
        EXPECT_EQ(selfAttentionMacs(at), at.terms.at("ffn")) << heads << "x" << d;
        const LayerCost below = costOf("full", shapeOf(crossover - 1, d, heads));
        const LayerCost above = costOf("full", shapeOf(crossover + 1, d, heads));
        EXPECT_LT(selfAttentionMacs(below), below.terms.at("ffn"));
        EXPECT_GT(selfAttentionMacs(above), above.terms.at("ffn"));
    }
}

TEST(CostModel, QuadraticTermEqualsTheRestOfTheLayerAtSixHd) {
    for (const auto& [heads, d] : std::vector<std::pair<int, std::int64_t>>{{12, 64}, {4, 128}}) {
        const auto crossover = 6 * heads * d;
        auto quadratic = [](const LayerCost& cost) { return cost.terms.at("scores") + cost.terms.at("weights_v"); };
        auto rest = [&](const LayerCost& cost) { return cost.layerMacs - quadratic(cost); };
        const LayerCost at = costOf("full", shapeOf(crossover, d, heads));
        EXPECT_EQ(quadratic(at), rest(at));
        const LayerCost above = costOf("full", shapeOf(crossover + 1, d, heads));
        EXPECT_GT(quadratic(above), rest(above));
    }
}

// Causal full attention counts n(n+1)/2 pairs, so its core is n(n+1)·hd: self-attention passes the FFN
// from n = 4hd on and the quadratic term passes the rest of the layer from n = 12hd on (docs/cost_model.md).
TEST(CostModel, CausalCrossoversAreFourHdAndTwelveHd) {
    for (const auto& [heads, d] : std::vector<std::pair<int, std::int64_t>>{{12, 64}, {2, 8}, {1, 3}}) {
        const std::int64_t hd = heads * d;
        auto quadratic = [](const LayerCost& cost) { return cost.attentionMacs; };
        const LayerCost justBelow = costOf("full", shapeOf(4 * hd - 1, d, heads, true));
        const LayerCost at = costOf("full", shapeOf(4 * hd, d, heads, true));
        EXPECT_EQ(at.attentionMacs, static_cast<double>(4 * hd) * static_cast<double>(4 * hd + 1) * static_cast<double>(hd));
        EXPECT_EQ(selfAttentionMacs(justBelow), justBelow.terms.at("ffn")) << heads << "x" << d; // n + 1 = 4hd
        EXPECT_GT(selfAttentionMacs(at), at.terms.at("ffn")) << heads << "x" << d;
        const LayerCost equal = costOf("full", shapeOf(12 * hd - 1, d, heads, true));
        const LayerCost above = costOf("full", shapeOf(12 * hd, d, heads, true));
        EXPECT_EQ(quadratic(equal), equal.layerMacs - quadratic(equal)) << heads << "x" << d;
        EXPECT_GT(quadratic(above), above.layerMacs - quadratic(above)) << heads << "x" << d;
    }
}

TEST(CostModel, LinearAttentionWithAFourTimesLargerHeadPaysOffAtSixteenD) {
    // Full attention's core at head size d against linear attention's state products at 4d.
    for (const std::int64_t d : {16, 64}) {
        const auto crossover = 16 * d;
        const LayerCost full = costOf("full", shapeOf(crossover, d, 12));
        const LayerCost linear = costOf("linear", shapeOf(crossover, 4 * d, 12));
        EXPECT_EQ(linear.terms.at("scores"), 0.0);
        EXPECT_EQ(linear.terms.at("weights_v"), 0.0);
        EXPECT_EQ(linear.terms.at("linear_state"), full.attentionMacs) << "d=" << d;
        const LayerCost fullAbove = costOf("full", shapeOf(2 * crossover, d, 12));
        const LayerCost linearAbove = costOf("linear", shapeOf(2 * crossover, 4 * d, 12));
        EXPECT_LT(linearAbove.attentionMacs, fullAbove.attentionMacs);
    }
}

TEST(CostModel, CausalFullCountsTheLowerTriangleWithItsDiagonal) {
    const double n = 1000, d = 32, heads = 3;
    const LayerCost cost = costOf("full", shapeOf(1000, 32, 3, true));
    EXPECT_EQ(cost.terms.at("scores"), n * (n + 1) / 2 * d * heads);
    EXPECT_EQ(cost.attentionMacs, n * (n + 1) * d * heads);
}

TEST(CostModel, MaskedCoresCountTheAllowedPairsOfTheirOwnPattern) {
    struct Case {
        std::string id;
        ParamOverrides set;
        bool causal;
    };
    const std::vector<Case> cases = {
        {"strided", {{"stride", "7"}}, false},      {"fixed", {{"block", "9"}, {"summary", "2"}}, true},
        {"longformer", {{"window", "12"}, {"dilation", "2"}, {"globals", "0,50"}}, false},
        {"chunk", {{"chunk", "16"}}, true},         {"bigbird", {}, false},
        {"relu2", {}, true},
    };
    const std::int64_t n = 97, d = 8;
    const int heads = 2;
    for (const Case& c : cases) {
        const ProblemShape shape = shapeOf(n, d, heads, c.causal);
        const VariantInfo& variant = requireVariant(c.id);
        const ParamSet params = prepareParams(variant, shape, c.set);
        const auto pattern = buildPattern(variant, shape, params);
        double allowed = 0;
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < n; ++j) allowed += pattern->allowed(i, j) ? 1 : 0;
        const LayerCost cost = layerCost(variant, shape, params);
        EXPECT_EQ(cost.terms.at("scores"), allowed * d * heads) << c.id;
        EXPECT_EQ(cost.terms.at("weights_v"), allowed * d * heads) << c.id;
    }
}

TEST(CostModel, PeakBytesAreInputsOutputsAndTheKernelsWorkspace) {
    const ProblemShape shape = shapeOf(2048, 64, 12);
    const LayerCost cost = costOf("full", shape);
    const double io = 4.0 * 12 * 2048 * 64 * 4; // Q, K, V and out, float32
    EXPECT_EQ(runIoBytes(shape, false), io);
    EXPECT_EQ(runIoBytes(shape, true), io + 4.0 * 12 * 2048 * 2048);
    EXPECT_GE(cost.peakBytes, io);
    EXPECT_LT(cost.peakBytes, io + 64.0 * 1024 * 1024) << "the tiled kernel needs no n x n buffer";
}

// A chunk longer than the sequence is one chunk of n: the same work and the same memory as c = n (a
// chunk of 2·10^9 once planned 15 GiB for a 9-row run).
TEST(CostModel, AChunkPastTheSequenceCostsWhatOneChunkOfNCosts) {
    const ProblemShape shape = shapeOf(9, 4, 2);
    for (const char* id : {"chunk", "mixed_chunk"}) {
        const LayerCost exact = costOf(id, shape, {{"chunk", "9"}});
        const LayerCost longer = costOf(id, shape, {{"chunk", "2000000000"}});
        EXPECT_EQ(longer.peakBytes, exact.peakBytes) << id;
        EXPECT_EQ(longer.layerMacs, exact.layerMacs) << id;
    }
}

} // namespace
} // namespace attnlab
