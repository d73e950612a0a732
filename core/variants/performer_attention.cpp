// performer: FAVOR+ positive random features approximating softmax(q·k/√d), then linear attention.
// x' = x·d^(−1/4); φ(x) = exp(ωᵀx' − ‖x'‖²/2)/√m; one draw of Ω shared by all heads.
#include "core/decode_step.h"
#include "core/kernels/feature_map_attention.h"
#include "core/kernels/gemm.h"
#include "core/kernels/tile_math.h"
#include "core/parallel_tasks.h"
#include "core/random_features.h"
#include "core/variant_support.h"

#include <Eigen/Core>

#include <algorithm>
#include <cmath>
#include <numbers>
#include <limits>

namespace attnlab {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Positive random features of every row of x, [h, n, m]. A common factor exp(−shift) is taken out of
// each query row (its own max) and of each head's keys (their max over rows and features): it cancels
// between numerator and denominator, and keeps exp() finite for large inputs. The projections x'·Ωᵀ
// are one float GEMM per head, written straight into the result and exponentiated in place.
Tensor3 favorFeatures(const Tensor3& x, const RowMatrix& omega, bool perRowShift, int threads) {
    const std::int64_t d = x.cols, m = omega.rows();
    const auto inputScale = static_cast<float>(std::pow(static_cast<double>(d), -0.25));
    const auto outputScale = static_cast<float>(1.0 / std::sqrt(static_cast<double>(m)));
    Tensor3 phi(x.heads, x.rows, m);
    useSerialGemmEngine();
    runTasks(x.heads, threads, {}, [&](std::int64_t task) {
        const int h = static_cast<int>(task);
        const Eigen::Map<const RowMatrix> rows(x.head(h), x.rows, d);
        Eigen::Map<RowMatrix> projection(phi.head(h), x.rows, m);
        projection.noalias() = (rows * inputScale) * omega.transpose();
        const float headMax = x.rows > 0 ? projection.maxCoeff() : 0.0f;
        for (std::int64_t i = 0; i < x.rows; ++i) {
            float* e = phi.row(h, i);
            const float halfNorm = 0.5f * inputScale * inputScale * tile::dot(x.row(h, i), x.row(h, i), d);
            // exponent = projection − ‖x'‖²/2; a query row is shifted by its own largest exponent.
            const float shift = perRowShift ? *std::max_element(e, e + m) - halfNorm : headMax;
            tile::exp2Shifted(e, m, shift + halfNorm, std::numbers::log2e_v<float>);
            for (std::int64_t r = 0; r < m; ++r) e[r] *= outputScale;
        }
    });
    return phi;
}

// Ω as float rows, m × d.
RowMatrix projectionRows(const ParamSet& params, std::int64_t d) {
    const std::int64_t m = params.integer("features");
    const auto omega = performerProjection(m, d, static_cast<std::uint64_t>(params.integer("seed")), params.flag("orthogonal"));
    RowMatrix omegaRows(m, d);
    for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t c = 0; c < d; ++c) omegaRows(r, c) = static_cast<float>(omega[static_cast<std::size_t>(r * d + c)]);
    return omegaRows;
}

RunResult runPerformer(const AttentionInputs& inputs, const RunOptions& options) {
    const RowMatrix omegaRows = projectionRows(options.params, inputs.q->cols);
    const Tensor3 phiQ = favorFeatures(*inputs.q, omegaRows, true, options.threads);
    const Tensor3 phiK = favorFeatures(*inputs.k, omegaRows, false, options.threads);
    return runFeatureMapAttention(precomputedFeatures(phiQ, phiK), inputs, options);
}

// Rows mapped one at a time, for decoding: a query row's φ shifted by its own largest exponent (the shift
// cancels in out_i), and a key row's exponents log φ = ω_r·x' − ‖x'‖²/2 − log √m, which the decoding
// step exponentiates against its running maximum.
FeatureMap favorRowFeatures(const AttentionInputs& inputs, std::shared_ptr<const RowMatrix> omega) {
    const std::int64_t d = inputs.q->cols, m = omega->rows();
    const auto inputScale = static_cast<float>(std::pow(static_cast<double>(d), -0.25));
    const auto logNormaliser = static_cast<float>(0.5 * std::log(static_cast<double>(m)));
    FeatureMap map;
    map.features = m;
    map.rows = [&inputs, omega, inputScale, logNormaliser, d, m](int h, std::int64_t row0, std::int64_t count, bool query,
                                                                float* out) {
        const Tensor3& x = query ? *inputs.q : *inputs.k;
        for (std::int64_t i = 0; i < count; ++i, out += m) {
            const Eigen::Map<const Eigen::VectorXf> row(x.row(h, row0 + i), d);
            Eigen::Map<Eigen::VectorXf> exponent(out, m);
            exponent.noalias() = *omega * (row * inputScale);
            exponent.array() -= 0.5f * inputScale * inputScale * row.squaredNorm() + logNormaliser;
            if (query) tile::exp2Shifted(out, m, exponent.maxCoeff(), std::numbers::log2e_v<float>);
        }
    };
    return map;
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
    info->prepare = [](const AttentionInputs& context, const ParamSet& params, int threads) {
        auto omega = std::make_shared<const RowMatrix>(projectionRows(params, context.q->cols));
        return makeFeatureMapStep(
            context, [omega](const AttentionInputs& inputs) { return favorRowFeatures(inputs, omega); }, threads,
            KeyFeatures::Exponents);
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
        cost.workspaceBytes = 4.0 * 2.0 * n * m * shape.heads + 8.0 * m * static_cast<double>(shape.d);
        return cost;
    };
    v.decode = performerDecode();
    v.components = oneComponent(v.pattern);
    return v;
}

} // namespace attnlab
