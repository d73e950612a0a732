// fixed: Sparse Transformer's fixed pattern. Causal: j ≤ i ∧ (⌊i/l⌋ = ⌊j/l⌋ ∨ j mod l ≥ l−c).
// Bidirectional (not the closure): ⌊i/l⌋ = ⌊j/l⌋ ∨ j mod l ≥ l−c, as DeepSpeed's Fixed layout.
#include "core/decode/decode.h"
#include "core/variants/variant_support.h"

namespace attnlab {

namespace {

std::unique_ptr<Pattern> fixedPattern(const PatternRequest& request) {
    const std::int64_t n = request.shape.n, l = request.params->integer("block"), c = request.params->integer("summary");
    const bool causal = request.shape.causal;
    auto allowed = [l, c, causal](std::int64_t i, std::int64_t j) {
        if (causal && j > i) return false;
        return i / l == j / l || j % l >= l - c;
    };
    // Summary columns [b·l + l − c, b·l + l) of every other block, and the query's own block.
    auto ranges = [n, l, c, causal](std::int64_t i, std::vector<ColumnRange>& out) {
        const std::int64_t own = i / l;
        const std::int64_t lastBlock = causal ? own : (n - 1) / l;
        for (std::int64_t b = 0; b <= lastBlock; ++b) {
            if (b == own)
                appendRange(out, b * l, causal ? i + 1 : b * l + l, n);
            else
                appendRange(out, b * l + l - c, b * l + l, n);
        }
    };
    auto summaryColumnsBelow = [l, c](std::int64_t end) { // summary columns in [0, end)
        return (end / l) * c + std::max<std::int64_t>(0, end % l - (l - c));
    };
    auto count = [n, l, c, causal, summaryColumnsBelow](std::int64_t i) {
        const std::int64_t blockBegin = (i / l) * l;
        if (causal) return (i / l) * c + (i - blockBegin + 1);
        const std::int64_t blockEnd = std::min(n, blockBegin + l);
        const std::int64_t summaryInOwn = summaryColumnsBelow(blockEnd) - summaryColumnsBelow(blockBegin);
        return summaryColumnsBelow(n) - summaryInOwn + (blockEnd - blockBegin);
    };
    // Causal, block b's rows see b·c summary columns and 1 … l of their own; bidirectional, every whole
    // block's rows see as many, the partial last block's another number.
    auto runs = [n, l, c, causal, count](const CountRunVisitor& visit) {
        const std::int64_t whole = n / l;
        if (!causal) return affineRuns(n, {whole * l}, count, visit);
        CountRun blocks = consecutiveRun(0, l, 1, 1);
        blocks.repeats = whole;
        blocks.perRepeat = c;
        if (whole > 0) visit(blocks);
        if (n % l > 0) visit(consecutiveRun(whole * l, n % l, whole * c + 1, 1));
    };
    return std::make_unique<ClosedFormPattern>(n, allowed, ranges, count, runs);
}

// Fixed reaches j through a summary column of j's block. Bidirectional, a partial last block without
// summary columns (n mod l ≤ l − c) is never reached from outside it.
ReachTheory fixedReach(const ProblemShape& shape, const ParamSet& params, int) {
    const std::int64_t block = params.integer("block"), summary = params.integer("summary"), tail = shape.n % block;
    if (!(shape.causal || shape.n <= block || tail == 0 || tail > block - summary)) return {};
    return {"fixed: all pairs in 2 layers (Child et al. 2019: ≤ p + 1 hops, p = 2)", {}, 2};
}

// Component 1 the query's own block, 2 the summary columns.
std::string fixedExpression(const PatternRequest& request) {
    const std::string l = std::to_string(request.params->integer("block"));
    const std::string c = std::to_string(request.params->integer("summary"));
    return termsExpression({"block(" + l + ")", "summary(" + l + ", " + c + ")"}, request.shape.causal);
}

} // namespace

VariantInfo makeFixedVariant() {
    VariantInfo v;
    v.id = "fixed";
    v.displayName = "Sparse Transformer (fixed)";
    v.family = "Sparse patterns";
    v.summary = "Blocks of l positions; the last c columns of each block summarise it for all later queries.";
    ParamSpec block = integerParam("block", "Block length l", "ceil(sqrt(n))",
                                   [](const ShapeContext& s, const ParamSet&) { return ceilSqrt(s.n); }, 1, ">= 1");
    ParamSpec summary = integerParam(
        "summary", "Summary columns c at the end of each block", "max(1, floor(block/8))",
        [](const ShapeContext&, const ParamSet& earlier) { return std::max<std::int64_t>(1, earlier.integer("block") / 8); },
        1, "1 <= c <= block");
    summary.dynamicMax = [](const ShapeContext&, const ParamSet& earlier) -> std::optional<std::int64_t> {
        return earlier.integer("block");
    };
    v.params = {block, summary};
    v.validate = [](const ProblemShape&, const ParamSet& params) {
        if (params.integer("summary") > params.integer("block"))
            throw InputError("fixed parameter 'summary' = " + std::to_string(params.integer("summary")) +
                             " is out of range: 1 <= c <= block (" + std::to_string(params.integer("block")) + ")");
    };
    v.pattern = fixedPattern;
    v.reachTheory = fixedReach;
    v.plan = cachedGenericPlan("fixed", fixedPattern);
    v.run = softmaxOverPattern(fixedPattern, v.plan);
    v.cost = softmaxPatternCost(fixedPattern);
    // Decoding keeps the new token's block so far and the c summary columns of every earlier block.
    v.decode = decodeKeeping([](const ProblemShape& s, const ParamSet& p) {
        const std::int64_t l = p.integer("block"), c = p.integer("summary");
        return (s.n - 1) % l + 1 + c * ((s.n - 1) / l);
    });
    v.printExpr = fixedExpression;
    v.componentNames = {"own block", "summary columns"};
    v.components = componentsFromExpression(fixedPattern, fixedExpression);
    return v;
}

} // namespace attnlab
