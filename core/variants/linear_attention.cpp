// linear: kernelised attention without softmax (Katharopoulos et al. elu+1, Shen et al. "efficient",
// and 1+cos written as the feature map [1, x̂]). No 1/√d.
#include "core/kernels/feature_map_attention.h"
#include "core/variant_support.h"
#include "core/variants/variant_factories.h"

namespace attnlab {

namespace {

// φ(x) = elu(x) + 1 elementwise.
Tensor3 eluFeatures(const Tensor3& x) {
    Tensor3 phi(x.heads, x.rows, x.cols);
    for (std::size_t e = 0; e < x.values.size(); ++e) {
        const float value = x.values[e];
        phi.values[e] = value > 0 ? value + 1.0f : std::exp(value);
    }
    return phi;
}

// φ(x) = [1, x/‖x‖] so that φ(q)·φ(k) = 1 + q̂·k̂ (a zero vector stays zero).
Tensor3 cosineFeatures(const Tensor3& x) {
    Tensor3 phi(x.heads, x.rows, x.cols + 1);
    for (int h = 0; h < x.heads; ++h)
        for (std::int64_t i = 0; i < x.rows; ++i) {
            const float* row = x.row(h, i);
            double norm = 0;
            for (std::int64_t c = 0; c < x.cols; ++c) norm += static_cast<double>(row[c]) * row[c];
            norm = std::sqrt(norm);
            float* out = phi.row(h, i);
            out[0] = 1.0f;
            for (std::int64_t c = 0; c < x.cols; ++c) out[c + 1] = norm > 0 ? static_cast<float>(row[c] / norm) : 0.0f;
        }
    return phi;
}

RunResult runLinear(const AttentionInputs& inputs, const RunOptions& options) {
    const std::string& kernel = options.params.choice("kernel");
    if (kernel == "efficient") return runEfficientAttention(inputs, options);
    if (kernel == "elu") return runFeatureMapAttention(eluFeatures(*inputs.q), eluFeatures(*inputs.k), *inputs.v, options);
    return runFeatureMapAttention(cosineFeatures(*inputs.q), cosineFeatures(*inputs.k), *inputs.v, options);
}

} // namespace

VariantInfo makeLinearVariant() {
    VariantInfo v;
    v.id = "linear";
    v.displayName = "Linear attention";
    v.family = "Linear kernels";
    v.summary = "Softmax replaced by a kernel so that Q(KᵀV) costs O(n·d²): elu+1, efficient (Shen et al.) or 1+cos.";
    v.hasMask = false;
    v.params = {choiceParam("kernel", "elu: φ=elu+1; efficient: softmax over features; taylor: 1+cos",
                            {"elu", "efficient", "taylor"}, "elu")};
    v.pattern = [](const PatternRequest& request) { return allPairsPattern(request.shape.n, request.shape.causal); };
    v.run = runLinear;
    v.cost = [](const ProblemShape& shape, const ParamSet& params) {
        const double perHead = static_cast<double>(shape.n) * static_cast<double>(shape.d);
        CoreCost cost;
        cost.terms["scores"] = 0;
        cost.terms["weights_v"] = 0;
        cost.terms["feature_map"] = 2.0 * perHead * shape.heads;
        cost.terms["linear_state"] = 2.0 * perHead * static_cast<double>(shape.dv) * shape.heads;
        // Exponentials of the feature maps: elu's (at most one per feature of Q and K), efficient's softmaxes.
        cost.exps = params.choice("kernel") == "taylor" ? 0.0 : 2.0 * perHead * shape.heads;
        cost.workspaceBytes = 4.0 * 2.0 * perHead * shape.heads + 2.0 * 4.0 * (64.0 * 64.0 + shape.d * shape.dv);
        return cost;
    };
    return v;
}

} // namespace attnlab
