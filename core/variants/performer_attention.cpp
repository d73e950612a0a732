// performer: FAVOR+ positive random features approximating softmax(q·k/√d), then linear attention.
// x' = x·d^(−1/4); φ(x) = exp(ωᵀx' − ‖x'‖²/2)/√m; one draw of Ω shared by all heads.
#include "core/kernels/feature_map_attention.h"
#include "core/kernels/gemm.h"
#include "core/kernels/tile_math.h"
#include "core/random_features.h"
#include "core/variant_support.h"
#include "core/variants/variant_factories.h"

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
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, threads))
    for (int h = 0; h < x.heads; ++h) {
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
    }
    return phi;
}

RunResult runPerformer(const AttentionInputs& inputs, const RunOptions& options) {
    const std::int64_t m = options.params.integer("features");
    const auto omega = performerProjection(m, inputs.q->cols, static_cast<std::uint64_t>(options.params.integer("seed")),
                                           options.params.flag("orthogonal"));
    const std::int64_t d = inputs.q->cols;
    RowMatrix omegaRows(m, d);
    for (std::int64_t r = 0; r < m; ++r)
        for (std::int64_t c = 0; c < d; ++c) omegaRows(r, c) = static_cast<float>(omega[static_cast<std::size_t>(r * d + c)]);
    const Tensor3 phiQ = favorFeatures(*inputs.q, omegaRows, true, options.threads);
    const Tensor3 phiK = favorFeatures(*inputs.k, omegaRows, false, options.threads);
    return runFeatureMapAttention(precomputedFeatures(phiQ, phiK), *inputs.v, options);
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
    v.components = oneComponent(v.pattern);
    return v;
}

} // namespace attnlab
