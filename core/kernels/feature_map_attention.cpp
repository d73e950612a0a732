#include "core/kernels/feature_map_attention.h"

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

constexpr std::int64_t kChunk = 64;

RunResult emptyResult(const Tensor3& v, std::int64_t n, bool wantWeights) {
    RunResult result;
    result.out = Tensor3(v.heads, n, v.cols);
    if (wantWeights) result.weights = Tensor3(v.heads, n, n);
    return result;
}

// Divides each row of `numerator` by `denominator`, leaving zero rows where the denominator is zero.
void normaliseRows(RowMap numerator, const Eigen::VectorXf& denominator) {
    for (Eigen::Index r = 0; r < numerator.rows(); ++r)
        numerator.row(r) = denominator[r] != 0.0f ? (numerator.row(r) / denominator[r]).eval()
                                                  : Eigen::RowVectorXf::Zero(numerator.cols());
}

void featureMapHead(const ConstRowMap& phiQ, const ConstRowMap& phiK, const ConstRowMap& v, bool causal, RowMap out,
                    float* weights) {
    const std::int64_t n = phiQ.rows();
    Eigen::VectorXf denominator(n);
    if (!causal) {
        const RowMatrix state = phiK.transpose() * v;                    // m × dv
        const Eigen::VectorXf keySum = phiK.colwise().sum().transpose(); // m
        out.noalias() = phiQ * state;
        denominator.noalias() = phiQ * keySum;
    } else {
        RowMatrix state = RowMatrix::Zero(phiK.cols(), v.cols());
        Eigen::VectorXf keySum = Eigen::VectorXf::Zero(phiK.cols());
        RowMatrix local;
        for (std::int64_t c0 = 0; c0 < n; c0 += kChunk) {
            const std::int64_t rows = std::min(kChunk, n - c0);
            const auto q = phiQ.middleRows(c0, rows);
            const auto k = phiK.middleRows(c0, rows);
            local.noalias() = q * k.transpose();
            local.triangularView<Eigen::StrictlyUpper>().setZero();
            out.middleRows(c0, rows).noalias() = local * v.middleRows(c0, rows) + q * state;
            denominator.segment(c0, rows).noalias() = local.rowwise().sum() + q * keySum;
            state.noalias() += k.transpose() * v.middleRows(c0, rows);
            keySum.noalias() += k.colwise().sum().transpose();
        }
    }
    if (weights) {
        RowMap w(weights, n, n);
        w.noalias() = phiQ * phiK.transpose();
        if (causal) w.triangularView<Eigen::StrictlyUpper>().setZero();
        normaliseRows(w, denominator);
    }
    normaliseRows(out, denominator);
}

void featureMapHeadReference(const Tensor3& phiQ, const Tensor3& phiK, const Tensor3& v, int h, bool causal,
                             Tensor3& out, Tensor3* weights) {
    const std::int64_t n = phiQ.rows, m = phiQ.cols, dv = v.cols;
    for (std::int64_t i = 0; i < n; ++i) {
        std::vector<double> kernel(static_cast<std::size_t>(n), 0.0);
        double total = 0;
        for (std::int64_t j = 0; j < (causal ? i + 1 : n); ++j) {
            for (std::int64_t f = 0; f < m; ++f) kernel[j] += static_cast<double>(phiQ.at(h, i, f)) * phiK.at(h, j, f);
            total += kernel[j];
        }
        for (std::int64_t c = 0; c < dv; ++c) {
            double acc = 0;
            for (std::int64_t j = 0; j < n; ++j) acc += kernel[j] * v.at(h, j, c);
            out.at(h, i, c) = total != 0 ? static_cast<float>(acc / total) : 0.0f;
        }
        if (weights)
            for (std::int64_t j = 0; j < n; ++j)
                weights->at(h, i, j) = total != 0 ? static_cast<float>(kernel[j] / total) : 0.0f;
    }
}

} // namespace

RunResult runFeatureMapAttention(const Tensor3& phiQ, const Tensor3& phiK, const Tensor3& v, const RunOptions& options) {
    RunResult result = emptyResult(v, phiQ.rows, options.wantWeights);
    std::atomic<bool> stop{false};
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, options.threads))
    for (int h = 0; h < phiQ.heads; ++h) {
        if (stop.load(std::memory_order_relaxed)) continue;
        if (options.cancelled && options.cancelled()) {
            stop = true;
            continue;
        }
        Tensor3* weights = result.weights ? &*result.weights : nullptr;
        if (options.useReference) {
            featureMapHeadReference(phiQ, phiK, v, h, options.causal, result.out, weights);
            continue;
        }
        const std::int64_t n = phiQ.rows, m = phiQ.cols;
        featureMapHead(ConstRowMap(phiQ.head(h), n, m), ConstRowMap(phiK.head(h), n, m),
                       ConstRowMap(v.head(h), n, v.cols), options.causal, RowMap(result.out.head(h), n, v.cols),
                       weights ? weights->head(h) : nullptr);
    }
    result.cancelled = stop.load();
    return result;
}

namespace {

// softmax over the d features of each row of x, in place.
void softmaxRows(std::vector<double>& x, std::int64_t rows, std::int64_t cols) {
    for (std::int64_t r = 0; r < rows; ++r) {
        double* row = x.data() + r * cols;
        const double best = *std::max_element(row, row + cols);
        double total = 0;
        for (std::int64_t c = 0; c < cols; ++c) total += (row[c] = std::exp(row[c] - best));
        for (std::int64_t c = 0; c < cols; ++c) row[c] /= total;
    }
}

// One head of efficient attention. For each feature m a running softmax over keys in column m is kept
// (max, sum, Σ exp·v) so prefixes (causal) and the whole set (bidirectional) share one code path;
// bidirectional reads the state after the last key for every row.
void efficientHead(const Tensor3& q, const Tensor3& k, const Tensor3& v, int h, bool causal, Tensor3& out,
                   Tensor3* weights) {
    const std::int64_t n = q.rows, d = q.cols, dv = v.cols;
    std::vector<double> queryWeights(static_cast<std::size_t>(n * d));
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t m = 0; m < d; ++m) queryWeights[i * d + m] = q.at(h, i, m);
    softmaxRows(queryWeights, n, d);
    std::vector<double> best(d, -std::numeric_limits<double>::infinity()), total(d, 0.0);
    std::vector<double> acc(static_cast<std::size_t>(d * dv), 0.0);
    std::vector<double> rowOut(dv);
    auto absorb = [&](std::int64_t j) {
        for (std::int64_t m = 0; m < d; ++m) {
            const double x = k.at(h, j, m);
            if (x > best[m]) {
                const double rescale = std::exp(best[m] - x);
                total[m] *= rescale;
                for (std::int64_t c = 0; c < dv; ++c) acc[m * dv + c] *= rescale;
                best[m] = x;
            }
            const double e = std::exp(x - best[m]);
            total[m] += e;
            for (std::int64_t c = 0; c < dv; ++c) acc[m * dv + c] += e * v.at(h, j, c);
        }
    };
    auto emit = [&](std::int64_t i) {
        std::fill(rowOut.begin(), rowOut.end(), 0.0);
        for (std::int64_t m = 0; m < d; ++m) {
            const double a = queryWeights[i * d + m] / total[m];
            for (std::int64_t c = 0; c < dv; ++c) rowOut[c] += a * acc[m * dv + c];
        }
        for (std::int64_t c = 0; c < dv; ++c) out.at(h, i, c) = static_cast<float>(rowOut[c]);
        if (!weights) return;
        for (std::int64_t j = 0; j < (causal ? i + 1 : n); ++j) {
            double w = 0;
            for (std::int64_t m = 0; m < d; ++m)
                w += queryWeights[i * d + m] * std::exp(k.at(h, j, m) - best[m]) / total[m];
            weights->at(h, i, j) = static_cast<float>(w);
        }
    };
    if (causal) {
        for (std::int64_t i = 0; i < n; ++i) {
            absorb(i);
            emit(i);
        }
    } else {
        for (std::int64_t j = 0; j < n; ++j) absorb(j);
        for (std::int64_t i = 0; i < n; ++i) emit(i);
    }
}

} // namespace

RunResult runEfficientAttention(const AttentionInputs& inputs, const RunOptions& options) {
    RunResult result = emptyResult(*inputs.v, inputs.q->rows, options.wantWeights);
    std::atomic<bool> stop{false};
#pragma omp parallel for schedule(dynamic, 1) num_threads(std::max(1, options.threads))
    for (int h = 0; h < inputs.q->heads; ++h) {
        if (stop.load(std::memory_order_relaxed)) continue;
        if (options.cancelled && options.cancelled()) {
            stop = true;
            continue;
        }
        efficientHead(*inputs.q, *inputs.k, *inputs.v, h, options.causal, result.out,
                      result.weights ? &*result.weights : nullptr);
    }
    result.cancelled = stop.load();
    return result;
}

} // namespace attnlab
