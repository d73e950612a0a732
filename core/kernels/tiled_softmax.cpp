#include "core/kernels/tiled_softmax.h"

#include "core/masked_attention.h"

#include <Eigen/Core>
#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

namespace attnlab {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstRowMap = Eigen::Map<const RowMatrix>;
using RowMap = Eigen::Map<RowMatrix>;

constexpr std::int64_t kQueryBlock = 64;
constexpr std::int64_t kKeyBlock = 256;

struct BlockWorkspace {
    RowMatrix scores;
    Eigen::VectorXf rowMax, rowSum;
    RowMatrix accumulator;
};

// Masks the cells of a diagonal block where the key index exceeds the query index.
void maskAboveDiagonal(RowMatrix& scores, std::int64_t row0, std::int64_t col0) {
    for (Eigen::Index r = 0; r < scores.rows(); ++r)
        for (Eigen::Index c = std::max<Eigen::Index>(0, row0 + r - col0 + 1); c < scores.cols(); ++c)
            scores(r, c) = -std::numeric_limits<float>::infinity();
}

void attendQueryBlock(const ConstRowMap& q, const ConstRowMap& k, const ConstRowMap& v, std::int64_t row0,
                      std::int64_t rows, bool causal, float scale, BlockWorkspace& ws, float* out, float* weights) {
    const std::int64_t n = k.rows();
    const std::int64_t keyEnd = causal ? row0 + rows : n;
    ws.rowMax.setConstant(rows, -std::numeric_limits<float>::infinity());
    ws.rowSum.setZero(rows);
    ws.accumulator.setZero(rows, v.cols());
    const auto qBlock = q.middleRows(row0, rows);
    for (std::int64_t col0 = 0; col0 < keyEnd; col0 += kKeyBlock) {
        const std::int64_t cols = std::min(kKeyBlock, keyEnd - col0);
        ws.scores.noalias() = (qBlock * k.middleRows(col0, cols).transpose()) * scale;
        if (causal && col0 + cols > row0) maskAboveDiagonal(ws.scores, row0, col0);
        for (std::int64_t r = 0; r < rows; ++r) {
            const float newMax = std::max(ws.rowMax[r], ws.scores.row(r).maxCoeff());
            const float rescale = std::exp(ws.rowMax[r] - newMax);
            ws.scores.row(r) = (ws.scores.row(r).array() - newMax).exp().matrix();
            ws.rowSum[r] = ws.rowSum[r] * rescale + ws.scores.row(r).sum();
            ws.accumulator.row(r) *= rescale;
            ws.rowMax[r] = newMax;
        }
        ws.accumulator.noalias() += ws.scores * v.middleRows(col0, cols);
    }
    RowMap outBlock(out + row0 * v.cols(), rows, v.cols());
    outBlock = ws.rowSum.cwiseInverse().asDiagonal() * ws.accumulator;
    if (!weights) return;
    RowMap w(weights + row0 * n, rows, n);
    for (std::int64_t col0 = 0; col0 < keyEnd; col0 += kKeyBlock) {
        const std::int64_t cols = std::min(kKeyBlock, keyEnd - col0);
        ws.scores.noalias() = (qBlock * k.middleRows(col0, cols).transpose()) * scale;
        if (causal && col0 + cols > row0) maskAboveDiagonal(ws.scores, row0, col0);
        for (std::int64_t r = 0; r < rows; ++r)
            w.row(r).segment(col0, cols) =
                ((ws.scores.row(r).array() - ws.rowMax[r]).exp() / ws.rowSum[r]).matrix();
    }
}

} // namespace

RunResult runTiledSoftmax(const AttentionInputs& inputs, const RunOptions& options) {
    RunResult result = makeResult(inputs, options.wantWeights);
    const Tensor3& q = *inputs.q;
    const std::int64_t n = q.rows, d = q.cols, dv = inputs.v->cols;
    const float scale = 1.0f / std::sqrt(static_cast<float>(d));
    const std::int64_t blocks = (n + kQueryBlock - 1) / kQueryBlock;
    std::atomic<bool> stop{false};
#pragma omp parallel num_threads(std::max(1, options.threads))
    {
        BlockWorkspace ws;
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t task = 0; task < blocks * q.heads; ++task) {
            if (stop.load(std::memory_order_relaxed)) continue;
            if (options.cancelled && options.cancelled()) {
                stop = true;
                continue;
            }
            const int h = static_cast<int>(task / blocks);
            const std::int64_t row0 = (task % blocks) * kQueryBlock;
            const ConstRowMap qh(q.head(h), n, d), kh(inputs.k->head(h), n, d), vh(inputs.v->head(h), n, dv);
            attendQueryBlock(qh, kh, vh, row0, std::min(kQueryBlock, n - row0), options.causal, scale, ws,
                             result.out.head(h), result.weights ? result.weights->head(h) : nullptr);
        }
    }
    result.cancelled = stop.load();
    return result;
}

} // namespace attnlab
