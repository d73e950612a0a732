// xl: Transformer-XL, one layer, causal only. Query i in segment σ = ⌊i/L⌋ attends σL − m ≤ j ≤ i.
// relpos=sinusoid: s_ij = (q_i·k_j + q_i·R_{i−j}) / √d with R_p[k] = sin(p·f_k), R_p[d/2+k] = cos(p·f_k),
// f_k = 10000^(−2k/d).
#include "core/decode/decode_step.h"
#include "core/kernels/block_attention.h"
#include "core/variants/variant_support.h"

#include <algorithm>

namespace attnlab {

namespace {

std::unique_ptr<Pattern> xlPattern(const PatternRequest& request) {
    const std::int64_t n = request.shape.n, segment = request.params->integer("segment");
    const std::int64_t memory = request.params->integer("memory");
    auto first = [segment, memory](std::int64_t i) { return std::max<std::int64_t>(0, (i / segment) * segment - memory); };
    auto allowed = [first](std::int64_t i, std::int64_t j) { return j <= i && j >= first(i); };
    auto ranges = [first](std::int64_t i, std::vector<ColumnRange>& out) { out.push_back({first(i), i + 1}); };
    auto count = [first](std::int64_t i) { return i + 1 - first(i); };
    // Rows of the segments σ with σ·L ≤ m see every earlier key (1 … ), those of every later segment
    // m + 1 … m + L alike.
    auto runs = [n, segment, memory](const CountRunVisitor& visit) {
        const std::int64_t lastSeeingAll = memory / segment; // σ ≤ m / L
        const std::int64_t seeAll = lastSeeingAll >= (n - 1) / segment ? n : (lastSeeingAll + 1) * segment;
        visit(consecutiveRun(0, seeAll, 1, 1));
        if (seeAll == n) return;
        CountRun later = consecutiveRun(seeAll, segment, memory + 1, 1);
        later.repeats = (n - seeAll) / segment;
        if (later.repeats > 0) visit(later);
        if ((n - seeAll) % segment > 0) visit(consecutiveRun(seeAll + later.repeats * segment, (n - seeAll) % segment, memory + 1, 1));
    };
    return std::make_unique<ClosedFormPattern>(n, allowed, ranges, count, runs);
}

// Row p (0 ≤ p < n) of d values: the sinusoid encoding of relative distance p.
std::vector<float> sinusoidTable(std::int64_t n, std::int64_t d) {
    std::vector<float> table(static_cast<std::size_t>(n * d));
    for (std::int64_t k = 0; k < d / 2; ++k) {
        const double frequency = std::pow(10000.0, -2.0 * static_cast<double>(k) / static_cast<double>(d));
        for (std::int64_t p = 0; p < n; ++p) {
            table[p * d + k] = static_cast<float>(std::sin(static_cast<double>(p) * frequency));
            table[p * d + d / 2 + k] = static_cast<float>(std::cos(static_cast<double>(p) * frequency));
        }
    }
    return table;
}

// The table's rows an n-token run reads: i − j ≤ L − 1 + m for every allowed cell, so distances
// 0 … min(n, L + m) − 1 (128 rows at the defaults, not n: a whole n-row table spends its sines and
// cosines on distances no allowed cell has).
std::vector<float> relativePositionTable(std::int64_t n, std::int64_t d, const ParamSet& params) {
    const std::int64_t segment = std::min(n, params.integer("segment")), memory = std::min(n, params.integer("memory"));
    return sinusoidTable(std::min(n, segment + memory), d); // each term at most n: no overflow
}

// The generic plan with rows and pieces kept consecutive, so that the relative-position term is one
// product per piece; kept between runs.
std::shared_ptr<const BlockPlan> xlPlan(const PatternRequest& request) {
    return cachedPlan(planKey("xl", request.shape.n, request.shape.causal, *request.params),
                      [&] { return genericBlockPlan(*xlPattern(request), true); });
}

RunResult runXl(const AttentionInputs& inputs, const RunOptions& options) {
    PatternRequest request;
    request.shape = inputs.shape(options.causal);
    request.params = &options.params;
    MaskedScoring scoring;
    scoring.scale = 1.0 / std::sqrt(static_cast<double>(inputs.q->cols));
    scoring.firstQuery = request.shape.firstQuery();
    std::vector<float> table;
    if (options.params.choice("relpos") == "sinusoid") {
        table = relativePositionTable(request.shape.n, inputs.q->cols, options.params);
        scoring.relativePositions = &table;
    }
    if (options.useReference || request.shape.queries > 0) return runMasked(inputs, queryRowsPattern(xlPattern, request), scoring, options);
    return runPlannedOverPattern(inputs, xlPlan(request), xlPattern, request, scoring, options);
}

// Decoding keeps the new token's segment so far and the m memory tokens before it, which also is its row.
// min(n, ((n − 1) mod L) + 1 + m), without the sum overflowing for m near 2^63.
std::int64_t xlRetainedKeys(const ProblemShape& shape, const ParamSet& params) {
    const std::int64_t ownSegment = (shape.n - 1) % params.integer("segment") + 1, memory = params.integer("memory");
    return memory >= shape.n - ownSegment ? shape.n : ownSegment + memory;
}

std::shared_ptr<const DecodeInfo> xlDecode() {
    auto info = std::make_shared<DecodeInfo>();
    info->retainedKeys = xlRetainedKeys;
    info->cost = [](const ProblemShape& shape, const ParamSet& params) {
        CoreCost cost = maskedCoreCost(shape, static_cast<double>(xlRetainedKeys(shape, params)));
        if (params.choice("relpos") == "sinusoid") cost.terms["relpos"] = cost.terms["scores"];
        return cost;
    };
    info->prepare = [](const AttentionInputs& context, const ParamSet& params, const DecodeOptions& options) {
        PatternRequest request;
        request.shape = context.shape(true);
        request.shape.queries = 0; // the n × n pattern, whose row n − 1 is the step's
        request.params = &params;
        MaskedRowSpec spec;
        spec.patterns = sharedPattern(xlPattern(request));
        spec.scoring.scale = 1.0 / std::sqrt(static_cast<double>(context.q->cols));
        if (params.choice("relpos") == "sinusoid") spec.relativePositions = relativePositionTable(context.v->rows, context.q->cols, params);
        return makeMaskedRowStep(context, std::move(spec), options);
    };
    return info;
}

// Component 1 the query's own segment, 2 the memory before it.
std::string xlExpression(const PatternRequest& request) {
    const std::string segment = std::to_string(request.params->integer("segment"));
    const std::string memory = std::to_string(request.params->integer("memory"));
    return termsExpression({"block(" + segment + ")", "segment(" + segment + ", " + memory + ")"}, true);
}

} // namespace

VariantInfo makeXlVariant() {
    VariantInfo v;
    v.id = "xl";
    v.displayName = "Transformer-XL";
    v.family = "Memory and recurrence";
    v.summary = "Segments of S tokens that also see the previous m tokens as memory, with sinusoidal relative positions.";
    v.causalSupport = CausalSupport::CausalOnly;
    v.params = {integerParam("segment", "Segment length S", "min(n, 64)",
                             [](const ShapeContext& s, const ParamSet&) { return std::min<std::int64_t>(s.n, 64); }, 1,
                             ">= 1"),
                integerParam("memory", "Memory length m: earlier tokens each segment also sees", "segment",
                             [](const ShapeContext&, const ParamSet& earlier) { return earlier.integer("segment"); }, 0,
                             ">= 0"),
                choiceParam("relpos", "Relative position term added to the scores", {"none", "sinusoid"}, "sinusoid")};
    v.validate = [](const ProblemShape& shape, const ParamSet& params) {
        if (params.choice("relpos") == "sinusoid" && shape.d % 2 != 0)
            throw InputError("xl with relpos=sinusoid needs an even head size d, got d = " + std::to_string(shape.d));
    };
    v.pattern = xlPattern;
    // Each layer reaches back one memory of m = k·S tokens from a segment start: (S − 1) + l·m until the
    // sequence's start is reached.
    v.reachTheory = [](const ProblemShape& shape, const ParamSet& params, int layers) {
        ReachTheory theory;
        const std::int64_t segment = params.integer("segment"), memory = params.integer("memory");
        if (memory % segment != 0) return theory;
        for (int l = 1; l <= layers && segment - 1 + l * memory <= shape.n - 1; ++l)
            theory.maxReach.emplace_back(l, static_cast<double>(segment - 1 + l * memory));
        // S is the segment length (Dai et al.'s L): L is the figures' layer count.
        theory.label = "xl: (S − 1) + l·m = " + std::to_string(segment - 1) + " + " + std::to_string(memory) +
                       "·l (Dai et al. 2019: O(l·S))";
        return theory;
    };
    v.plan = xlPlan;
    v.run = runXl;
    const auto masked = softmaxPatternCost(xlPattern, splitsNoRows);
    v.cost = [masked](const ProblemShape& shape, const ParamSet& params) {
        CoreCost cost = masked(shape, params);
        if (params.choice("relpos") == "sinusoid") {
            cost.terms["relpos"] = cost.terms["scores"];
            cost.workspaceBytes += 4.0 * static_cast<double>(shape.n * shape.d);
        }
        return cost;
    };
    v.decode = xlDecode();
    v.printExpr = xlExpression;
    v.componentNames = {"own segment", "memory"};
    v.components = componentsFromExpression(xlPattern, xlExpression);
    return v;
}

} // namespace attnlab
