// Crossovers searched in the cost model against a brute-force scan of every n, for every variant of the
// registry, causal and not, and the closed forms the derivations give for full and linear attention.
#include "core/analysis/crossovers.h"
#include "core/analysis/flop_breakdown.h"
#include "core/cost/cost_model.h"
#include "core/errors.h"
#include "core/patterns/range_work.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <functional>
#include <optional>

namespace attnlab {
namespace {

ProblemShape shapeOf(int heads, std::int64_t d, bool causal) {
    ProblemShape shape;
    shape.heads = heads;
    shape.d = d;
    shape.dv = d;
    shape.causal = causal;
    return shape;
}

std::optional<LayerCost> costAt(const VariantInfo& variant, ProblemShape shape, std::int64_t n,
                                const ParamOverrides& overrides = {}) {
    shape.n = n;
    try {
        return layerCost(variant, shape, prepareParams(variant, shape, overrides));
    } catch (const InputError&) {
        return std::nullopt;
    }
}

// Last n in [1, limit] where the statement fails, scanning every n; 0 when it holds everywhere.
std::optional<std::int64_t> lastFailure(const std::function<bool(std::int64_t)>& holds, std::int64_t limit) {
    std::optional<std::int64_t> last = 0;
    for (std::int64_t n = 1; n <= limit; ++n)
        if (!holds(n)) last = n;
    if (*last == limit) return std::nullopt;
    return last;
}

bool supports(const VariantInfo& variant, bool causal) {
    if (variant.dataDependentPattern) return false;
    if (causal) return variant.causalSupport != CausalSupport::BidirectionalOnly;
    return variant.causalSupport != CausalSupport::CausalOnly;
}

// Small heads make every crossover fall inside a range a scan can cover. The search runs to 2^22,
// so a statement that fails at the scan's end but holds by 2^22 is only checked where it changes.
TEST(Crossovers, EveryVariantMatchesAScanOfTheCostModel) {
    const std::int64_t scanLimit = 600;
    for (const VariantInfo& variant : allVariants()) {
        for (const bool causal : {false, true}) {
            if (!supports(variant, causal)) continue;
            const ProblemShape shape = shapeOf(1, 4, causal);
            const LayerCrossovers found = layerCrossovers(variant, shape, {});
            auto exceedsFfn = [&](std::int64_t n) {
                const auto c = costAt(variant, shape, n);
                return c && c->terms.at("qkv_proj") + c->terms.at("out_proj") + c->attentionMacs > c->terms.at("ffn");
            };
            auto dominates = [&](std::int64_t n) {
                const auto c = costAt(variant, shape, n);
                return c && c->attentionMacs > c->layerMacs - c->attentionMacs;
            };
            for (const auto& [crossover, holds, name] :
                 {std::tuple{found.attentionExceedsFfn, std::function<bool(std::int64_t)>(exceedsFfn), "exceeds ffn"},
                  std::tuple{found.coreDominates, std::function<bool(std::int64_t)>(dominates), "dominates"}}) {
                const std::string where = variant.id + (causal ? " causal " : " ") + name;
                const auto scanned = lastFailure(holds, scanLimit);
                if (scanned) {
                    ASSERT_TRUE(crossover.threshold) << where;
                    EXPECT_EQ(*crossover.threshold, *scanned) << where;
                } else if (crossover.threshold) {
                    EXPECT_GE(*crossover.threshold, scanLimit) << where;
                    EXPECT_FALSE(holds(*crossover.threshold)) << where;
                    EXPECT_TRUE(holds(*crossover.threshold + 1)) << where;
                }
            }
        }
    }
}

TEST(Crossovers, ClosedFormsHoldWithExplicitKeyValueHeads) {
    // The command line and the views name h_kv = h explicitly; doubling h for the closed form must
    // double h_kv with it instead of turning the shape into grouped heads.
    const VariantInfo& full = requireVariant("full");
    for (const bool causal : {false, true}) {
        ProblemShape shape = shapeOf(12, 64, causal);
        shape.kvHeads = 12;
        const LayerCrossovers crossovers = layerCrossovers(full, shape, {});
        EXPECT_EQ(crossovers.attentionExceedsFfn.closedForm, causal ? "4hd - 1" : "2hd");
        EXPECT_EQ(crossovers.coreDominates.closedForm, causal ? "12hd - 1" : "6hd");
    }
}

TEST(Crossovers, FullAttentionHasTheDerivedClosedForms) {
    const VariantInfo& full = requireVariant("full");
    const LayerCrossovers bidirectional = layerCrossovers(full, shapeOf(12, 64, false), {});
    EXPECT_EQ(bidirectional.attentionExceedsFfn.threshold, 1536);
    EXPECT_EQ(bidirectional.attentionExceedsFfn.closedForm, "2hd");
    EXPECT_EQ(bidirectional.coreDominates.threshold, 4608);
    EXPECT_EQ(bidirectional.coreDominates.closedForm, "6hd");
    // Linear attention's state products at 4d, 2n(4d)²h, equal full attention's 2n²dh at n = 16d; its
    // feature map adds 2n(4d)h, which moves the crossover by 4.
    EXPECT_EQ(bidirectional.linearBeatsFull.threshold, 1028);
    EXPECT_EQ(bidirectional.linearBeatsFull.closedForm, "16d + 4");
    // Causal: the core is n(n+1)·hd, so n + 1 > 4hd and n + 1 > 12hd; against linear, n + 1 > 32d + 8.
    const LayerCrossovers causal = layerCrossovers(full, shapeOf(12, 64, true), {});
    EXPECT_EQ(causal.attentionExceedsFfn.threshold, 4 * 768 - 1);
    EXPECT_EQ(causal.attentionExceedsFfn.closedForm, "4hd - 1");
    EXPECT_EQ(causal.coreDominates.threshold, 12 * 768 - 1);
    EXPECT_EQ(causal.coreDominates.closedForm, "12hd - 1");
    EXPECT_EQ(causal.linearBeatsFull.threshold, 32 * 64 + 7);
    EXPECT_EQ(causal.linearBeatsFull.closedForm, "32d + 7");
    EXPECT_EQ(crossoverStatement(causal.attentionExceedsFfn), "n > 4hd - 1 = 3071");
}

TEST(Crossovers, LinearAttentionHasNoQuadraticCrossoverButPaysOffNearSixteenD) {
    const LayerCrossovers linear = layerCrossovers(requireVariant("linear"), shapeOf(12, 64, false), {});
    EXPECT_FALSE(linear.attentionExceedsFfn.exists());
    EXPECT_FALSE(linear.coreDominates.exists());
    EXPECT_EQ(linear.linearBeatsFull.threshold, 1028);
    EXPECT_EQ(linear.linearBeatsFull.closedForm, "16d + 4");
    EXPECT_EQ(crossoverStatement(linear.coreDominates), "never for n <= 1048576");
}

TEST(Crossovers, SparsePatternsFollowTheirParameters) {
    // A fixed window w: the core is about n·(w+1)·2hd per layer, so it passes the FFN (4n(hd)² more
    // than the projections) never when w + 1 < 2hd, and from n = 1 on when the window is huge.
    const VariantInfo& longformer = requireVariant("longformer");
    const ProblemShape shape = shapeOf(2, 8, false);
    EXPECT_FALSE(layerCrossovers(longformer, shape, {{"window", "8"}}).attentionExceedsFfn.exists());
    // Strided at l = ceil(sqrt n) grows like n^1.5: it passes, later than full attention.
    const auto strided = layerCrossovers(requireVariant("strided"), shape, {});
    const auto full = layerCrossovers(requireVariant("full"), shape, {});
    ASSERT_TRUE(strided.attentionExceedsFfn.exists());
    EXPECT_GT(*strided.attentionExceedsFfn.threshold, *full.attentionExceedsFfn.threshold);
    EXPECT_FALSE(strided.linearBeatsFull.exists()) << "only linear-cost cores are compared at 4d";
}

// Every evaluation the search makes is bounded; this cap on the whole search (a few dozen of them)
// fails the test quickly instead of letting an unbounded search run for minutes.
constexpr std::int64_t kSearchWorkCap = 64 * kCrossoverEvaluationWork;

// Allowed cells of stride(s) (j ≡ i mod s), bidirectional, counted cell by cell.
double strideCells(std::int64_t n, std::int64_t s) {
    double cells = 0;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) cells += (i - j) % s == 0;
    return cells;
}

TEST(Crossovers, ManyRangesPerRowStopTheSearchWithinItsWorkAndSaySo) {
    const VariantInfo& custom = requireVariant("custom");
    for (const std::string expr : {"stride(2) | prefix(0)", "summary(2,1)", "random(1000,1)"}) {
        const RangeWork before = rangeWorkDone();
        LayerCrossovers found;
        {
            const RangeWorkLimit cap(kSearchWorkCap);
            found = layerCrossovers(custom, shapeOf(8, 64, false), {{"expr", expr}});
        }
        const RangeWork work{rangeWorkDone().rows - before.rows, rangeWorkDone().ranges - before.ranges};
        EXPECT_LE(work.ranges, kSearchWorkCap) << expr;
        EXPECT_LT(work.rows, 64 * 8192) << expr << ": rows evaluated";
        const Crossover& crossover = found.attentionExceedsFfn;
        EXPECT_TRUE(crossover.stoppedEarly()) << expr;
        EXPECT_GE(crossover.searchedTo, 1024) << expr;
        EXPECT_NE(crossoverStatement(crossover).find("searched up to n = " + std::to_string(crossover.searchedTo) + " only"),
                  std::string::npos)
            << crossoverStatement(crossover);
    }
}

TEST(Crossovers, AStoppedSearchIsExactWithinWhatItSearched) {
    // The cost model's scores term for stride(2) is its cell count times h·d, the count checked cell by
    // cell; the threshold is then checked against a scan of every n below 256 (it lies near 48) and
    // the statement at the top of what was searched. `| prefix(0)` adds no cell, but leaves the rows
    // without count runs, so they are counted one by one and the search stops.
    const VariantInfo& custom = requireVariant("custom");
    const ParamOverrides stride = {{"expr", "stride(2) | prefix(0)"}};
    const ProblemShape shape = shapeOf(1, 4, false);
    for (const std::int64_t n : {1, 2, 7, 16, 33})
        EXPECT_EQ(costAt(custom, shape, n, stride)->terms.at("scores"), strideCells(n, 2) * 4) << n;
    const LayerCrossovers found = layerCrossovers(custom, shape, stride);
    ASSERT_TRUE(found.coreDominates.stoppedEarly());
    const auto dominates = [&](std::int64_t n) {
        const auto c = costAt(custom, shape, n, stride);
        return c && c->attentionMacs > c->layerMacs - c->attentionMacs;
    };
    const auto scanned = lastFailure(dominates, 256);
    ASSERT_TRUE(scanned);
    EXPECT_EQ(found.coreDominates.threshold, scanned);
    EXPECT_TRUE(dominates(found.coreDominates.searchedTo));
}

TEST(Crossovers, AStrideCountedByRunsIsSearchedToTheEnd) {
    // stride(2) alone has count runs: every n of the search costs a few runs, none is refused, and the
    // threshold is the scan's.
    const VariantInfo& custom = requireVariant("custom");
    const ParamOverrides stride = {{"expr", "stride(2)"}};
    const ProblemShape shape = shapeOf(1, 4, false);
    for (const std::int64_t n : {1, 2, 7, 16, 33})
        EXPECT_EQ(costAt(custom, shape, n, stride)->terms.at("scores"), strideCells(n, 2) * 4) << n;
    const LayerCrossovers found = layerCrossovers(custom, shape, stride);
    EXPECT_FALSE(found.coreDominates.stoppedEarly());
    const auto dominates = [&](std::int64_t n) {
        const auto c = costAt(custom, shape, n, stride);
        return c && c->attentionMacs > c->layerMacs - c->attentionMacs;
    };
    EXPECT_EQ(found.coreDominates.threshold, lastFailure(dominates, 256));
}

TEST(Crossovers, FlopFigureStopsItsSweepWithinTheSameWork) {
    LabSettings settings;
    settings.variant = "custom";
    settings.params = {{"expr", "random(60000,1)"}};
    settings.n = 65536;
    settings.heads = 8;
    const RangeWork before = rangeWorkDone();
    FlopBreakdown breakdown;
    {
        const RangeWorkLimit cap(2 * kSearchWorkCap);
        breakdown = flopBreakdown(settings);
    }
    EXPECT_LE(rangeWorkDone().ranges - before.ranges, 2 * kSearchWorkCap);
    ASSERT_FALSE(breakdown.sweep.empty());
    EXPECT_LT(breakdown.sweep.back().n, 65536);
    EXPECT_NE(breakdown.note.find("sweep stops before n = "), std::string::npos) << breakdown.note;
    EXPECT_NE(breakdown.note.find("no bar for custom"), std::string::npos) << breakdown.note;
    EXPECT_FALSE(breakdown.current);
    EXPECT_FALSE(breakdown.error.empty());
}

} // namespace
} // namespace attnlab
