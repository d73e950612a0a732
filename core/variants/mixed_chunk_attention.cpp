// mixed_chunk: FLASH's mixed chunk attention, g = ⌊i/c⌋.
// quad_i = Σ_{j in chunk g (∧ j ≤ i if causal)} relu(q_i·k_j)² v_j / (c·d)
// lin_i  = (1/n) q_iᵀ Σ_{all j} k_j v_jᵀ (bidirectional) or (1/(g·c)) q_iᵀ Σ_{j < g·c} k_j v_jᵀ (causal, 0 for g = 0)
// out = quad + lin.
#include "core/decode/decode_step.h"
#include "core/jobs/parallel_tasks.h"
#include "core/kernels/block_attention.h"
#include "core/kernels/gemm.h"
#include "core/variants/variant_support.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace attnlab {

namespace {

using RowMatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Adds the linear part of query head h, reading key/value head g, to out (and to the weights), in double:
// the reference path.
void addLinearPartReference(const Tensor3& q, const Tensor3& k, const Tensor3& v, int h, int g, std::int64_t c,
                            bool causal, RunResult& result) {
    const std::int64_t n = q.rows, d = q.cols, dv = v.cols;
    const RowMatrixD qh = Eigen::Map<const RowMatrixF>(q.head(h), n, d).cast<double>();
    const RowMatrixD kh = Eigen::Map<const RowMatrixF>(k.head(g), n, d).cast<double>();
    const RowMatrixD vh = Eigen::Map<const RowMatrixF>(v.head(g), n, dv).cast<double>();
    Eigen::Map<RowMatrixF> out(result.out.head(h), n, dv);
    if (!causal) {
        const RowMatrixD state = kh.transpose() * vh;
        out += (qh * state / static_cast<double>(n)).cast<float>();
        if (result.weights)
            Eigen::Map<RowMatrixF>(result.weights->head(h), n, n) += (qh * kh.transpose() / static_cast<double>(n)).cast<float>();
        return;
    }
    RowMatrixD state = RowMatrixD::Zero(d, dv);
    for (std::int64_t start = 0; start < n; start += c) {
        const std::int64_t rows = std::min(c, n - start);
        if (start > 0) {
            out.middleRows(start, rows) += (qh.middleRows(start, rows) * state / static_cast<double>(start)).cast<float>();
            if (result.weights)
                Eigen::Map<RowMatrixF>(result.weights->head(h), n, n).block(start, 0, rows, start) +=
                    (qh.middleRows(start, rows) * kh.topRows(start).transpose() / static_cast<double>(start)).cast<float>();
        }
        state += kh.middleRows(start, rows).transpose() * vh.middleRows(start, rows);
    }
}

// The same in float, straight from and into the tensors (no weights): the state Σ k_j v_jᵀ (d × dv) and
// its scaled copy in one thread's buffers, kept between runs.
void addLinearPart(const Tensor3& q, const Tensor3& k, const Tensor3& v, int h, int g, std::int64_t c, bool causal,
                   Tensor3& outputs) {
    thread_local RowMatrixF state, scaled;
    const std::int64_t n = q.rows, d = q.cols, dv = v.cols;
    const Eigen::Map<const RowMatrixF> qh(q.head(h), n, d), kh(k.head(g), n, d), vh(v.head(g), n, dv);
    Eigen::Map<RowMatrixF> out(outputs.head(h), n, dv);
    state.resize(d, dv);
    scaled.resize(d, dv);
    if (!causal) {
        state.noalias() = kh.transpose() * vh;
        scaled = state / static_cast<float>(n);
        out.noalias() += qh * scaled;
        return;
    }
    state.setZero();
    for (std::int64_t start = 0; start < n; start += c) {
        const std::int64_t rows = std::min(c, n - start);
        if (start > 0) {
            scaled = state / static_cast<float>(start);
            out.middleRows(start, rows).noalias() += qh.middleRows(start, rows) * scaled;
        }
        state.noalias() += kh.middleRows(start, rows).transpose() * vh.middleRows(start, rows);
    }
}

// Adds row i's linear part in double to its relu² part already in `result`: Σ_j (q_i·k_j) v_j / m over the
// m keys the row reads (every key, or those before its chunk when causal), and q_i·k_j / m to its weights.
void addLinearRowInDouble(const AttentionInputs& inputs, int h, std::int64_t i, std::int64_t c, bool causal, RunResult& result) {
    const Tensor3 &q = *inputs.q, &k = *inputs.k, &v = *inputs.v;
    const int g = inputs.kvHead(h);
    const std::int64_t d = q.cols, dv = v.cols, keys = causal ? i / c * c : q.rows;
    if (keys == 0) return;
    std::vector<double> acc(result.out.row(h, i), result.out.row(h, i) + dv);
    for (std::int64_t j = 0; j < keys; ++j) {
        double score = 0;
        for (std::int64_t e = 0; e < d; ++e) score += static_cast<double>(q.at(h, i, e)) * k.at(g, j, e);
        score /= static_cast<double>(keys);
        for (std::int64_t e = 0; e < dv; ++e) acc[static_cast<std::size_t>(e)] += score * v.at(g, j, e);
        if (result.weights) result.weights->at(h, i, j) = static_cast<float>(result.weights->at(h, i, j) + score);
    }
    for (std::int64_t e = 0; e < dv; ++e) result.out.at(h, i, e) = static_cast<float>(acc[static_cast<std::size_t>(e)]);
}

// The float paths overflow where a score or its square passes float32 (q·k of 1e20) although the row's
// answer may be finite: such rows are computed again in double, the relu² part by the masked reference
// row, the linear part by addLinearRowInDouble. Rows whose answer itself overflows stay non-finite.
void redoNonFiniteRowsInDouble(const AttentionInputs& inputs, std::int64_t c, bool causal, const MaskedScoring& scoring,
                               int threads, RunResult& result) {
    if (!hasNonFiniteRow(result, threads)) return;
    std::vector<std::pair<int, std::int64_t>> rows;
    for (int h = 0; h < result.out.heads; ++h)
        for (std::int64_t i = 0; i < result.out.rows; ++i)
            if (!finiteValues(result.out.row(h, i), result.out.cols) ||
                (result.weights && !finiteValues(result.weights->row(h, i), result.weights->cols)))
                rows.emplace_back(h, i);
    redoNonFiniteRows(inputs, sharedPattern(blockLocalPattern(inputs.q->rows, c, causal)), scoring, result);
    for (const auto& [h, i] : rows) addLinearRowInDouble(inputs, h, i, c, causal, result);
}

RunResult runMixedChunk(const AttentionInputs& inputs, const RunOptions& options) {
    const std::int64_t c = options.params.integer("chunk");
    MaskedScoring scoring;
    scoring.kind = MaskedScoring::Kind::ReluSquared;
    scoring.normalizer = static_cast<double>(c) * static_cast<double>(inputs.q->cols);
    const std::int64_t n = inputs.q->rows;
    RunResult result = options.useReference
                           ? runMasked(inputs, sharedPattern(blockLocalPattern(n, c, options.causal)), scoring, options)
                           : runPlannedAttention(inputs, {blockLocalPlan(n, c, options.causal)}, scoring, options);
    if (result.cancelled) return result;
    useSerialGemmEngine();
    runTasks(inputs.q->heads, options.threads, {}, [&](std::int64_t task) {
        const int h = static_cast<int>(task);
        if (options.useReference || result.weights)
            addLinearPartReference(*inputs.q, *inputs.k, *inputs.v, h, inputs.kvHead(h), c, options.causal, result);
        else
            addLinearPart(*inputs.q, *inputs.k, *inputs.v, h, inputs.kvHead(h), c, options.causal, result.out);
    });
    redoNonFiniteRowsInDouble(inputs, c, options.causal, scoring, options.threads, result);
    return result;
}

// Decoding keeps the new token's chunk so far (its relu² part) and the d × dv state of the earlier chunks;
// the step reads the state out and, when the new token closes its chunk, folds the chunk's c keys into it.
std::shared_ptr<const DecodeInfo> mixedChunkDecode() {
    auto info = std::make_shared<DecodeInfo>();
    info->retainedKeys = [](const ProblemShape& shape, const ParamSet& params) {
        return (shape.n - 1) % params.integer("chunk") + 1;
    };
    info->stateFloats = [](const ProblemShape& shape, const ParamSet&) { return static_cast<double>(shape.d * shape.dv); };
    info->cost = [](const ProblemShape& shape, const ParamSet& params) {
        const std::int64_t c = params.integer("chunk"), chunkStart = (shape.n - 1) / c * c;
        CoreCost cost = maskedCoreCost(shape, static_cast<double>(shape.n - chunkStart), false);
        const auto stateMacs = static_cast<double>(shape.d * shape.dv);
        cost.terms["linear_state"] = (chunkStart > 0 ? shape.heads * stateMacs : 0.0) +
                                     (shape.n % c == 0 ? shape.keyValueHeads() * static_cast<double>(c) * stateMacs : 0.0);
        return cost;
    };
    info->prepare = [](const AttentionInputs& context, const ParamSet& params, const DecodeOptions& options) {
        return makeMixedChunkStep(context, params.integer("chunk"), options);
    };
    return info;
}

} // namespace

VariantInfo makeMixedChunkVariant() {
    VariantInfo v;
    v.id = "mixed_chunk";
    v.displayName = "FLASH mixed chunk";
    v.family = "FLASH";
    v.summary = "relu² attention inside chunks of c plus linear attention across chunks: O(n·c·d + n·d²).";
    v.hasMask = false;
    v.queryRows = false;
    v.params = {integerParam("chunk", "Chunk length c", "min(n, 64)",
                             [](const ShapeContext& s, const ParamSet&) { return std::min<std::int64_t>(s.n, 64); }, 1,
                             ">= 1")};
    v.pattern = [](const PatternRequest& request) { return allPairsPattern(request.shape.n, request.shape.causal); };
    v.run = runMixedChunk;
    v.cost = [](const ProblemShape& shape, const ParamSet& params) {
        const auto local = blockLocalPattern(shape.n, params.integer("chunk"), shape.causal);
        CoreCost cost = maskedCoreCost(shape, static_cast<double>(local->nnz()), false);
        cost.terms["linear_state"] =
            2.0 * static_cast<double>(shape.n) * static_cast<double>(shape.d) * static_cast<double>(shape.dv) * shape.heads;
        // Each of two threads' linear state and its scaled copy (d × dv each).
        // A row sees at most min(c, n) keys of its chunk: c past n is one chunk of n.
        cost.workspaceBytes = rowKernelWorkspace(shape, static_cast<double>(std::min(params.integer("chunk"), shape.n))) +
                              2.0 * 2.0 * 4.0 * static_cast<double>(shape.d * shape.dv);
        return cost;
    };
    v.decode = mixedChunkDecode();
    v.components = oneComponent(v.pattern);
    return v;
}

} // namespace attnlab
