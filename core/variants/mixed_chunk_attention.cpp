// mixed_chunk: FLASH's mixed chunk attention, g = ⌊i/c⌋.
// quad_i = Σ_{j in chunk g (∧ j ≤ i if causal)} relu(q_i·k_j)² v_j / (c·d)
// lin_i  = (1/n) q_iᵀ Σ_{all j} k_j v_jᵀ (bidirectional) or (1/(g·c)) q_iᵀ Σ_{j < g·c} k_j v_jᵀ (causal, 0 for g = 0)
// out = quad + lin.
#include "core/kernels/gemm.h"
#include "core/variant_support.h"
#include "core/variants/variant_factories.h"

#include <Eigen/Core>
#include <algorithm>

namespace attnlab {

namespace {

using RowMatrixF = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMatrixD = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;

// Adds the linear part of one head to out (and to the weights). Scalar = double on the reference path.
template <typename Matrix>
void addLinearPart(const Tensor3& q, const Tensor3& k, const Tensor3& v, int h, std::int64_t c, bool causal,
                   RunResult& result) {
    const std::int64_t n = q.rows, d = q.cols, dv = v.cols;
    using Scalar = typename Matrix::Scalar;
    const Matrix qh = Eigen::Map<const RowMatrixF>(q.head(h), n, d).cast<Scalar>();
    const Matrix kh = Eigen::Map<const RowMatrixF>(k.head(h), n, d).cast<Scalar>();
    const Matrix vh = Eigen::Map<const RowMatrixF>(v.head(h), n, dv).cast<Scalar>();
    Eigen::Map<RowMatrixF> out(result.out.head(h), n, dv);
    if (!causal) {
        const Matrix state = kh.transpose() * vh;
        out += (qh * state / static_cast<Scalar>(n)).template cast<float>();
        if (result.weights)
            Eigen::Map<RowMatrixF>(result.weights->head(h), n, n) +=
                (qh * kh.transpose() / static_cast<Scalar>(n)).template cast<float>();
        return;
    }
    Matrix state = Matrix::Zero(d, dv);
    for (std::int64_t start = 0; start < n; start += c) {
        const std::int64_t rows = std::min(c, n - start);
        if (start > 0) {
            out.middleRows(start, rows) +=
                (qh.middleRows(start, rows) * state / static_cast<Scalar>(start)).template cast<float>();
            if (result.weights)
                Eigen::Map<RowMatrixF>(result.weights->head(h), n, n).block(start, 0, rows, start) +=
                    (qh.middleRows(start, rows) * kh.topRows(start).transpose() / static_cast<Scalar>(start))
                        .template cast<float>();
        }
        state += kh.middleRows(start, rows).transpose() * vh.middleRows(start, rows);
    }
}

RunResult runMixedChunk(const AttentionInputs& inputs, const RunOptions& options) {
    const std::int64_t c = options.params.integer("chunk");
    MaskedScoring scoring;
    scoring.kind = MaskedScoring::Kind::ReluSquared;
    scoring.normalizer = static_cast<double>(c) * static_cast<double>(inputs.q->cols);
    RunResult result = runMasked(inputs, sharedPattern(blockLocalPattern(inputs.q->rows, c, options.causal)), scoring,
                                 options);
    if (result.cancelled) return result;
    useSerialGemmEngine();
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, options.threads))
    for (int h = 0; h < inputs.q->heads; ++h) {
        if (options.useReference)
            addLinearPart<RowMatrixD>(*inputs.q, *inputs.k, *inputs.v, h, c, options.causal, result);
        else
            addLinearPart<RowMatrixF>(*inputs.q, *inputs.k, *inputs.v, h, c, options.causal, result);
    }
    return result;
}

} // namespace

VariantInfo makeMixedChunkVariant() {
    VariantInfo v;
    v.id = "mixed_chunk";
    v.displayName = "FLASH mixed chunk";
    v.family = "FLASH";
    v.summary = "relu² attention inside chunks of c plus linear attention across chunks: O(n·c·d + n·d²).";
    v.hasMask = false;
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
        cost.workspaceBytes = rowKernelWorkspace(shape, static_cast<double>(params.integer("chunk"))) +
                              4.0 * static_cast<double>(shape.d * shape.dv) * shape.heads;
        return cost;
    };
    v.components = oneComponent(v.pattern);
    return v;
}

} // namespace attnlab
