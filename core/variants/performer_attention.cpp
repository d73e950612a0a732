// performer: FAVOR+ positive random features approximating softmax(q·k/√d), then linear attention.
// x' = x·d^(−1/4); φ(x) = exp(ωᵀx' − ‖x'‖²/2)/√m; one draw of Ω shared by all heads.
#include "core/decode/decode_step.h"
#include "core/jobs/recent_values.h"
#include "core/kernels/feature_map_attention.h"
#include "core/kernels/tile_math.h"
#include "core/random/random_features.h"
#include "core/variants/variant_support.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <memory>
#include <numbers>
#include <string>

namespace attnlab {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Ω as float rows, m × d, kept between runs (an orthogonal draw costs more than a small run).
std::shared_ptr<const RowMatrix> projectionRows(const ParamSet& params, std::int64_t d) {
    const std::int64_t m = params.integer("features");
    const auto seed = static_cast<std::uint64_t>(params.integer("seed"));
    const bool orthogonal = params.flag("orthogonal");
    const std::string key = std::to_string(m) + "x" + std::to_string(d) + " seed=" + std::to_string(seed) +
                            (orthogonal ? " orthogonal" : " iid");
    return recentValue<RowMatrix, 4>(key, [&] {
        const auto omega = performerProjection(m, d, seed, orthogonal);
        auto rows = std::make_shared<RowMatrix>(m, d);
        for (std::int64_t r = 0; r < m; ++r)
            for (std::int64_t c = 0; c < d; ++c) (*rows)(r, c) = static_cast<float>(omega[static_cast<std::size_t>(r * d + c)]);
        return std::shared_ptr<const RowMatrix>(std::move(rows));
    });
}

// FAVOR+ features of a block of rows, for the chunked kernel and for decoding alike: the exponents
// log φ = ω_r·x' − ‖x'‖²/2 − log √m as one product (the rows × d block times Ωᵀ); a key row keeps them
// (KeyFeatures::Exponents: the kernel exponentiates against its running maximum), a query row is
// exponentiated against its own largest (the factor cancels in out_i).
FeatureMap favorFeatures(const AttentionInputs& inputs, std::shared_ptr<const RowMatrix> omega) {
    const std::int64_t d = inputs.q->cols, m = omega->rows();
    const auto inputScale = static_cast<float>(std::pow(static_cast<double>(d), -0.25));
    const auto logNormaliser = static_cast<float>(0.5 * std::log(static_cast<double>(m)));
    FeatureMap map;
    map.features = m;
    map.keys = KeyFeatures::Exponents;
    map.queriesRead = inputs.q;
    map.keysRead = inputs.k;
    map.rows = [&inputs, omega, inputScale, logNormaliser, d, m](int h, std::int64_t row0, std::int64_t count, bool query,
                                                                float* out) {
        const Tensor3& x = query ? *inputs.q : *inputs.k;
        if (count == 1) { // a decoding step's one row, without the product's temporaries
            for (std::int64_t r = 0; r < m; ++r) out[r] = inputScale * tile::dot(x.row(h, row0), omega->data() + r * d, d);
        } else {
            const Eigen::Map<const RowMatrix> rows(x.row(h, row0), count, d);
            Eigen::Map<RowMatrix> exponents(out, count, m);
            exponents.noalias() = (rows * inputScale) * omega->transpose();
        }
        for (std::int64_t i = 0; i < count; ++i) {
            float* e = out + i * m;
            const float halfNorm = 0.5f * inputScale * inputScale * tile::dot(x.row(h, row0 + i), x.row(h, row0 + i), d);
            if (query) {
                tile::exp2Shifted(e, m, *std::max_element(e, e + m), std::numbers::log2e_v<float>);
                continue;
            }
            for (std::int64_t r = 0; r < m; ++r) e[r] -= halfNorm + logNormaliser;
        }
    };
    map.logRow = [&inputs, omega, d, m](int h, std::int64_t row, bool query, double* out) {
        const float* x = (query ? *inputs.q : *inputs.k).row(h, row);
        const double scale = std::pow(static_cast<double>(d), -0.25);
        double halfNorm = 0;
        for (std::int64_t c = 0; c < d; ++c) halfNorm += 0.5 * (scale * x[c]) * (scale * x[c]);
        for (std::int64_t r = 0; r < m; ++r) {
            double projection = 0;
            for (std::int64_t c = 0; c < d; ++c) projection += static_cast<double>((*omega)(r, c)) * (scale * x[c]);
            out[r] = projection - halfNorm - 0.5 * std::log(static_cast<double>(m));
        }
    };
    return map;
}

RunResult runPerformer(const AttentionInputs& inputs, const RunOptions& options) {
    return runFeatureMapAttention(favorFeatures(inputs, projectionRows(options.params, inputs.q->cols)), inputs, options);
}

// Decoding keeps S = Σ φ(k)vᵀ, z = Σ φ(k) and the running key shift per key/value head: m·dv + m + 1
// floats.
std::shared_ptr<const DecodeInfo> performerDecode() {
    auto info = std::make_shared<DecodeInfo>();
    info->retainedKeys = [](const ProblemShape&, const ParamSet&) { return std::optional<std::int64_t>(); };
    info->stateFloats = [](const ProblemShape& shape, const ParamSet& params) {
        return static_cast<double>(params.integer("features")) * static_cast<double>(shape.dv + 1) + 1;
    };
    info->cost = [](const ProblemShape& shape, const ParamSet& params) {
        const double sides = shape.heads + shape.keyValueHeads(), m = static_cast<double>(params.integer("features"));
        CoreCost cost;
        cost.terms["scores"] = 0;
        cost.terms["weights_v"] = 0;
        cost.terms["feature_map"] = sides * m * static_cast<double>(shape.d);
        cost.terms["linear_state"] = sides * m * static_cast<double>(shape.dv);
        cost.exps = sides * m;
        return cost;
    };
    info->prepare = [](const AttentionInputs& context, const ParamSet& params, const DecodeOptions& options) {
        auto omega = projectionRows(params, context.q->cols);
        return makeFeatureMapStep(
            context, [omega](const AttentionInputs& inputs) { return favorFeatures(inputs, omega); }, options.threads);
    };
    return info;
}

} // namespace

VariantInfo makePerformerVariant() {
    VariantInfo v;
    v.id = "performer";
    v.displayName = "Performer (FAVOR+)";
    v.family = "Linear kernels";
    v.summary = "Positive random features whose dot products approximate softmax attention in O(n·m·d).";
    v.hasMask = false;
    v.queryRows = false;
    v.params = {integerParam("features", "Number of random features m", "4*d",
                             [](const ShapeContext& s, const ParamSet&) { return 4 * s.d; }, 1, ">= 1"),
                seedParam(), boolParam("orthogonal", "Draw the features in orthogonal blocks", true)};
    v.pattern = [](const PatternRequest& request) { return allPairsPattern(request.shape.n, request.shape.causal); };
    v.run = runPerformer;
    v.accuracySweeps = {{"performer",
                         "performer (FAVOR+)",
                         "features",
                         {"16", "32", "64", "128", "256", "512", "1024", "2048", "4096"},
                         {},
                         true,
                         true,
                         false,
                         "random features m",
                         "256",
                         "FAVOR+ estimates exp(q·k/√d) by random features whose variance grows exponentially with (‖q‖² + ‖k‖²)/√d: "
                         "close for small logits, far off for large ones whatever m"}};
    v.cost = [](const ProblemShape& shape, const ParamSet& params) {
        const auto m = static_cast<double>(params.integer("features"));
        const auto n = static_cast<double>(shape.n);
        CoreCost cost;
        cost.terms["scores"] = 0;
        cost.terms["weights_v"] = 0;
        cost.terms["feature_map"] = 2.0 * n * m * static_cast<double>(shape.d) * shape.heads;
        cost.terms["linear_state"] = 2.0 * n * m * static_cast<double>(shape.dv) * shape.heads;
        cost.exps = 2.0 * n * m * shape.heads;
        // One thread's chunk buffers (φ is never materialised for the whole sequence) and Ω in float.
        cost.workspaceBytes = featureMapWorkspaceBytes(m, static_cast<double>(shape.dv)) + 4.0 * m * static_cast<double>(shape.d);
        return cost;
    };
    v.decode = performerDecode();
    v.components = oneComponent(v.pattern);
    return v;
}

} // namespace attnlab
