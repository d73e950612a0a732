// performer: FAVOR+ positive random features approximating softmax(q·k/√d), then linear attention.
// x' = x·d^(−1/4); φ(x) = exp(ωᵀx' − ‖x'‖²/2)/√m; one draw of Ω shared by all heads.
#include "core/kernels/feature_map_attention.h"
#include "core/random_features.h"
#include "core/variant_support.h"
#include "core/variants/variant_factories.h"

#include <algorithm>
#include <limits>

namespace attnlab {

namespace {

// Positive random features of every row of x, [h, n, m]. A common factor exp(−shift) is taken out of
// each query row (its own max) and of each head's keys (their max over rows and features): it cancels
// between numerator and denominator, and keeps exp() finite for large inputs.
Tensor3 favorFeatures(const Tensor3& x, const std::vector<double>& omega, std::int64_t m, bool perRowShift) {
    const std::int64_t d = x.cols;
    const double inputScale = std::pow(static_cast<double>(d), -0.25);
    const double outputScale = 1.0 / std::sqrt(static_cast<double>(m));
    Tensor3 phi(x.heads, x.rows, m);
    std::vector<double> exponent(static_cast<std::size_t>(x.rows * m));
    for (int h = 0; h < x.heads; ++h) {
        double headMax = -std::numeric_limits<double>::infinity();
        for (std::int64_t i = 0; i < x.rows; ++i) {
            const float* row = x.row(h, i);
            double squaredNorm = 0;
            for (std::int64_t c = 0; c < d; ++c) squaredNorm += (row[c] * inputScale) * (row[c] * inputScale);
            for (std::int64_t r = 0; r < m; ++r) {
                double projection = 0;
                for (std::int64_t c = 0; c < d; ++c) projection += omega[r * d + c] * row[c] * inputScale;
                exponent[i * m + r] = projection - squaredNorm / 2;
                headMax = std::max(headMax, projection);
            }
        }
        for (std::int64_t i = 0; i < x.rows; ++i) {
            double* e = exponent.data() + i * m;
            const double shift = perRowShift ? *std::max_element(e, e + m) : headMax;
            for (std::int64_t r = 0; r < m; ++r) phi.at(h, i, r) = static_cast<float>(std::exp(e[r] - shift) * outputScale);
        }
    }
    return phi;
}

RunResult runPerformer(const AttentionInputs& inputs, const RunOptions& options) {
    const std::int64_t m = options.params.integer("features");
    const auto omega = performerProjection(m, inputs.q->cols, static_cast<std::uint64_t>(options.params.integer("seed")),
                                           options.params.flag("orthogonal"));
    return runFeatureMapAttention(favorFeatures(*inputs.q, omega, m, true), favorFeatures(*inputs.k, omega, m, false),
                                  *inputs.v, options);
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
    return v;
}

} // namespace attnlab
