// Block plans (core/kernels/block_plan.h): every variant's plan, the generic plan of any pattern and
// lsh's data-dependent plans cover their pattern's allowed cells exactly once and nothing else, with
// consistent merge flags, and compute few cells beyond them. (test_block_plan_runs.cpp runs plans.)
#include "core/kernels/block_attention.h"
#include "core/kernels/grid_plan.h"
#include "core/kernels/row_group.h"
#include "core/patterns/expression_pattern.h"
#include "core/registry.h"
#include "core/variants/variant_support.h"
#include "support/plan_contract.h"
#include "support/reference_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace attnlab {
namespace {

using testing::kPlanCases;
using testing::planViolation;
using testing::PlanCase;
using testing::supports;

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

bool hasRowWisePieces(const BlockPlan& plan) {
    return std::any_of(plan.pieces.begin(), plan.pieces.end(), [](const PlanPiece& piece) { return piece.rowWise; });
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

// A variant's own plan and its pattern at n (d = 8) with these parameters.
std::pair<std::shared_ptr<const BlockPlan>, std::unique_ptr<Pattern>> variantPlan(const std::string& id, std::int64_t n,
                                                                               bool causal,
                                                                               const ParamOverrides& overrides) {
    const VariantInfo& variant = requireVariant(id);
    ProblemShape shape;
    shape.n = n;
    shape.d = shape.dv = 8;
    shape.causal = causal;
    const ParamSet params = prepareParams(variant, shape, overrides);
    PatternRequest request;
    request.shape = shape;
    request.params = &params;
    return {variant.plan(request), variant.pattern(request)};
}

TEST(BlockPlan, BigBirdPlansComputeLittleBeyondTheirPattern) {
    for (const bool causal : {false, true})
        for (const ParamOverrides& overrides : std::vector<ParamOverrides>{{}, {{"window", "100"}}}) {
            const auto [plan, pattern] = variantPlan("bigbird", 2048, causal, overrides);
            const double allowed = static_cast<double>(pattern->nnz());
            SCOPED_TRACE(std::string(causal ? "causal" : "bidirectional") + (overrides.empty() ? "" : " window 100"));
            // A wide window costs its 64-row blocks' edges (whole pieces counted here; the kernel
            // skips the tiles a mask does not reach).
            EXPECT_LT(computedCells(*plan) / allowed, overrides.empty() ? 1.01 : 2.5);
            // The generic plan of the same pattern (a user's expression of it) runs the random keys, which
            // one row of a block sees, row-wise: it gathered them into pieces of 3–19× the allowed cells.
            EXPECT_LT(computedCells(*genericBlockPlan(*pattern)) / allowed, overrides.empty() ? 1.1 : 2.5);
        }
}

// Block mode runs as whole blocks: each query block is one b-row block of the grid, and the plan computes
// exactly the allowed cells, plus, causally, the upper part of each diagonal block.
TEST(BlockPlan, BigBirdBlockModeComputesItsBlocks) {
    for (const bool causal : {false, true}) {
        const auto [plan, pattern] =
            variantPlan("bigbird", 2048, causal, {{"block", "64"}, {"window", "3"}, {"globals", "1"}, {"random", "3"}});
        SCOPED_TRACE(causal ? "causal" : "bidirectional");
        EXPECT_EQ(testing::planViolation(*plan, *pattern), "");
        EXPECT_FALSE(hasRowWisePieces(*plan));
        const double allowed = static_cast<double>(pattern->nnz());
        EXPECT_EQ(computedCells(*plan), causal ? allowed + 32.0 * 64 * 63 / 2 : allowed);
        for (const PlanBlock& block : plan->blocks) {
            if (block.partialSlot >= 0) continue; // a chunk of the global block's rows (split along its keys)
            const std::int64_t first = plan->rows[static_cast<std::size_t>(block.rowOffset)];
            EXPECT_TRUE(block.consecutiveRows);
            EXPECT_EQ(first % 64, 0);
            EXPECT_EQ(block.rowCount, 64);
        }
    }
}

TEST(BlockPlan, GenericPlansRunColumnsFewRowsSeeRowWise) {
    // Columns that at most 8 rows of a block see go row-wise, when a block has 32 of them or more; so does
    // every column of a block of narrow rows that shared pieces would compute at 1.6 times its cells or
    // more (band(8): 17 keys per row, about 2.3 times). n is a multiple of every block height, so that no
    // short last block keeps its few such columns shared.
    for (const auto& [expression, exact] : std::vector<std::pair<std::string, bool>>{
             {"diag", true}, {"band(3)", true}, {"random(3, 7)", true}, {"band(8)", true}, {"band(8) | global(0)", true},
             {"band(16)", false}, {"block(32)", false}, {"all", false}}) {
        SCOPED_TRACE(expression);
        const auto pattern = std::make_unique<ExpressionPattern>(parseExpression(expression), 1024, false);
        const auto plan = genericBlockPlan(*pattern);
        EXPECT_EQ(planViolation(*plan, *pattern), "");
        EXPECT_EQ(hasRowWisePieces(*plan), exact);
        if (exact) {
            EXPECT_EQ(computedCells(*plan), static_cast<double>(pattern->nnz()));
        }
    }
}

// Rows of at most 64 keys on average run in blocks of 32 rows, wider ones in blocks of 64 (a short last
// block and the global rows' own blocks aside), in generic plans and in longformer's.
TEST(BlockPlan, NarrowRowsRunInBlocksOf32) {
    auto blockHeight = [](const BlockPlan& plan) {
        std::int32_t rows = 0;
        for (const PlanBlock& block : plan.blocks) rows = std::max(rows, block.rowCount);
        return rows;
    };
    for (const auto& [expression, rows] : std::vector<std::pair<std::string, std::int32_t>>{
             {"band(8) | global(0)", 32}, {"band(31)", 32}, {"band(40)", 64}, {"all", 64}}) {
        SCOPED_TRACE(expression);
        const auto pattern = std::make_unique<ExpressionPattern>(parseExpression(expression), 512, false);
        const auto plan = genericBlockPlan(*pattern);
        EXPECT_EQ(planViolation(*plan, *pattern), "");
        EXPECT_EQ(blockHeight(*plan), rows);
    }
    for (const auto& [window, causal, rows] : std::vector<std::tuple<std::string, bool, std::int32_t>>{
             {"16", false, 32}, {"126", true, 32}, {"128", false, 64}, {"200", true, 64}}) {
        SCOPED_TRACE("longformer window " + window + (causal ? " causal" : ""));
        const auto [plan, pattern] = variantPlan("longformer", 512, causal, {{"window", window}, {"globals", "3"}});
        EXPECT_EQ(planViolation(*plan, *pattern), "");
        EXPECT_EQ(blockHeight(*plan), rows);
    }
}

// An undilated longformer window of at most 28 keys per row runs row-wise, every cell computed once;
// wider windows keep shared pieces.
TEST(BlockPlan, NarrowLongformerWindowsRunRowWise) {
    for (const auto& [window, causal, rowWise] : std::vector<std::tuple<std::string, bool, bool>>{
             {"16", false, true}, {"16", true, true}, {"40", true, true}, {"40", false, false}, {"64", true, false}}) {
        SCOPED_TRACE("longformer window " + window + (causal ? " causal" : ""));
        const auto [plan, pattern] = variantPlan("longformer", 1024, causal, {{"window", window}, {"globals", "0,5"}});
        EXPECT_EQ(planViolation(*plan, *pattern), "");
        EXPECT_EQ(hasRowWisePieces(*plan), rowWise);
        if (rowWise) {
            EXPECT_EQ(computedCells(*plan), static_cast<double>(pattern->nnz()));
        }
    }
}

// A row-wise piece marks whether its rows see far columns, whose K and V rows the streamed kernel requests
// ahead: an isolated column at least 16 positions from its row (bigbird's random keys), not a run (a
// causal 2-D neighbourhood's key rows above the query, global columns) nor a narrow window.
TEST(BlockPlan, RowWisePiecesMarkOnlyIsolatedFarColumns) {
    const std::vector<std::int64_t> columns = {0, 1, 500, 1000, 1001, 1002, 1020};
    std::vector<bool> far;
    for (std::size_t c = 0; c < columns.size(); ++c)
        far.push_back(tile::farColumn(columns.data(), 7, static_cast<std::int64_t>(c), 1010));
    EXPECT_EQ(far, (std::vector<bool>{false, false, true, false, false, false, false}));
    EXPECT_FALSE(tile::farColumn(columns.data(), 7, 6, 1035)); // 15 positions away
    EXPECT_TRUE(tile::farColumn(columns.data(), 7, 6, 1036));
    EXPECT_TRUE(tile::farColumn(columns.data(), 1, 0, 20)); // a list of one

    auto rowWisePieces = [](const BlockPlan& plan, bool farOnly) {
        return std::count_if(plan.pieces.begin(), plan.pieces.end(), [&](const PlanPiece& piece) {
            return piece.rowWise && (!farOnly || piece.farColumns);
        });
    };
    const auto bigbird = variantPlan("bigbird", 2048, false, {}).first;
    EXPECT_GT(rowWisePieces(*bigbird, true), 0);
    const auto window = variantPlan("longformer", 1024, true, {{"window", "16"}, {"globals", "0,1"}}).first;
    EXPECT_GT(rowWisePieces(*window, false), 0);
    EXPECT_EQ(rowWisePieces(*window, true), 0);
    const auto grid = makeTokenGrid("128,128", "raster");
    const ExpressionPattern neighbourhood(parseExpression("neighborhood(7)"), grid->cells(), true, grid);
    const auto plan = gridAwareBlockPlan(neighbourhood, grid.get());
    EXPECT_GT(rowWisePieces(*plan, false), 0);
    EXPECT_EQ(rowWisePieces(*plan, true), 0);
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

} // namespace
} // namespace attnlab
