// relu2: FLASH-Quad (GAU) attention, out_i = Σ_{J_i} relu(q_i·k_j)² v_j / Z with Z = n·d (ns) or n² (n2).
// No softmax and no 1/√d; J_i = all j, or j ≤ i when causal.
#include "core/decode/decode_step.h"
#include "core/kernels/block_attention.h"
#include "core/variants/variant_support.h"

namespace attnlab {

namespace {

// Z from the sequence length n (the keys' count) and d.
MaskedScoring relu2Scoring(const ParamSet& params, const ProblemShape& shape) {
    const auto n = static_cast<double>(shape.n);
    MaskedScoring scoring;
    scoring.kind = MaskedScoring::Kind::ReluSquared;
    scoring.normalizer = params.choice("scale") == "ns" ? n * static_cast<double>(shape.d) : n * n;
    return scoring;
}

std::unique_ptr<Pattern> relu2Pattern(const PatternRequest& request) {
    return allPairsPattern(request.shape.n, request.shape.causal);
}

RunResult runRelu2(const AttentionInputs& inputs, const RunOptions& options) {
    PatternRequest request;
    request.shape = inputs.shape(options.causal);
    request.params = &options.params;
    const MaskedScoring scoring = relu2Scoring(options.params, request.shape);
    if (options.useReference || request.shape.queries > 0)
        return runMasked(inputs, queryRowsPattern(relu2Pattern, request), scoring, options);
    return runPlannedOverPattern(inputs, allPairsPlan(request.shape.n, options.causal), relu2Pattern, request, scoring, options);
}

// Decoding: relu² over every cached key (no exponentials), Z from the context length n.
std::shared_ptr<const DecodeInfo> relu2Decode() {
    auto info = std::make_shared<DecodeInfo>();
    info->cost = [](const ProblemShape& shape, const ParamSet&) {
        return maskedCoreCost(shape, static_cast<double>(shape.n), false);
    };
    info->prepare = [](const AttentionInputs& context, const ParamSet& params, const DecodeOptions& options) {
        MaskedRowSpec spec;
        spec.patterns = sharedPattern(allPairsPattern(context.v->rows, true));
        spec.scoring = relu2Scoring(params, context.shape(true));
        return makeMaskedRowStep(context, std::move(spec), options);
    };
    return info;
}

} // namespace

VariantInfo makeRelu2Variant() {
    VariantInfo v;
    v.id = "relu2";
    v.displayName = "FLASH-Quad (GAU relu²)";
    v.family = "FLASH";
    v.summary = "Gated attention unit scores: relu(q·k)² / Z instead of softmax, still O(n²·d).";
    v.hasMask = false;
    v.params = {choiceParam("scale", "Normaliser Z: ns = n·d, n2 = n²", {"ns", "n2"}, "ns")};
    v.pattern = relu2Pattern;
    v.run = runRelu2;
    v.cost = [](const ProblemShape& shape, const ParamSet&) {
        CoreCost cost = maskedCoreCost(shape, fullPairs(shape), false);
        cost.workspaceBytes = rowKernelWorkspace(shape, static_cast<double>(shape.n));
        return cost;
    };
    v.decode = relu2Decode();
    v.components = oneComponent(v.pattern);
    return v;
}

} // namespace attnlab
