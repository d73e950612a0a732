// linear: kernelised attention without softmax (Katharopoulos et al. elu+1, Shen et al. "efficient",
// and 1+cos written as the feature map [1, x̂]). No 1/√d.
#include "core/decode/decode_step.h"
#include "core/kernels/feature_map_attention.h"
#include "core/kernels/tile_math.h"
#include "core/variants/variant_support.h"

#include <cmath>

namespace attnlab {

namespace {

// φ(x) = elu(x) + 1 elementwise: e^x below 0, 1 + x above; log φ = x or log(1 + x).
FeatureMap eluFeatures(const AttentionInputs& inputs) {
    FeatureMap map;
    map.queriesRead = inputs.q;
    map.keysRead = inputs.k;
    map.features = inputs.q->cols;
    map.rows = [&inputs](int h, std::int64_t row0, std::int64_t count, bool query, float* out) {
        const Tensor3& x = query ? *inputs.q : *inputs.k;
        tile::eluPlusOne(x.row(h, row0), count * x.cols, out);
    };
    map.logRow = [&inputs](int h, std::int64_t row, bool query, double* out) {
        const float* x = (query ? *inputs.q : *inputs.k).row(h, row);
        for (std::int64_t c = 0; c < inputs.q->cols; ++c) out[c] = x[c] < 0 ? static_cast<double>(x[c]) : std::log1p(static_cast<double>(x[c]));
    };
    return map;
}

// φ(x) = [1, x/‖x‖] so that φ(q)·φ(k) = 1 + q̂·k̂ (a zero vector stays zero).
FeatureMap cosineFeatures(const AttentionInputs& inputs) {
    FeatureMap map;
    map.queriesRead = inputs.q;
    map.keysRead = inputs.k;
    map.features = inputs.q->cols + 1;
    map.rows = [&inputs](int h, std::int64_t row0, std::int64_t count, bool query, float* out) {
        const Tensor3& x = query ? *inputs.q : *inputs.k;
        for (std::int64_t i = 0; i < count; ++i, out += x.cols + 1) {
            const float* row = x.row(h, row0 + i);
            double norm = 0;
            for (std::int64_t c = 0; c < x.cols; ++c) norm += static_cast<double>(row[c]) * row[c];
            norm = std::sqrt(norm);
            out[0] = 1.0f;
            for (std::int64_t c = 0; c < x.cols; ++c) out[c + 1] = norm > 0 ? static_cast<float>(row[c] / norm) : 0.0f;
        }
    };
    return map;
}

RunResult runLinear(const AttentionInputs& inputs, const RunOptions& options) {
    const std::string& kernel = options.params.choice("kernel");
    if (kernel == "efficient") return runEfficientAttention(inputs, options);
    return runFeatureMapAttention(kernel == "elu" ? eluFeatures(inputs) : cosineFeatures(inputs), inputs, options);
}

// Decoding keeps no keys, only a state per key/value head (docs/inference.md): elu S = Σ φ(k)vᵀ and
// z = Σ φ(k); taylor the same with φ = [1, k̂]; efficient A_m, Z_m and the running max M_m per feature.
// The step maps and absorbs the new key once per key/value head and reads out once per query head.
std::shared_ptr<const DecodeInfo> linearDecode() {
    auto info = std::make_shared<DecodeInfo>();
    info->retainedKeys = [](const ProblemShape&, const ParamSet&) { return std::optional<std::int64_t>(); };
    info->stateFloats = [](const ProblemShape& shape, const ParamSet& params) {
        const auto d = static_cast<double>(shape.d), dv = static_cast<double>(shape.dv);
        const std::string& kernel = params.choice("kernel");
        if (kernel == "taylor") return (d + 1) * (dv + 1);
        return kernel == "efficient" ? d * dv + 2 * d : d * dv + d;
    };
    info->cost = [](const ProblemShape& shape, const ParamSet& params) {
        const double sides = shape.heads + shape.keyValueHeads(), d = static_cast<double>(shape.d);
        CoreCost cost;
        cost.terms["scores"] = 0;
        cost.terms["weights_v"] = 0;
        cost.terms["feature_map"] = sides * d;
        cost.terms["linear_state"] = sides * d * static_cast<double>(shape.dv);
        cost.exps = params.choice("kernel") == "taylor" ? 0.0 : sides * d;
        return cost;
    };
    info->prepare = [](const AttentionInputs& context, const ParamSet& params, const DecodeOptions& options) {
        const std::string& kernel = params.choice("kernel");
        if (kernel == "efficient") return makeEfficientStep(context, options.threads);
        return makeFeatureMapStep(context, kernel == "elu" ? FeatureMapOf(eluFeatures) : FeatureMapOf(cosineFeatures), options.threads);
    };
    return info;
}

} // namespace

VariantInfo makeLinearVariant() {
    VariantInfo v;
    v.id = "linear";
    v.displayName = "Linear attention";
    v.family = "Linear kernels";
    v.summary = "Softmax replaced by a kernel so that Q(KᵀV) costs O(n·d²): elu+1, efficient (Shen et al.) or 1+cos.";
    v.hasMask = false;
    v.queryRows = false;
    v.params = {choiceParam("kernel", "elu: φ=elu+1; efficient: softmax over features; taylor: 1+cos",
                            {"elu", "efficient", "taylor"}, "elu")};
    v.pattern = [](const PatternRequest& request) { return allPairsPattern(request.shape.n, request.shape.causal); };
    v.run = runLinear;
    v.accuracySweeps = {{"linear", "linear", "kernel", {"elu", "efficient", "taylor"}, {}, false, false, false, "", "", ""}};
    v.cost = [](const ProblemShape& shape, const ParamSet& params) {
        const double perHead = static_cast<double>(shape.n) * static_cast<double>(shape.d);
        CoreCost cost;
        cost.terms["scores"] = 0;
        cost.terms["weights_v"] = 0;
        cost.terms["feature_map"] = 2.0 * perHead * shape.heads;
        cost.terms["linear_state"] = 2.0 * perHead * static_cast<double>(shape.dv) * shape.heads;
        // Exponentials of the feature maps: elu's (at most one per feature of Q and K), efficient's softmaxes.
        cost.exps = params.choice("kernel") == "taylor" ? 0.0 : 2.0 * perHead * shape.heads;
        // One thread's chunk buffers (φ of a chunk of Q and K, its transpose, the chunk's local product,
        // the numerator and the d × dv state); φ is never materialised for the whole sequence.
        cost.workspaceBytes = featureMapWorkspaceBytes(static_cast<double>(shape.d + 1), static_cast<double>(shape.dv));
        return cost;
    };
    v.decode = linearDecode();
    v.components = oneComponent(v.pattern);
    return v;
}

} // namespace attnlab
