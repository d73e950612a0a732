// linformer: out = softmax(Q (E K)ᵀ / √d) (F V) with E, F ∈ R^{k×n}; bidirectional only.
// Effective weights W = softmax(…) · F.
#include "core/jobs/parallel_tasks.h"
#include "core/jobs/recent_values.h"
#include "core/kernels/gemm.h"
#include "core/kernels/run_result.h"
#include "core/random/random.h"
#include "core/random/random_features.h"
#include "core/variants/variant_support.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <string>

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

// E and F rounded to float for the fast path, kept between runs: drawing them costs more than a run at
// small n, and at n = 16,384 they are 4 MiB each.
struct FloatProjections {
    RowMatrixF e, f;
};

// Rounded from one draw at a time, so that building holds at most one k × n double matrix besides them.
std::shared_ptr<const FloatProjections> floatProjections(const ParamSet& params, std::int64_t n) {
    std::string key = "n=" + std::to_string(n);
    for (const auto& [name, value] : params.values()) key += " " + name + "=" + paramValueText(value);
    return recentValue<FloatProjections, 2>(key, [&] {
        const std::int64_t k = params.integer("k");
        const bool pool = params.choice("proj") == "pool";
        const auto seed = static_cast<std::uint64_t>(params.integer("seed"));
        const auto rounded = [k, n](const std::vector<double>& draw) {
            return RowMatrixF(Eigen::Map<const RowMatrix>(draw.data(), k, n).cast<float>());
        };
        auto p = std::make_shared<FloatProjections>();
        p->e = rounded(pool ? linformerPool(k, n) : linformerGaussian(k, n, seed, LinformerE));
        p->f = pool ? p->e : rounded(linformerGaussian(k, n, seed, LinformerF));
        return std::shared_ptr<const FloatProjections>(std::move(p));
    });
}

// Softmax over each row, in place (Scalar = float or double).
template <typename Matrix>
void softmaxRows(Matrix&& scores) {
    for (Eigen::Index r = 0; r < scores.rows(); ++r) {
        scores.row(r) = (scores.row(r).array() - scores.row(r).maxCoeff()).exp().matrix();
        scores.row(r) /= scores.row(r).sum();
    }
}

// Query head h reading key/value head g, in double (the reference path; the weights too).
void linformerHeadReference(const Tensor3& q, const Tensor3& k, const Tensor3& v, int h, int g, const Projections& proj,
                            RunResult& result) {
    const std::int64_t n = q.rows, d = q.cols, dv = v.cols;
    const RowMatrix qh = Eigen::Map<const RowMatrixF>(q.head(h), n, d).cast<double>();
    const RowMatrix kh = Eigen::Map<const RowMatrixF>(k.head(g), n, d).cast<double>();
    const RowMatrix vh = Eigen::Map<const RowMatrixF>(v.head(g), n, dv).cast<double>();
    RowMatrix scores = (qh * (proj.e * kh).transpose()) / std::sqrt(static_cast<double>(d));
    softmaxRows(scores);
    Eigen::Map<RowMatrixF>(result.out.head(h), n, dv) = (scores * (proj.f * vh)).cast<float>();
    if (result.weights) Eigen::Map<RowMatrixF>(result.weights->head(h), n, n) = (scores * proj.f).cast<float>();
}

// Rows of queries per block of the fast path: the block's scores (rows × k) stay in the cache.
constexpr std::int64_t kLinformerRows = 256;

// One thread's buffers, kept between runs: E·K (k × d), F·V (k × dv) and a block's scores.
struct LinformerWorkspace {
    RowMatrixF keys, values, scores;
};

// The fast path in float, straight from and into the tensors: E·K and F·V once per head, then
// softmax(Q E·Kᵀ / √d) F·V block by block of query rows.
void linformerHead(const Tensor3& q, const Tensor3& k, const Tensor3& v, int h, int g, const FloatProjections& proj,
                   Tensor3& out) {
    thread_local LinformerWorkspace ws;
    const std::int64_t n = q.rows, d = q.cols, dv = v.cols, projected = proj.e.rows();
    ws.keys.resize(projected, d);
    ws.values.resize(projected, dv);
    ws.keys.noalias() = proj.e * Eigen::Map<const RowMatrixF>(k.head(g), n, d);
    ws.values.noalias() = proj.f * Eigen::Map<const RowMatrixF>(v.head(g), n, dv);
    ws.keys *= 1.0f / std::sqrt(static_cast<float>(d));
    ws.scores.resize(kLinformerRows, projected);
    for (std::int64_t row0 = 0; row0 < n; row0 += kLinformerRows) {
        const std::int64_t rows = std::min(kLinformerRows, n - row0);
        auto scores = ws.scores.topRows(rows);
        scores.noalias() = Eigen::Map<const RowMatrixF>(q.row(h, row0), rows, d) * ws.keys.transpose();
        softmaxRows(scores);
        Eigen::Map<RowMatrixF>(out.row(h, row0), rows, dv).noalias() = scores * ws.values;
    }
}

RunResult runLinformer(const AttentionInputs& inputs, const RunOptions& options) {
    RunResult result = makeQueryResult(inputs, options);
    useSerialGemmEngine();
    if (options.useReference || result.weights) {
        const Projections proj = linformerProjections(options.params, inputs.q->rows);
        runTasks(inputs.q->heads, options.threads, {}, [&](std::int64_t task) {
            const int h = static_cast<int>(task);
            linformerHeadReference(*inputs.q, *inputs.k, *inputs.v, h, inputs.kvHead(h), proj, result);
        });
        return result;
    }
    const auto proj = floatProjections(options.params, inputs.q->rows);
    runTasks(inputs.q->heads, options.threads, {}, [&](std::int64_t task) {
        const int h = static_cast<int>(task);
        linformerHead(*inputs.q, *inputs.k, *inputs.v, h, inputs.kvHead(h), *proj, result.out);
    });
    // Scores past float32 (q·(E k) of 1e40) have a finite softmax: a head whose float output is not
    // finite is computed again in double, which subtracts each row's largest score first.
    std::optional<Projections> exact;
    for (int h = 0; h < inputs.q->heads; ++h) {
        const float* out = result.out.head(h);
        if (std::all_of(out, out + result.out.headStride(), [](float x) { return std::isfinite(x); })) continue;
        if (!exact) exact = linformerProjections(options.params, inputs.q->rows);
        linformerHeadReference(*inputs.q, *inputs.k, *inputs.v, h, inputs.kvHead(h), *exact, result);
    }
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
    v.queryRows = false;
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
        // E and F in float, kept between runs (building them holds one k × n draw in double besides), and
        // each of two threads' E·K, F·V and block of scores.
        cost.workspaceBytes = 4.0 * 2.0 * k * n + 8.0 * k * n +
                              2.0 * 4.0 * k * static_cast<double>(shape.d + shape.dv + kLinformerRows);
        // E·K and F·V per head, written once and read once; gaussian E and F (k × n, shared) read once.
        cost.extraMinBytes = 2.0 * 4.0 * shape.heads * k * static_cast<double>(shape.d + shape.dv) +
                             (params.choice("proj") == "gaussian" ? 4.0 * 2.0 * k * n : 0.0);
        return cost;
    };
    v.components = oneComponent(v.pattern);
    return v;
}

} // namespace attnlab
