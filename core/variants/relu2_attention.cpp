// relu2: FLASH-Quad (GAU) attention, out_i = Σ_{J_i} relu(q_i·k_j)² v_j / Z with Z = n·d (ns) or n² (n2).
// No softmax and no 1/√d; J_i = all j, or j ≤ i when causal.
#include "core/kernels/block_attention.h"
#include "core/variant_support.h"
#include "core/variants/variant_factories.h"

namespace attnlab {

namespace {

RunResult runRelu2(const AttentionInputs& inputs, const RunOptions& options) {
    const auto n = static_cast<double>(inputs.q->rows);
    MaskedScoring scoring;
    scoring.kind = MaskedScoring::Kind::ReluSquared;
    scoring.normalizer = options.params.choice("scale") == "ns" ? n * static_cast<double>(inputs.q->cols) : n * n;
    if (options.useReference)
        return runMasked(inputs, sharedPattern(allPairsPattern(inputs.q->rows, options.causal)), scoring, options);
    return runPlannedAttention(inputs, {allPairsPlan(inputs.q->rows, options.causal)}, scoring, options);
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
    v.pattern = [](const PatternRequest& request) { return allPairsPattern(request.shape.n, request.shape.causal); };
    v.run = runRelu2;
    v.cost = [](const ProblemShape& shape, const ParamSet&) {
        CoreCost cost = maskedCoreCost(shape, fullPairs(shape), false);
        cost.workspaceBytes = rowKernelWorkspace(shape, static_cast<double>(shape.n));
        return cost;
    };
    return v;
}

} // namespace attnlab
