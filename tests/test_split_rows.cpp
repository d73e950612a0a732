// Split rows (core/kernels/block_plan.h, PassSpec::splitRows): rows far longer than the rest, split along
// their keys into chunks whose partial softmaxes merge after the pass, against the dense masked softmax
// and relu² computed in double and against the variants' reference paths; the plan check's own rules for
// them; and the long rows that are not split.
#include "core/kernels/block_attention.h"
#include "core/patterns/range_algebra.h"
#include "core/registry.h"
#include "core/variants/variant_support.h"
#include "support/plan_contract.h"
#include "support/plan_runs.h"
#include "support/reference_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab {
namespace {

using testing::expectMatchesReference;
using testing::headValues;
using testing::maskedReluSquared;
using testing::nanResult;
using testing::PlanCase;
using testing::planViolation;
using testing::testScoring;

// Heavy rows (global tokens) in front, in the middle and last, each seeing every key (bidirectional) or
// the keys up to its own (causal), over a band of radius 3 that also sees them.
ExplicitPattern globalRowsPattern(std::int64_t n, const std::vector<std::int64_t>& globals, bool causal) {
    std::vector<std::vector<ColumnRange>> rows(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t last = causal ? i : n - 1;
        if (std::binary_search(globals.begin(), globals.end(), i)) {
            rows[static_cast<std::size_t>(i)] = {{0, last + 1}};
            continue;
        }
        std::vector<std::int64_t> columns;
        for (std::int64_t j = std::max<std::int64_t>(0, i - 3); j <= std::min(last, i + 3); ++j) columns.push_back(j);
        for (const std::int64_t g : globals)
            if (g <= last && std::llabs(g - i) > 3) columns.push_back(g);
        std::sort(columns.begin(), columns.end());
        rows[static_cast<std::size_t>(i)] = rangesOfColumns(columns);
    }
    return {n, rows};
}

// One head of random inputs of depth d through `plan` on two threads against the dense masked softmax.
void expectOneHeadMatchesTheDenseSoftmax(const std::shared_ptr<const BlockPlan>& plan, const Pattern& pattern, std::int64_t d) {
    const std::int64_t n = pattern.size();
    const Tensor3 q = testing::randomTensor(1, n, d, 51), k = testing::randomTensor(1, n, d, 52), v = testing::randomTensor(1, n, d, 53);
    const MaskedScoring scoring = testScoring(false, n, d);
    RunOptions options;
    options.threads = 2;
    const RunResult result = runPlannedAttention({&q, &k, &v}, {plan}, scoring, options);
    const auto expected = testing::maskedSoftmax(testing::scaledScores(q, k, 0, scoring.scale), denseMask(pattern), v, 0, nullptr);
    EXPECT_LT(testing::relativeError(headValues(result.out, 0), expected), 2e-5);
}

// Rows far longer than the rest run split along their keys, a block per chunk of kSplitChunkPositions,
// merged after the pass: at an n of two chunks (the second short), with 4 heavy rows (row-by-row
// chunk blocks) and 40 (tiled ones), bidirectional and causal, against the dense masked softmax and
// relu² in double, with and without weights.
TEST(BlockPlan, SplitRowsMatchADenseMaskedSoftmax) {
    const std::int64_t n = kSplitChunkPositions + 52, d = 24, dv = 20;
    const int heads = 2;
    std::vector<std::int64_t> many;
    for (std::int64_t i = 5; i < n && many.size() < 40; i += 26) many.push_back(i);
    const std::vector<std::int64_t> few = {0, 1, 700, n - 1};
    const Tensor3 q = testing::randomTensor(heads, n, d, 41), k = testing::randomTensor(heads, n, d, 42);
    const Tensor3 v = testing::randomTensor(heads, n, dv, 43);
    const AttentionInputs inputs{&q, &k, &v};
    for (const auto& globals : {few, many})
        for (const bool causal : {false, true}) {
            if (globals.size() == many.size() && causal) continue; // causal, the early ones are not heavy
            const ExplicitPattern pattern = globalRowsPattern(n, globals, causal);
            const auto plan = genericBlockPlan(pattern);
            SCOPED_TRACE(std::to_string(globals.size()) + " heavy rows" + (causal ? ", causal" : ""));
            ASSERT_EQ(planViolation(*plan, pattern), "");
            ASSERT_EQ(plan->splits.size(), 1u);
            const std::vector<std::int64_t> heavy = causal ? std::vector<std::int64_t>{700, n - 1} : globals;
            EXPECT_EQ(plan->splits[0].rows, heavy);
            EXPECT_EQ(plan->splits[0].chunks, 2);
            const auto mask = denseMask(pattern);
            for (const bool relu : {false, true}) {
                const MaskedScoring scoring = testScoring(relu, n, d);
                RunOptions options;
                options.threads = 2;
                options.wantWeights = true;
                const RunResult withWeights = runPlannedAttention(inputs, {plan}, scoring, options);
                options.wantWeights = false;
                RunResult garbage = nanResult(heads, n, dv); // must be overwritten everywhere
                options.recycle = &garbage;
                const RunResult alone = runPlannedAttention(inputs, {plan}, scoring, options);
                for (int h = 0; h < heads; ++h) {
                    SCOPED_TRACE((relu ? "relu2, head " : "softmax, head ") + std::to_string(h));
                    testing::DenseMatrix expectedWeights;
                    const auto expected =
                        relu ? maskedReluSquared(q, k, v, h, mask, scoring.normalizer, expectedWeights)
                             : testing::maskedSoftmax(testing::scaledScores(q, k, h, scoring.scale), mask, v, h, &expectedWeights);
                    EXPECT_LT(testing::relativeError(headValues(withWeights.out, h), expected), 2e-5);
                    EXPECT_LT(testing::relativeError(headValues(alone.out, h), expected), 2e-5);
                    EXPECT_LT(testing::relativeError(headValues(*withWeights.weights, h), expectedWeights), 2e-5);
                }
            }
        }
}

// A pass that gives its split rows some columns row-wise (every 7th of theirs here): those join the
// chunks, and the run still matches the dense computation, split and (at fewer positions) whole.
TEST(BlockPlan, SplitRowsKeepTheirRowWiseColumns) {
    for (const std::int64_t n : {kSplitChunkPositions + 52, kSplitChunkPositions - 24}) {
        const std::int64_t d = 16;
        const std::vector<std::int64_t> globals = {0, 1, 600};
        const ExplicitPattern pattern = globalRowsPattern(n, globals, false);
        PlanRowOrder order;
        for (std::int64_t i = 0; i < n; ++i)
            if (!std::binary_search(globals.begin(), globals.end(), i)) order.rows.push_back(i);
        order.segmentEnds.push_back(static_cast<std::int64_t>(order.rows.size()));
        auto everySeventh = [&](std::int64_t i, bool rowWise, std::vector<ColumnRange>& out) {
            RangeList row;
            pattern.rowRanges(i, row);
            const bool split = std::binary_search(globals.begin(), globals.end(), i);
            for (const ColumnRange& range : row)
                for (std::int64_t j = range.begin; j < range.end; ++j)
                    if ((split && j % 7 == 3) == rowWise) appendRange(out, j, j + 1, n);
        };
        PassSpec pass;
        pass.order = &order;
        pass.splitRows = &globals;
        pass.ranges = [&](std::int64_t i, std::vector<ColumnRange>& out) { everySeventh(i, false, out); };
        pass.rowWise = [&](std::int64_t i, std::vector<ColumnRange>& out) { everySeventh(i, true, out); };
        auto plan = std::make_shared<BlockPlan>();
        plan->n = n;
        appendPass(*plan, pass);
        SCOPED_TRACE("n = " + std::to_string(n));
        ASSERT_EQ(planViolation(*plan, pattern), "");
        EXPECT_EQ(plan->splits.size(), n > kSplitChunkPositions ? 1u : 0u);
        expectOneHeadMatchesTheDenseSoftmax(plan, pattern, d);
    }
}

// The contract check itself catches split rows that a plan also puts elsewhere or declares twice.
TEST(BlockPlan, ContractCheckCatchesMisplacedSplitRows) {
    const std::int64_t n = kSplitChunkPositions + 52;
    const ExplicitPattern pattern = globalRowsPattern(n, {0, 1, 700, n - 1}, false);
    const auto plan = genericBlockPlan(pattern);
    ASSERT_EQ(planViolation(*plan, pattern), "");
    BlockPlan ordinary = *plan; // a chunk block turned into an ordinary block
    const auto chunk = std::find_if(ordinary.blocks.begin(), ordinary.blocks.end(), [](const PlanBlock& b) { return b.partialSlot >= 0; });
    ASSERT_NE(chunk, ordinary.blocks.end());
    chunk->partialSlot = -1;
    EXPECT_NE(planViolation(ordinary, pattern), "");
    BlockPlan twice = *plan; // one row declared in two splits
    twice.splits.push_back(twice.splits[0]);
    twice.splits.back().firstSlot = twice.partialSlots;
    twice.partialSlots *= 2;
    EXPECT_NE(planViolation(twice, pattern), "");
}

// More long rows than a block holds are not split (their slots would grow with them): they fill blocks
// of their own, as rows of full attention do, and the run still matches the dense computation.
TEST(BlockPlan, ManyLongRowsFillBlocksOfTheirOwn) {
    const std::int64_t n = 2 * kSplitChunkPositions + 52, d = 16;
    std::vector<std::vector<ColumnRange>> rows(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i)
        rows[static_cast<std::size_t>(i)] = i % 31 == 0 ? std::vector<ColumnRange>{{0, n}}
                                                        : std::vector<ColumnRange>{{std::max<std::int64_t>(0, i - 2), std::min(n, i + 3)}};
    const ExplicitPattern pattern(n, rows);
    const auto plan = genericBlockPlan(pattern);
    ASSERT_EQ(planViolation(*plan, pattern), "");
    EXPECT_TRUE(plan->splits.empty());
    EXPECT_EQ(plan->partialSlots, 0);
    const bool filled = std::any_of(plan->blocks.begin(), plan->blocks.end(), [&](const PlanBlock& block) {
        if (block.rowCount != kPlanQueryBlock) return false;
        for (std::int64_t r = 0; r < block.rowCount; ++r)
            if (plan->rows[static_cast<std::size_t>(block.rowOffset + r)] % 31 != 0) return false;
        return true;
    });
    EXPECT_TRUE(filled) << "the long rows fill a 64-row block of their own";
    expectOneHeadMatchesTheDenseSoftmax(plan, pattern, d);
}

// The variants whose global rows are split (bigbird, longformer in its own plan with and without
// dilation, causal too, `custom` with a global token) match the reference path at an n of two chunks;
// causal leading global tokens, whose keys make one chunk, stay whole. The cost model's workspace (which
// the size guard checks) holds the plan's slots for the split rows' partial results.
TEST(BlockPlan, SplitGlobalRowsOfVariantsMatchTheReference) {
    struct SplitCase {
        PlanCase variant;
        bool causal;
        std::int64_t chunks; // 0: nothing split
    };
    const std::vector<SplitCase> cases = {
        {{"bigbird", {}}, false, 2},
        {{"longformer", {{"window", "64"}, {"globals", "0,1"}}}, false, 2},
        {{"longformer", {{"window", "20"}, {"dilation", "2"}, {"globals", "0,5,1000"}}}, false, 2},
        {{"custom", {{"expr", "band(8) | global(0)"}}}, false, 2},
        // causal: a late global token's row sees more than a chunk, the leading ones alone would not
        {{"longformer", {{"window", "64"}, {"globals", "0,1,1060"}}}, true, 2},
        {{"longformer", {{"window", "64"}, {"globals", "0,1"}}}, true, 0},
        {{"longformer", {{"window", "20"}, {"dilation", "2"}, {"globals", "0,5,1000"}}}, true, 2},
        {{"bigbird", {}}, true, 0}};
    const std::int64_t n = kSplitChunkPositions + 52;
    for (const SplitCase& c : cases) {
        const VariantInfo& variant = requireVariant(c.variant.id);
        ProblemShape shape;
        shape.n = n;
        shape.d = shape.dv = 64;
        shape.heads = 3;
        shape.causal = c.causal;
        const ParamSet params = prepareParams(variant, shape, c.variant.overrides);
        PatternRequest request;
        request.shape = shape;
        request.params = &params;
        const auto plan = variant.plan(request);
        SCOPED_TRACE(c.variant.id + (c.causal ? " causal" : ""));
        ASSERT_EQ(plan->splits.size(), c.chunks > 0 ? 1u : 0u);
        if (c.chunks > 0) {
            EXPECT_EQ(plan->splits[0].chunks, c.chunks);
        }
        const auto pattern = variant.pattern(request);
        EXPECT_EQ(planViolation(*plan, *pattern), "");
        std::int64_t longest = 0;
        for (std::int64_t i = 0; i < n; ++i) longest = std::max(longest, pattern->rowCount(i));
        const double slotBytes = 4.0 * shape.heads * static_cast<double>(plan->partialSlots * partialSlotFloats(shape.dv));
        EXPECT_EQ(slotBytes > 0, c.chunks > 0);
        EXPECT_DOUBLE_EQ(variant.cost(shape, params).workspaceBytes - rowKernelWorkspace(shape, static_cast<double>(longest)),
                         slotBytes);
        expectMatchesReference(variant, c.variant.overrides, 2, n, 64, c.causal);
    }
}

} // namespace
} // namespace attnlab
