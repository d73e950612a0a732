// linformer: out = softmax(Q (E K)ᵀ / √d) (F V) with E, F ∈ R^{k×n}; bidirectional only.
// Effective weights W = softmax(…) · F.
#include "core/parallel_tasks.h"
#include "core/random.h"
#include "core/random_features.h"
#include "core/run_result.h"
#include "core/variant_support.h"

#include <Eigen/Core>
#include <algorithm>

namespace attnlab {

namespace {

using RowMatrix = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

struct Projections {
    RowMatrix e, f; // k × n
};

Projections linformerProjections(const ParamSet& params, std::int64_t n) {
    const std::int64_t k = params.integer("k");
    Projections p;
    if (params.choice("proj") == "pool") {
        p.e = Eigen::Map<const RowMatrix>(linformerPool(k, n).data(), k, n);
        p.f = p.e;
    } else {
        const auto seed = static_cast<std::uint64_t>(params.integer("seed"));
        p.e = Eigen::Map<const RowMatrix>(linformerGaussian(k, n, seed, LinformerE).data(), k, n);
        p.f = Eigen::Map<const RowMatrix>(linformerGaussian(k, n, seed, LinformerF).data(), k, n);
    }
    return p;
}

// Softmax over each row, in place (Scalar = float or double).
template <typename Matrix>
void softmaxRows(Matrix& scores) {
    for (Eigen::Index r = 0; r < scores.rows(); ++r) {
        scores.row(r) = (scores.row(r).array() - scores.row(r).maxCoeff()).exp().matrix();
        scores.row(r) /= scores.row(r).sum();
    }
}

// Query head h reading key/value head g.
template <typename Scalar>
void linformerHead(const Tensor3& q, const Tensor3& k, const Tensor3& v, int h, int g, const Projections& proj,
                   RunResult& result) {
    using Matrix = Eigen::Matrix<Scalar, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    const std::int64_t n = q.rows, d = q.cols, dv = v.cols;
    const Matrix qh = Eigen::Map<const RowMatrixF>(q.head(h), n, d).cast<Scalar>();
    const Matrix kh = Eigen::Map<const RowMatrixF>(k.head(g), n, d).cast<Scalar>();
    const Matrix vh = Eigen::Map<const RowMatrixF>(v.head(g), n, dv).cast<Scalar>();
    const Matrix e = proj.e.cast<Scalar>(), f = proj.f.cast<Scalar>();
    Matrix scores = (qh * (e * kh).transpose()) / std::sqrt(static_cast<Scalar>(d));
    softmaxRows(scores);
    Eigen::Map<RowMatrixF>(result.out.head(h), n, dv) = (scores * (f * vh)).template cast<float>();
    if (result.weights) Eigen::Map<RowMatrixF>(result.weights->head(h), n, n) = (scores * f).template cast<float>();
}

RunResult runLinformer(const AttentionInputs& inputs, const RunOptions& options) {
    RunResult result = makeQueryResult(inputs, options);
    const Projections proj = linformerProjections(options.params, inputs.q->rows);
    runTasks(inputs.q->heads, options.threads, {}, [&](std::int64_t task) {
        const int h = static_cast<int>(task);
        if (options.useReference)
            linformerHead<double>(*inputs.q, *inputs.k, *inputs.v, h, inputs.kvHead(h), proj, result);
        else
            linformerHead<float>(*inputs.q, *inputs.k, *inputs.v, h, inputs.kvHead(h), proj, result);
    });
    return result;
}

} // namespace

VariantInfo makeLinformerVariant() {
    VariantInfo v;
    v.id = "linformer";
    v.displayName = "Linformer";
    v.family = "Low rank";
    v.summary = "Keys and values projected along the sequence to k rows: softmax(Q(EK)ᵀ/√d)(FV) in O(n·k·d).";
    v.causalSupport = CausalSupport::BidirectionalOnly;
    v.hasMask = false;
    v.params = {integerParam("k", "Projected length k", "min(n, 64)",
                             [](const ShapeContext& s, const ParamSet&) { return std::min<std::int64_t>(s.n, 64); }, 1,
                             ">= 1 (pool: k <= n)"),
                choiceParam("proj", "gaussian: E, F with N(0, 1/k) entries; pool: mean over k contiguous segments",
                            {"gaussian", "pool"}, "gaussian"),
                seedParam()};
    v.validate = [](const ProblemShape& shape, const ParamSet& params) {
        if (params.choice("proj") == "pool" && params.integer("k") > shape.n)
            throw InputError("linformer with proj=pool needs k <= n, got k = " + std::to_string(params.integer("k")) +
                             " and n = " + std::to_string(shape.n));
    };
    v.pattern = [](const PatternRequest& request) { return allPairsPattern(request.shape.n, false); };
    v.run = runLinformer;
    const std::vector<std::string> projectedLengths = {"8", "16", "32", "64", "128", "256", "512"};
    v.accuracySweeps = {
        {"linformer_gaussian", "linformer, untrained Gaussian E, F", "k", projectedLengths, {{"proj", "gaussian"}}, true, true, true,
         "projected length k", "64",
         "untrained Gaussian E, F: random mixtures of all keys, not the learned projections of the paper, so no k < n "
         "keeps softmax's few large weights"},
        {"linformer_pool", "linformer, mean pooling E = F", "k", projectedLengths, {{"proj", "pool"}}, true, false, true,
         "projected length k", "64", "pooling averages k blocks of neighbouring keys: exact at k = n"}};
    v.cost = [](const ProblemShape& shape, const ParamSet& params) {
        const auto k = static_cast<double>(params.integer("k"));
        const auto n = static_cast<double>(shape.n);
        CoreCost cost;
        cost.terms["projection"] = k * n * static_cast<double>(shape.d + shape.dv) * shape.heads;
        cost.terms["scores"] = n * k * static_cast<double>(shape.d) * shape.heads;
        cost.terms["weights_v"] = n * k * static_cast<double>(shape.dv) * shape.heads;
        cost.exps = n * k * shape.heads;
        cost.workspaceBytes = 8.0 * 2.0 * k * n + 2.0 * 4.0 * (n * k + k * static_cast<double>(shape.d + shape.dv));
        // E·K and F·V per head, written once and read once; gaussian E and F (k × n, shared) read once.
        cost.extraMinBytes = 2.0 * 4.0 * shape.heads * k * static_cast<double>(shape.d + shape.dv) +
                             (params.choice("proj") == "gaussian" ? 4.0 * 2.0 * k * n : 0.0);
        return cost;
    };
    v.components = oneComponent(v.pattern);
    return v;
}

} // namespace attnlab
