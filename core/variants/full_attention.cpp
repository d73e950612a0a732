// full: softmax(QKᵀ/√d)V over all pairs (j ≤ i when causal).
#include "core/kernels/block_attention.h"
#include "core/variants/variant_support.h"

#include <cmath>

namespace attnlab {

namespace {

// Exact softmax on the block kernel running the all-pairs pattern's generic plan (kept between runs):
// query blocks × key pieces with an online softmax, so no n × n buffer exists. Causal has no pieces above
// the diagonal. Weights, when asked, are rebuilt in a second pass from the final row max and sum.
RunResult runTiledSoftmax(const AttentionInputs& inputs, const RunOptions& options) {
    MaskedScoring scoring;
    scoring.scale = 1.0 / std::sqrt(static_cast<double>(inputs.q->cols));
    PatternRequest request;
    request.shape = inputs.shape(options.causal);
    request.params = &options.params;
    const auto pattern = [](const PatternRequest& r) { return allPairsPattern(r.shape.n, r.shape.causal); };
    return runPlannedOverPattern(inputs, allPairsPlan(inputs.q->rows, options.causal), pattern, request, scoring, options);
}

} // namespace

VariantInfo makeFullVariant() {
    VariantInfo v;
    v.id = "full";
    v.displayName = "Full softmax";
    v.family = "Dense";
    v.summary = "Standard scaled dot-product attention over every pair: O(n²·d).";
    v.params = {choiceParam("impl", "dense: one row of scores at a time; tiled: online softmax over blocks",
                            {"dense", "tiled"}, "tiled")};
    v.pattern = [](const PatternRequest& request) { return allPairsPattern(request.shape.n, request.shape.causal); };
    const auto dense = softmaxOverPattern(v.pattern);
    v.run = [dense](const AttentionInputs& inputs, const RunOptions& options) {
        // Queries that are not the whole sequence: the generic plan of their rectangle (the dense path).
        if (options.useReference || options.params.choice("impl") == "dense" || inputs.shape(false).queries > 0)
            return dense(inputs, options);
        return runTiledSoftmax(inputs, options);
    };
    v.cost = [](const ProblemShape& shape, const ParamSet& params) {
        CoreCost cost = maskedCoreCost(shape, fullPairs(shape));
        // Tiled: per thread two block workspaces (paired blocks), each scores, row scores, output and row stats.
        cost.workspaceBytes = params.choice("impl") == "tiled"
                                  ? 2.0 * 2.0 * 4.0 * (64.0 * 256.0 + 64.0 * static_cast<double>(shape.dv) + 128.0)
                                  : rowKernelWorkspace(shape, static_cast<double>(shape.n));
        return cost;
    };
    v.printExpr = [](const PatternRequest& request) { return termsExpression({"all"}, request.shape.causal); };
    v.components = componentsFromExpression(v.pattern, v.printExpr);
    return v;
}

} // namespace attnlab
