// Block plans (core/kernels/block_plan.h): every plan covers its pattern's allowed cells exactly once
// and nothing else, with consistent merge flags; the one kernel running them (permutations, pieces
// merged across passes) agrees with a dense masked softmax and relu² computed here in double, and every
// variant's own plan with the reference path on small and odd shapes.
#include "core/kernels/block_attention.h"
#include "core/registry.h"
#include "core/variant_support.h"
#include "support/reference_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numeric>
#include <random>
#include <string>

namespace attnlab {
namespace {

// Checks the plan's contract against the pattern; returns a description of the first violation.
std::string planViolation(const BlockPlan& plan, const Pattern& pattern) {
    const std::int64_t n = pattern.size();
    std::vector<int> covered(static_cast<std::size_t>(n * n), 0);
    std::string problem;
    forEachPlanCell(plan, [&](std::int64_t i, std::int64_t j) {
        if (i < 0 || i >= n || j < 0 || j >= n) problem = "cell outside the plane";
        else ++covered[static_cast<std::size_t>(i * n + j)];
    });
    if (!problem.empty()) return problem;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const int count = covered[static_cast<std::size_t>(i * n + j)];
            if (count != (pattern.allowed(i, j) ? 1 : 0))
                return "cell (" + std::to_string(i) + ", " + std::to_string(j) + ") covered " + std::to_string(count) +
                       " times, allowed " + std::to_string(pattern.allowed(i, j));
        }
    // Merge flags: per row, the blocks that hold it in pass order; one block per pass at most.
    std::vector<std::vector<const PlanBlock*>> blocksOf(static_cast<std::size_t>(n));
    for (std::size_t pass = 0; pass < plan.passCount(); ++pass) {
        std::vector<int> seen(static_cast<std::size_t>(n), 0);
        for (std::int64_t b = plan.passBegin(pass); b < plan.passEnd[pass]; ++b) {
            const PlanBlock& block = plan.blocks[static_cast<std::size_t>(b)];
            if (block.rowCount < 1 || block.rowCount > kPlanQueryBlock) return "block size out of range";
            for (std::int64_t r = 0; r < block.rowCount; ++r) {
                const std::int64_t i = plan.rows[static_cast<std::size_t>(block.rowOffset + r)];
                if (block.consecutiveRows && i != plan.rows[static_cast<std::size_t>(block.rowOffset)] + r)
                    return "rows marked consecutive are not";
                if (seen[static_cast<std::size_t>(i)]++) return "row " + std::to_string(i) + " twice in one pass";
                blocksOf[static_cast<std::size_t>(i)].push_back(&block);
            }
            for (std::int64_t p = block.pieceBegin; p < block.pieceEnd; ++p)
                if (plan.pieces[static_cast<std::size_t>(p)].count > kPlanKeyBlock) return "piece too wide";
            if (block.pairedWithNext && (b + 1 >= plan.passEnd[pass] || plan.blocks[static_cast<std::size_t>(b) + 1].pairedWithNext))
                return "block " + std::to_string(b) + " paired with a block outside its pass or in another pair";
        }
    }
    for (std::int64_t i = 0; i < n; ++i) {
        const auto& blocks = blocksOf[static_cast<std::size_t>(i)];
        if (blocks.empty()) return "row " + std::to_string(i) + " in no block";
        for (std::size_t k = 0; k < blocks.size(); ++k)
            if (blocks[k]->resume != (k > 0) || blocks[k]->finish != (k + 1 == blocks.size()))
                return "row " + std::to_string(i) + " has inconsistent merge flags";
    }
    return "";
}

// Cells the kernel computes for a plan: every row of a block against every column of a shared piece,
// each row against its own columns in a row-wise piece.
double computedCells(const BlockPlan& plan) {
    double cells = 0;
    for (const PlanBlock& block : plan.blocks)
        for (std::int64_t p = block.pieceBegin; p < block.pieceEnd; ++p) {
            const PlanPiece& piece = plan.pieces[static_cast<std::size_t>(p)];
            if (!piece.rowWise) cells += static_cast<double>(piece.count) * block.rowCount;
            for (std::int64_t r = 0; r < block.rowCount && piece.rowWise; ++r)
                cells += static_cast<double>(plan.rowSpans[static_cast<std::size_t>(piece.first + r)].size());
        }
    return cells;
}

struct PlanCase {
    std::string id;
    ParamOverrides overrides;
};

const std::vector<PlanCase> kPlanCases = {
    {"full", {}},
    {"strided", {}},
    {"strided", {{"stride", "1"}}},
    {"strided", {{"stride", "2"}}},
    {"strided", {{"stride", "5"}}},
    {"strided", {{"stride", "40"}}},
    {"fixed", {}},
    {"fixed", {{"block", "7"}, {"summary", "3"}}},
    {"longformer", {}},
    {"longformer", {{"window", "9"}, {"dilation", "3"}}},
    {"longformer", {{"window", "20"}, {"dilation", "2"}, {"globals", "0,1"}}},
    {"longformer", {{"window", "0"}, {"dilation", "4"}, {"globals", "3"}}},
    {"chunk", {{"chunk", "10"}}},
    {"xl", {{"segment", "9"}, {"memory", "4"}}},
    {"bigbird", {}},
    {"bigbird", {{"window", "3"}, {"globals", "5"}, {"random", "4"}, {"seed", "3"}}},
    {"bigbird", {{"window", "100"}, {"globals", "1"}, {"random", "5"}}}, // window in shared pieces
    {"bigbird", {{"random", "130"}}}, // rows longer than one row-wise piece
};

bool supports(const VariantInfo& variant, bool causal) {
    if (variant.causalSupport == CausalSupport::CausalOnly) return causal;
    if (variant.causalSupport == CausalSupport::BidirectionalOnly) return !causal;
    return true;
}

TEST(BlockPlan, EveryVariantPlanCoversItsPatternExactlyOnce) {
    for (const PlanCase& c : kPlanCases)
        for (const std::int64_t n : {1, 2, 37, 130, 257})
            for (const bool causal : {false, true}) {
                const VariantInfo& variant = requireVariant(c.id);
                if (!supports(variant, causal)) continue;
                ProblemShape shape;
                shape.n = n;
                shape.d = shape.dv = 8;
                shape.causal = causal;
                ParamOverrides overrides = c.overrides;
                if (c.id == "longformer" && n <= 3) overrides.erase("globals");
                const ParamSet params = prepareParams(variant, shape, overrides);
                PatternRequest request;
                request.shape = shape;
                request.params = &params;
                const auto pattern = variant.pattern(request);
                SCOPED_TRACE(c.id + " n=" + std::to_string(n) + (causal ? " causal" : ""));
                EXPECT_EQ(planViolation(*genericBlockPlan(*pattern), *pattern), "") << "generic plan";
                EXPECT_EQ(planViolation(*genericBlockPlan(*pattern, true), *pattern), "") << "consecutive-only plan";
                if (variant.plan) {
                    EXPECT_EQ(planViolation(*variant.plan(request), *pattern), "") << "variant plan";
                }
            }
}

// bigbird's random keys differ from row to row: its plan computes each row's cells and few others,
// where a plan of shared pieces computes several times the allowed cells.
// Masks cost a check per tile and per key run: a piece whose columns every row of its block sees has
// none. Causal full, chunk and xl (each 64-row block is one segment): a block's keys up to its first row
// form unmasked pieces, and only its diagonal, at most rows − 1 keys past the first row, is masked.
TEST(BlockPlan, KeysEveryRowSeesFormUnmaskedPieces) {
    for (const std::string id : {"full", "chunk", "xl"}) {
        const VariantInfo& variant = requireVariant(id);
        ProblemShape shape;
        shape.n = 1000;
        shape.d = shape.dv = 8;
        shape.causal = true;
        const ParamSet params = prepareParams(variant, shape, id == "chunk" ? ParamOverrides{{"chunk", "128"}} : ParamOverrides{});
        PatternRequest request;
        request.shape = shape;
        request.params = &params;
        const auto plan = variant.plan ? variant.plan(request) : allPairsPlan(shape.n, true);
        const auto pattern = variant.pattern(request);
        for (const PlanBlock& block : plan->blocks) {
            const std::int64_t first = plan->rows[static_cast<std::size_t>(block.rowOffset)];
            // In these patterns a block's later rows see all its first row sees: those keys are shared.
            std::vector<ColumnRange> firstRowRanges;
            pattern->rowRanges(first, firstRowRanges);
            std::int64_t shared = 0;
            for (const ColumnRange& range : firstRowRanges) shared += range.size();
            if (shared < 12) continue; // too few to stand alone as pieces
            std::int64_t maskedKeys = 0;
            for (std::int64_t p = block.pieceBegin; p < block.pieceEnd; ++p) {
                const PlanPiece& piece = plan->pieces[static_cast<std::size_t>(p)];
                if (piece.mask < 0) continue;
                maskedKeys += piece.count;
                EXPECT_GT(plan->column(piece, 0), first) << id << ": a masked piece below row " << first;
            }
            EXPECT_LE(maskedKeys, block.rowCount - 1) << id << ", rows from " << first;
        }
    }
}

TEST(BlockPlan, BigBirdPlanComputesLittleBeyondItsPattern) {
    const VariantInfo& bigbird = requireVariant("bigbird");
    for (const bool causal : {false, true})
        for (const ParamOverrides& overrides : std::vector<ParamOverrides>{{}, {{"window", "100"}}}) {
            ProblemShape shape;
            shape.n = 2048;
            shape.d = shape.dv = 8;
            shape.causal = causal;
            const ParamSet params = prepareParams(bigbird, shape, overrides);
            PatternRequest request;
            request.shape = shape;
            request.params = &params;
            const auto pattern = bigbird.pattern(request);
            const double allowed = static_cast<double>(pattern->nnz());
            SCOPED_TRACE(std::string(causal ? "causal" : "bidirectional") + (overrides.empty() ? "" : " window 100"));
            // A wide window costs its 64-row blocks' edges (whole pieces counted here; the kernel
            // skips the tiles a mask does not reach).
            EXPECT_LT(computedCells(*bigbird.plan(request)) / allowed, overrides.empty() ? 1.01 : 2.5);
            EXPECT_GT(computedCells(*genericBlockPlan(*pattern)) / allowed, 3.0);
        }
}

TEST(BlockPlan, LshPlansCoverTheirBucketsExactlyOnce) {
    const VariantInfo& lsh = requireVariant("lsh");
    const std::vector<ParamOverrides> cases = {
        {}, {{"buckets", "4"}, {"rounds", "3"}}, {{"buckets", "6"}, {"rounds", "2"}, {"shared_qk", "false"}},
        {{"buckets", "16"}, {"shared_qk", "false"}}, {{"buckets", "2"}} /* buckets of more than one block */};
    for (const ParamOverrides& overrides : cases)
        for (const std::int64_t n : {1, 5, 77, 200})
            for (const bool causal : {false, true}) {
                const Tensor3 q = testing::randomTensor(2, n, 8, 41), k = testing::randomTensor(2, n, 8, 42);
                const AttentionInputs inputs{&q, &k, &q};
                const ParamSet params = prepareParams(lsh, inputs.shape(causal), overrides);
                PatternRequest request;
                request.shape = inputs.shape(causal);
                request.params = &params;
                request.inputs = &inputs;
                request.head = 1;
                SCOPED_TRACE("lsh n=" + std::to_string(n) + (causal ? " causal" : "") + " rounds=" +
                             std::to_string(params.integer("rounds")));
                EXPECT_EQ(planViolation(*lsh.plan(request), *lsh.pattern(request)), "");
            }
}

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

// The pattern split over two passes: pass 1 takes every row's columns with a random draw, some in
// shared pieces and some in row-wise pieces, rows and columns in shuffled orders cut into random
// segments (so some blocks have only a few rows); pass 2 the rest in natural order.
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
    PlanRowOrder shuffled;
    shuffled.rows.resize(static_cast<std::size_t>(n));
    std::iota(shuffled.rows.begin(), shuffled.rows.end(), 0);
    std::shuffle(shuffled.rows.begin(), shuffled.rows.end(), random);
    for (std::int64_t end = 0; end < n;) {
        end = std::min<std::int64_t>(n, end + 1 + static_cast<std::int64_t>(random() % 90));
        shuffled.segmentEnds.push_back(end);
    }
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

// Dense relu² in double: out_i = Σ_{j∈M_i} relu(q_i·k_j)² v_j / normalizer, and its weights.
std::vector<double> maskedReluSquared(const Tensor3& q, const Tensor3& k, const Tensor3& v, int head,
                                      const std::vector<std::uint8_t>& mask, double normalizer,
                                      testing::DenseMatrix& weights) {
    const std::int64_t n = q.rows, dv = v.cols;
    const auto scores = testing::scaledScores(q, k, head, 1.0);
    std::vector<double> out(static_cast<std::size_t>(n * dv), 0.0);
    weights.assign(static_cast<std::size_t>(n * n), 0.0);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            if (!mask[static_cast<std::size_t>(i * n + j)]) continue;
            const double s = std::max(0.0, scores[static_cast<std::size_t>(i * n + j)]);
            const double w = s * s / normalizer;
            weights[static_cast<std::size_t>(i * n + j)] = w;
            for (std::int64_t c = 0; c < dv; ++c) out[static_cast<std::size_t>(i * dv + c)] += w * v.at(head, j, c);
        }
    return out;
}

std::vector<float> headValues(const Tensor3& t, int head) {
    return {t.head(head), t.head(head) + t.rows * t.cols};
}

TEST(BlockPlan, RandomPatternsAndSplitPlansMatchADenseMaskedSoftmax) {
    std::mt19937_64 random(2024);
    for (int trial = 0; trial < 300; ++trial) {
        const std::int64_t n = 1 + static_cast<std::int64_t>(random() % 150);
        const int heads = trial % 2 ? 3 : 1;
        const std::int64_t d = 1 + static_cast<std::int64_t>(random() % 40), dv = 1 + static_cast<std::int64_t>(random() % 70);
        const bool relu = trial % 5 == 4;
        const auto pattern = randomPattern(n, random);
        const bool split = trial % 3 != 0;
        SCOPED_TRACE("trial " + std::to_string(trial) + " n=" + std::to_string(n) + (split ? " split" : " generic") +
                     (relu ? " relu2" : ""));
        const auto plan = split ? splitPlan(*pattern, random) : genericBlockPlan(*pattern);
        ASSERT_EQ(planViolation(*plan, *pattern), "");
        const Tensor3 q = testing::randomTensor(heads, n, d, 100 + static_cast<std::uint64_t>(trial));
        const Tensor3 k = testing::randomTensor(heads, n, d, 200 + static_cast<std::uint64_t>(trial));
        const Tensor3 v = testing::randomTensor(heads, n, dv, 300 + static_cast<std::uint64_t>(trial));
        MaskedScoring scoring;
        scoring.scale = 1.0 / std::sqrt(static_cast<double>(d));
        if (relu) {
            scoring.kind = MaskedScoring::Kind::ReluSquared;
            scoring.normalizer = static_cast<double>(n * d);
        }
        RunOptions options;
        options.threads = 2;
        options.wantWeights = trial % 2 == 0;
        RunResult garbage; // a recycled output full of NaN must be overwritten everywhere
        garbage.out = Tensor3(heads, n, dv);
        std::fill(garbage.out.values.begin(), garbage.out.values.end(), std::numeric_limits<float>::quiet_NaN());
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

void expectMatchesReference(const VariantInfo& variant, const ParamOverrides& overrides, int heads, std::int64_t n,
                            std::int64_t d, bool causal) {
    SCOPED_TRACE(variant.id + " h=" + std::to_string(heads) + " n=" + std::to_string(n) + " d=" + std::to_string(d) +
                 (causal ? " causal" : ""));
    const Tensor3 q = testing::randomTensor(heads, n, d, 5), k = testing::randomTensor(heads, n, d, 6);
    const Tensor3 v = testing::randomTensor(heads, n, d + 3, 7);
    const AttentionInputs inputs{&q, &k, &v};
    RunOptions options;
    options.causal = causal;
    options.params = prepareParams(variant, inputs.shape(causal), overrides);
    options.threads = 2;
    for (const bool weights : {true, false}) {
        options.wantWeights = weights;
        options.useReference = false;
        const RunResult fast = variant.run(inputs, options);
        options.useReference = true;
        const RunResult reference = variant.run(inputs, options);
        double largest = 0, worst = 0;
        for (std::size_t e = 0; e < reference.out.values.size(); ++e) {
            largest = std::max(largest, static_cast<double>(std::fabs(reference.out.values[e])));
            worst = std::max(worst, static_cast<double>(std::fabs(fast.out.values[e] - reference.out.values[e])));
        }
        EXPECT_LE(worst, 2e-5 * std::max(1.0, largest)) << (weights ? "with weights" : "without weights");
        if (weights) {
            ASSERT_TRUE(fast.weights && reference.weights);
            for (std::size_t e = 0; e < reference.weights->values.size(); ++e)
                ASSERT_NEAR(fast.weights->values[e], reference.weights->values[e], 2e-5) << "weight " << e;
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
