// The one kernel running block plans (core/kernels/block_attention.h): on a few hundred random patterns,
// generic plans, plans split over two passes with permutations and row-wise pieces, and plans of row-wise
// pieces only (streamed 16 rows at a time) agree with a dense masked softmax and relu² computed here in
// double, at widths with unrolled paths and odd ones; every variant's own plan agrees with the reference
// path on small and odd shapes; paired blocks and relative positions do too.
#include "core/kernels/block_attention.h"
#include "core/registry.h"
#include "core/variants/variant_support.h"
#include "support/plan_contract.h"
#include "support/plan_runs.h"
#include "support/reference_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <numeric>
#include <random>
#include <string>

namespace attnlab {
namespace {

using testing::expectMatchesReference;
using testing::headValues;
using testing::kPlanCases;
using testing::maskedReluSquared;
using testing::nanResult;
using testing::planViolation;
using testing::PlanCase;
using testing::supports;
using testing::testScoring;

// A random pattern: per row a few random ranges (at least one column), some rows dense.
std::unique_ptr<ExplicitPattern> randomPattern(std::int64_t n, std::mt19937_64& random) {
    std::vector<std::vector<ColumnRange>> rows(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        std::vector<std::int64_t> columns;
        const int kind = static_cast<int>(random() % 4);
        for (std::int64_t j = 0; j < n; ++j) {
            const bool take = kind == 0 ? random() % 2 == 0 : kind == 1 ? random() % 9 == 0 : kind == 2 ? std::llabs(i - j) < 5
                                                                                          : random() % 40 != 0;
            if (take) columns.push_back(j);
        }
        if (columns.empty()) columns.push_back(static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(n)));
        rows[static_cast<std::size_t>(i)] = rangesOfColumns(columns);
    }
    return std::make_unique<ExplicitPattern>(n, rows);
}

// Position ranges of a sorted column list under a column order (position of each column given).
std::vector<ColumnRange> positionRanges(const std::vector<std::int64_t>& columns, const std::vector<std::int64_t>& position) {
    std::vector<std::int64_t> positions;
    for (const std::int64_t j : columns) positions.push_back(position[static_cast<std::size_t>(j)]);
    std::sort(positions.begin(), positions.end());
    return rangesOfColumns(positions);
}

// Rows [0, n) shuffled and cut into random segments (so some blocks have only a few rows).
PlanRowOrder shuffledRows(std::int64_t n, std::mt19937_64& random) {
    PlanRowOrder shuffled;
    shuffled.rows.resize(static_cast<std::size_t>(n));
    std::iota(shuffled.rows.begin(), shuffled.rows.end(), 0);
    std::shuffle(shuffled.rows.begin(), shuffled.rows.end(), random);
    for (std::int64_t end = 0; end < n;) {
        end = std::min<std::int64_t>(n, end + 1 + static_cast<std::int64_t>(random() % 90));
        shuffled.segmentEnds.push_back(end);
    }
    return shuffled;
}

// The pattern split over two passes: pass 1 takes every row's columns with a random draw, some in
// shared pieces and some in row-wise pieces, rows and columns in shuffled orders cut into random
// segments (shuffledRows); pass 2 the rest in natural order.
std::shared_ptr<const BlockPlan> splitPlan(const Pattern& pattern, std::mt19937_64& random) {
    const std::int64_t n = pattern.size();
    std::vector<std::vector<std::int64_t>> first(static_cast<std::size_t>(n)), second(static_cast<std::size_t>(n));
    std::vector<std::vector<std::int64_t>> rowWise(static_cast<std::size_t>(n));
    std::vector<ColumnRange> ranges;
    for (std::int64_t i = 0; i < n; ++i) {
        ranges.clear();
        pattern.rowRanges(i, ranges);
        for (const ColumnRange& range : ranges)
            for (std::int64_t j = range.begin; j < range.end; ++j) {
                const auto draw = random() % 3;
                (draw == 0 ? first : draw == 1 ? second : rowWise)[static_cast<std::size_t>(i)].push_back(j);
            }
    }
    const PlanRowOrder shuffled = shuffledRows(n, random);
    std::vector<std::int64_t> columnOrder = shuffled.rows, position(static_cast<std::size_t>(n));
    std::shuffle(columnOrder.begin(), columnOrder.end(), random);
    for (std::int64_t p = 0; p < n; ++p) position[static_cast<std::size_t>(columnOrder[static_cast<std::size_t>(p)])] = p;
    auto plan = std::make_shared<BlockPlan>();
    plan->n = n;
    PassSpec pass;
    pass.order = &shuffled;
    pass.columnOrder = &columnOrder;
    pass.finish = false;
    pass.ranges = [&](std::int64_t i, std::vector<ColumnRange>& out) {
        const auto mine = positionRanges(first[static_cast<std::size_t>(i)], position);
        out.insert(out.end(), mine.begin(), mine.end());
    };
    pass.rowWise = [&](std::int64_t i, std::vector<ColumnRange>& out) {
        const auto mine = positionRanges(rowWise[static_cast<std::size_t>(i)], position);
        out.insert(out.end(), mine.begin(), mine.end());
    };
    appendPass(*plan, pass);
    const PlanRowOrder natural = residueOrder(n, 1);
    PassSpec rest;
    rest.order = &natural;
    rest.resume = true;
    rest.ranges = [&](std::int64_t i, std::vector<ColumnRange>& out) {
        const auto mine = rangesOfColumns(second[static_cast<std::size_t>(i)]);
        out.insert(out.end(), mine.begin(), mine.end());
    };
    appendPass(*plan, rest);
    return plan;
}

// The pattern as one pass of row-wise pieces only, rows as shuffledRows orders them: the block
// kernel streams a block whose single row-wise piece starts and finishes its rows (rows of up to
// kPlanKeyBlock columns), and runs longer rows, which need two pieces, the buffered way.
std::shared_ptr<const BlockPlan> rowWisePlan(const Pattern& pattern, std::mt19937_64& random) {
    const std::int64_t n = pattern.size();
    const PlanRowOrder shuffled = shuffledRows(n, random);
    auto plan = std::make_shared<BlockPlan>();
    plan->n = n;
    PassSpec pass;
    pass.order = &shuffled;
    pass.ranges = [](std::int64_t, std::vector<ColumnRange>&) {};
    pass.rowWise = [&](std::int64_t i, std::vector<ColumnRange>& out) { pattern.rowRanges(i, out); };
    appendPass(*plan, pass);
    return plan;
}

TEST(BlockPlan, RandomPatternsAndSplitPlansMatchADenseMaskedSoftmax) {
    std::mt19937_64 random(2024);
    // Widths the row-wise kernels have unrolled paths for (16·2, 16·4, 16·8) besides any other.
    const std::int64_t unrolledWidths[] = {32, 64, 128};
    for (int trial = 0; trial < 300; ++trial) {
        const std::int64_t n = 1 + static_cast<std::int64_t>(random() % 150);
        const int heads = trial % 2 ? 3 : 1;
        const bool unrolled = trial % 7 == 3;
        const std::int64_t d = unrolled ? unrolledWidths[random() % 3] : 1 + static_cast<std::int64_t>(random() % 40);
        const std::int64_t dv = unrolled ? unrolledWidths[random() % 3] : 1 + static_cast<std::int64_t>(random() % 70);
        const bool relu = trial % 5 == 4;
        const auto pattern = randomPattern(n, random);
        const int kind = trial % 4; // 0: generic plan, 1 and 2: split over two passes, 3: row-wise pieces only
        SCOPED_TRACE("trial " + std::to_string(trial) + " n=" + std::to_string(n) + " d=" + std::to_string(d) +
                     " dv=" + std::to_string(dv) + (kind == 0 ? " generic" : kind == 3 ? " row-wise" : " split") +
                     (relu ? " relu2" : ""));
        const auto plan = kind == 0   ? genericBlockPlan(*pattern)
                          : kind == 3 ? rowWisePlan(*pattern, random)
                                      : splitPlan(*pattern, random);
        ASSERT_EQ(planViolation(*plan, *pattern), "");
        const Tensor3 q = testing::randomTensor(heads, n, d, 100 + static_cast<std::uint64_t>(trial));
        const Tensor3 k = testing::randomTensor(heads, n, d, 200 + static_cast<std::uint64_t>(trial));
        const Tensor3 v = testing::randomTensor(heads, n, dv, 300 + static_cast<std::uint64_t>(trial));
        const MaskedScoring scoring = testScoring(relu, n, d);
        RunOptions options;
        options.threads = 2;
        options.wantWeights = (trial / 4) % 2 == 0; // every plan kind both ways
        RunResult garbage = nanResult(heads, n, dv); // must be overwritten everywhere
        options.recycle = &garbage;
        const AttentionInputs inputs{&q, &k, &v};
        const RunResult result = runPlannedAttention(inputs, {plan}, scoring, options);
        const auto mask = denseMask(*pattern);
        for (int h = 0; h < heads; ++h) {
            testing::DenseMatrix weights;
            const auto expected = relu ? maskedReluSquared(q, k, v, h, mask, scoring.normalizer, weights)
                                       : testing::maskedSoftmax(testing::scaledScores(q, k, h, scoring.scale), mask, v, h,
                                                                &weights);
            EXPECT_LT(testing::relativeError(headValues(result.out, h), expected), 2e-5) << "head " << h;
            if (result.weights) {
                EXPECT_LT(testing::relativeError(headValues(*result.weights, h), weights), 2e-5) << "weights, head " << h;
            }
        }
        if (result.weights) { // W·V = out
            EXPECT_LT(testing::relativeError(result.out.values, testing::weightsTimesValues(*result.weights, v)), 2e-5);
        }
    }
}

// Transformer-XL's q·R term: the products of a block's pieces computed together (default memory) or,
// when their distances are many more than a piece's own (a long memory), piece by piece.
TEST(BlockPlan, XlRelativePositionsMatchTheReferenceForShortAndLongMemories) {
    const VariantInfo& xl = requireVariant("xl");
    for (const ParamOverrides& overrides : std::vector<ParamOverrides>{{{"segment", "64"}, {"memory", "64"}},
                                                                      {{"segment", "100"}, {"memory", "600"}}})
        expectMatchesReference(xl, overrides, 2, 700, 16, true);
}

// Long key sweeps: consecutive blocks that read the same keys run as pairs, piece by piece (the causal
// ones with one piece more or less), and a block left over runs alone; the results do not change.
TEST(BlockPlan, PairedBlocksSweepingTheSameKeysMatchTheReference) {
    // 61 blocks, one of them alone: bidirectional all 33-piece sweeps pair (30 pairs); causal the blocks
    // from the 28th on, whose sweeps reach 16 pieces (17 pairs).
    const std::int64_t n = 2 * 16 * kPlanKeyBlock + 37;
    for (const bool causal : {false, true}) {
        const auto plan = allPairsPlan(n, causal);
        EXPECT_EQ(planViolation(*plan, *allPairsPattern(n, causal)), "");
        const auto pairs = std::count_if(plan->blocks.begin(), plan->blocks.end(), [](const PlanBlock& b) { return b.pairedWithNext; });
        EXPECT_EQ(pairs, causal ? 17 : 30) << (causal ? "causal" : "bidirectional");
        expectMatchesReference(requireVariant("full"), {}, 2, n, 9, causal);
    }
    const auto shortSweeps = allPairsPlan(15 * kPlanKeyBlock, false);
    EXPECT_TRUE(std::none_of(shortSweeps->blocks.begin(), shortSweeps->blocks.end(), [](const PlanBlock& b) { return b.pairedWithNext; }))
        << "a sweep of fewer than 16 pieces stays in the cache for the next block: no pairs";
}

// Narrow rows: plans whose blocks run every column row-wise (custom bands, with and without a global
// token, a narrow longformer window) and blocks of 32 rows (chunks of 32, which stay shared) match the
// reference path, at an n with a short last block; each case is checked to take its path.
TEST(BlockPlan, NarrowRowPlansMatchTheReference) {
    struct NarrowCase {
        std::string id;
        ParamOverrides overrides;
        bool rowWise;
    };
    const std::vector<NarrowCase> cases = {{"custom", {{"expr", "band(8) | global(0)"}}, true},
                                           {"custom", {{"expr", "band(12)"}}, true},
                                           {"longformer", {{"window", "16"}, {"globals", "2,100"}}, true},
                                           {"chunk", {{"chunk", "32"}}, false}};
    const std::int64_t n = 300;
    for (const NarrowCase& c : cases)
        for (const bool causal : {false, true}) {
            const VariantInfo& variant = requireVariant(c.id);
            ProblemShape shape;
            shape.n = n;
            shape.d = shape.dv = 64;
            shape.causal = causal;
            const ParamSet params = prepareParams(variant, shape, c.overrides);
            PatternRequest request;
            request.shape = shape;
            request.params = &params;
            const auto plan = variant.plan(request);
            SCOPED_TRACE(c.id + (causal ? " causal" : ""));
            // Whole blocks of 32 rows: row-wise or not as the case says (a short last block, like the
            // 12-row causal triangle of the last chunk, goes by its own cost).
            bool wholeBlocks = false, rowWise = false;
            for (const PlanBlock& block : plan->blocks) {
                if (block.rowCount != 32) continue;
                wholeBlocks = true;
                for (std::int64_t p = block.pieceBegin; p < block.pieceEnd; ++p)
                    rowWise = rowWise || plan->pieces[static_cast<std::size_t>(p)].rowWise;
            }
            EXPECT_TRUE(wholeBlocks);
            EXPECT_EQ(rowWise, c.rowWise);
            expectMatchesReference(variant, c.overrides, 2, n, 64, causal);
        }
}

TEST(BlockPlan, VariantPlansMatchTheReferenceOnOddShapes) {
    std::vector<PlanCase> cases = kPlanCases;
    cases.push_back({"xl", {{"segment", "13"}, {"memory", "20"}, {"relpos", "sinusoid"}}});
    cases.push_back({"relu2", {}});
    cases.push_back({"lsh", {}});
    cases.push_back({"lsh", {{"buckets", "4"}, {"rounds", "3"}}});
    cases.push_back({"lsh", {{"buckets", "6"}, {"rounds", "2"}, {"shared_qk", "false"}}});
    for (const PlanCase& c : cases)
        for (const std::int64_t n : {1, 3, 67, 131})
            for (const int heads : {1, 3})
                for (const bool causal : {false, true}) {
                    const VariantInfo& variant = requireVariant(c.id);
                    if (!supports(variant, causal) || (c.id == "longformer" && n <= 3 && c.overrides.count("globals")))
                        continue;
                    expectMatchesReference(variant, c.overrides, heads, n, c.id == "xl" ? 16 : 9, causal);
                }
}

} // namespace
} // namespace attnlab
