#include "core/kernels/feature_map_attention.h"

#include "core/jobs/parallel_tasks.h"
#include "core/kernels/feature_map_chunks.h"
#include "core/kernels/gemm.h"
#include "core/kernels/run_result.h"
#include "core/kernels/tile_math.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <utility>

namespace attnlab {

namespace {

using namespace featurechunks;

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using DoubleRows = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using RowMap = Eigen::Map<RowMatrix>;

// out_i = φ(q_i)ᵀ state_i / φ(q_i)ᵀ keySum_i for the rows of one chunk (the first is row0), from the
// numerator buffer; rows whose denominator is below kTrustedDenominator or not finite are added to
// `untrusted` when given. Rows of whole vectors on aligned storage go to memory with non-temporal stores
// (nothing reads them again here, and a normal store would first read each cold line in);
// featureMapHead fences them.
void writeNormalised(const float* phiQ, const std::vector<float>& keySum, const float* localRowSums,
                     const float* numerator, std::int64_t stride, std::int64_t row0, std::int64_t rows, std::int64_t m,
                     std::int64_t dv, float* out, std::vector<std::int64_t>* untrusted) {
    const bool stream = tile::streamable(out, dv);
    for (std::int64_t r = 0; r < rows; ++r) {
        const float denominator = (localRowSums ? localRowSums[r] : 0.0f) + tile::dot(phiQ + r * m, keySum.data(), m);
        if (untrusted && !(denominator >= kTrustedDenominator && std::isfinite(denominator))) untrusted->push_back(row0 + r);
        const float scale = denominator != 0.0f ? 1.0f / denominator : 0.0f;
        if (stream)
            tile::streamScaledCopy(numerator + r * stride, dv, scale, out + r * dv);
        else
            tile::scaledCopy(numerator + r * stride, dv, scale, out + r * dv, dv);
    }
}

// A chunk's exponent keys (KeyFeatures::Exponents) to e^{log φ − M'} in place, M' = max(M, their largest):
// the state and key sum, summed under M, are first rescaled by e^{M − M'} (to 0 while nothing is summed).
void exponentiateKeys(float* keys, std::int64_t count, float& shift, float* state, std::int64_t stateFloats,
                      std::vector<float>& keySum) {
    const float raised = std::max(shift, *std::max_element(keys, keys + count));
    if (raised > shift) {
        const float rescale = std::exp(shift - raised);
        for (std::int64_t e = 0; e < stateFloats; ++e) state[e] *= rescale;
        for (float& sum : keySum) sum *= rescale;
        shift = raised;
    }
    tile::exp2Shifted(keys, count, shift, std::numbers::log2e_v<float>);
}

// log φ of rows [0, n) of head h, n × m in double (map.logRow).
DoubleRows logFeatures(const FeatureMap& map, int h, std::int64_t n, bool query) {
    DoubleRows logs(n, map.features);
    for (std::int64_t i = 0; i < n; ++i) map.logRow(h, i, query, logs.row(i).data());
    return logs;
}

// The smallest double row sum the reference path and the weights trust (double's normal range ends at
// 2.2e-308); below it, or not finite, the row is computed from log φ (exactKernelRow).
constexpr double kTrustedDoubleSum = 1e-290;

// One row's kernel values kernel[j] = Σ_f exp(log φ(q)_f + log φ(k_j)_f − L) for j < keys, L the row's
// largest exponent, and their sum (0 when every φ product is 0): exact whatever the exponents' range.
double exactKernelRow(const std::vector<double>& logQ, const DoubleRows& logK, std::int64_t keys, double* kernel) {
    double largest = -std::numeric_limits<double>::infinity();
    for (std::int64_t j = 0; j < keys; ++j)
        for (Eigen::Index f = 0; f < logK.cols(); ++f) largest = std::max(largest, logQ[static_cast<std::size_t>(f)] + logK(j, f));
    double sum = 0;
    for (std::int64_t j = 0; j < keys; ++j) {
        double w = 0;
        for (Eigen::Index f = 0; f < logK.cols() && std::isfinite(largest); ++f)
            w += std::exp(logQ[static_cast<std::size_t>(f)] + logK(j, f) - largest);
        kernel[j] = w;
        sum += w;
    }
    return sum;
}

// Rows of one head's kernel values that the shifted features cannot give (row sum below kTrustedDoubleSum
// or not finite), computed again from log φ: only for maps with logRow, the keys' logs once per head.
class ExactKernelRows {
public:
    ExactKernelRows(const FeatureMap& map, int h, int g, std::int64_t n) : m_map(map), m_h(h), m_g(g), m_n(n) {}
    static bool trusted(double sum) { return sum >= kTrustedDoubleSum && std::isfinite(sum); }
    bool available() const { return static_cast<bool>(m_map.logRow); }
    // Row i's kernel values for j < keys into kernel (scaled by an unknown positive factor); their sum.
    double row(std::int64_t i, std::int64_t keys, double* kernel) {
        if (m_logK.size() == 0) m_logK = logFeatures(m_map, m_g, m_n, false);
        m_logQ.resize(static_cast<std::size_t>(m_map.features));
        m_map.logRow(m_h, i, true, m_logQ.data());
        return exactKernelRow(m_logQ, m_logK, keys, kernel);
    }

private:
    const FeatureMap& m_map;
    int m_h, m_g;
    std::int64_t m_n;
    DoubleRows m_logK;
    std::vector<double> m_logQ;
};

// out_i = Σ_j w_ij v_j / Σ_j w_ij (exactKernelRow) in double, for the rows the float path could not trust
// (their products fell out of float's range). O(|J_i|·m) per row.
void exactRows(const FeatureMap& map, int h, int g, const float* v, std::int64_t n, std::int64_t dv, bool causal,
               const std::vector<std::int64_t>& rows, float* out) {
    ExactKernelRows exact(map, h, g, n);
    std::vector<double> weight(static_cast<std::size_t>(n)), numerator;
    for (const std::int64_t i : rows) {
        const std::int64_t keys = causal ? i + 1 : n;
        const double denominator = exact.row(i, keys, weight.data());
        numerator.assign(static_cast<std::size_t>(dv), 0.0);
        for (std::int64_t j = 0; j < keys && denominator > 0; ++j)
            for (std::int64_t c = 0; c < dv; ++c) numerator[c] += weight[j] * v[j * dv + c];
        for (std::int64_t c = 0; c < dv; ++c) out[i * dv + c] = denominator > 0 ? static_cast<float>(numerator[c] / denominator) : 0.0f;
    }
}

// Query head h reading key/value head g, out [n, dv] (row-major). Bidirectional: state = Φ_Kᵀ V over all
// key chunks, then Φ_Q · state per chunk. Causal: per chunk, the masked intra-chunk product plus the state
// of the earlier chunks.
void featureMapHead(const FeatureMap& map, int h, int g, const float* v, std::int64_t n, std::int64_t dv, bool causal,
                    float* out) {
    thread_local ChunkWorkspace ws;
    const std::int64_t m = map.features, width = tile::paddedWidth(dv);
    const auto [queries, keys, keysT, local, numerator, state] = ws.reserve(m, width);
    std::vector<std::int64_t> untrustedRows; // allocates only when a row needs it
    std::vector<std::int64_t>* untrusted = map.logRow ? &untrustedRows : nullptr;
    float keyShift = -std::numeric_limits<float>::infinity();
    const auto nextValues = [&](std::int64_t row0, std::int64_t rows) {
        return std::pair<const float*, std::int64_t>{row0 < n ? v + row0 * dv : nullptr, std::min(rows, n - row0) * dv};
    };
    // Buffers are captured by copy (they are pointers): clang 14 cannot capture structured bindings.
    auto mapKeys = [&, keys = keys, state = state](std::int64_t row0, std::int64_t rows) {
        map.rows(g, row0, rows, false, keys);
        if (map.keys == KeyFeatures::Exponents) exponentiateKeys(keys, rows * m, keyShift, state, m * width, ws.keySum);
    };
    auto absorb = [&, keys = keys, state = state](std::int64_t row0, std::int64_t rows) { // state += Φ_K[rows]ᵀ V[rows], keys already mapped
        multiply(keys, 1, m, rows, v + row0 * dv, dv, state, width, m, dv, tile::Accumulate::Add, &ws.prefetch);
        for (std::int64_t j = 0; j < rows; ++j)
            for (std::int64_t f = 0; f < m; ++f) ws.keySum[static_cast<std::size_t>(f)] += keys[j * m + f];
    };
    if (!causal)
        for (std::int64_t c0 = 0; c0 < n; c0 += kChunk) {
            const std::int64_t rows = std::min(kChunk, n - c0);
            ws.queueNext({nextRows(map.keysRead, g, c0 + rows, kChunk), nextValues(c0 + rows, kChunk)});
            mapKeys(c0, rows);
            absorb(c0, rows);
            tile::requestRest(ws.prefetch);
        }
    const std::int64_t step = causal ? kCausalFeatureMapChunk : kChunk;
    for (std::int64_t c0 = 0; c0 < n; c0 += step) {
        const std::int64_t rows = std::min(step, n - c0);
        if (causal)
            ws.queueNext({nextRows(map.queriesRead, h, c0 + rows, step), nextRows(map.keysRead, g, c0 + rows, step),
                          nextValues(c0 + rows, step)});
        else
            ws.queueNext({nextRows(map.queriesRead, h, c0 + rows, step)});
        map.rows(h, c0, rows, true, queries);
        if (!causal) {
            multiply(queries, m, 1, m, state, width, numerator, width, rows, dv, tile::Accumulate::Overwrite, &ws.prefetch);
            writeNormalised(queries, ws.keySum, nullptr, numerator, width, c0, rows, m, dv, out + c0 * dv, untrusted);
            tile::requestRest(ws.prefetch);
            continue;
        }
        mapKeys(c0, rows); // before the state is read: a raised shift rescales it
        transposeChunk(keys, rows, m, keysT);
        causalChunk(queries, keysT, v + c0 * dv, rows, m, dv, local, numerator, width, ws.rowSums.data(), &ws.prefetch);
        multiply(queries, m, 1, m, state, width, numerator, width, rows, dv, tile::Accumulate::Add, &ws.prefetch);
        writeNormalised(queries, ws.keySum, ws.rowSums.data(), numerator, width, c0, rows, m, dv, out + c0 * dv, untrusted);
        absorb(c0, rows);
        tile::requestRest(ws.prefetch);
    }
    tile::storeFence();
    if (!untrustedRows.empty()) exactRows(map, h, g, v, n, dv, causal, untrustedRows, out);
}

// Φ_Q or Φ_K of one whole head, n × m in double (the reference path and the weights need them all at once).
// Exponent keys are exponentiated in double against the head's largest: a causal row whose keys all sit
// far below the head's last ones would lose them all to float's range. With map.logRow, every row comes
// from log φ: a query row scaled by its own largest feature, the keys by the head's largest.
DoubleRows headFeatures(const FeatureMap& map, int h, std::int64_t n, bool query) {
    if (map.logRow) {
        DoubleRows logs = logFeatures(map, h, n, query);
        for (Eigen::Index i = 0; i < logs.rows() && query; ++i) {
            const double largest = logs.row(i).maxCoeff(); // −inf for an all-zero φ: the row stays 0
            logs.row(i) = (logs.row(i).array() - (std::isfinite(largest) ? largest : 0.0)).exp().matrix();
        }
        if (!query && logs.size() > 0) {
            const double largest = logs.maxCoeff();
            logs = (logs.array() - (std::isfinite(largest) ? largest : 0.0)).exp().matrix();
        }
        return logs;
    }
    RowMatrix rows(n, map.features);
    map.rows(h, 0, n, query, rows.data());
    DoubleRows phi = rows.cast<double>();
    if (!query && map.keys == KeyFeatures::Exponents && phi.size() > 0) phi = (phi.array() - phi.maxCoeff()).exp();
    return phi;
}

// Effective weights of one head: W_ij = φ(q_i)·φ(k_j) / Σ_{j'∈J_i} φ(q_i)·φ(k_j'), a zero row for a zero sum.
void featureMapWeights(const DoubleRows& phiQ, const DoubleRows& phiK, bool causal, ExactKernelRows& exact, RowMap w) {
    DoubleRows products = phiQ * phiK.transpose();
    if (causal) products.triangularView<Eigen::StrictlyUpper>().setZero();
    // The row sum runs in a fixed order: Eigen's vectorised sum would depend on the buffer's alignment,
    // and the same inputs must give the same bits wherever the weights buffer happens to live.
    for (Eigen::Index r = 0; r < products.rows(); ++r) {
        double total = std::accumulate(products.row(r).data(), products.row(r).data() + products.cols(), 0.0);
        if (!ExactKernelRows::trusted(total) && exact.available())
            total = exact.row(r, causal ? r + 1 : products.cols(), products.row(r).data());
        if (total != 0.0)
            w.row(r) = (products.row(r) / total).cast<float>();
        else
            w.row(r).setZero();
    }
}

// Query head h (out, weights) reading key/value head g of v.
void featureMapHeadReference(const DoubleRows& phiQ, const DoubleRows& phiK, ExactKernelRows& exact, const Tensor3& v, int h,
                             int g, bool causal, Tensor3& out, Tensor3* weights) {
    const std::int64_t n = phiQ.rows(), m = phiQ.cols(), dv = v.cols;
    for (std::int64_t i = 0; i < n; ++i) {
        std::vector<double> kernel(static_cast<std::size_t>(n), 0.0);
        double total = 0;
        for (std::int64_t j = 0; j < (causal ? i + 1 : n); ++j) {
            for (std::int64_t f = 0; f < m; ++f) kernel[j] += phiQ(i, f) * phiK(j, f);
            total += kernel[j];
        }
        if (!ExactKernelRows::trusted(total) && exact.available()) total = exact.row(i, causal ? i + 1 : n, kernel.data());
        for (std::int64_t c = 0; c < dv; ++c) {
            double acc = 0;
            for (std::int64_t j = 0; j < n; ++j) acc += kernel[j] * v.at(g, j, c);
            out.at(h, i, c) = total != 0 ? static_cast<float>(acc / total) : 0.0f;
        }
        if (weights)
            for (std::int64_t j = 0; j < n; ++j)
                weights->at(h, i, j) = total != 0 ? static_cast<float>(kernel[j] / total) : 0.0f;
    }
}

} // namespace

double featureMapWorkspaceBytes(double features, double dv) {
    const auto chunk = static_cast<double>(kChunk), width = static_cast<double>(tile::paddedWidth(static_cast<std::int64_t>(dv)));
    return 4.0 * (3.0 * chunk * features + chunk * chunk + chunk * width + features * width);
}

RunResult runFeatureMapAttention(const FeatureMap& map, const AttentionInputs& inputs, const RunOptions& options) {
    const Tensor3& v = *inputs.v;
    const std::int64_t n = v.rows;
    RunResult result = makeQueryResult(inputs, options);
    useSerialGemmEngine();
    result.cancelled = !runTasks(inputs.q->heads, options.threads, options.cancelled, [&](std::int64_t task) {
        const auto h = static_cast<int>(task);
        const int g = inputs.kvHead(h);
        Tensor3* weights = result.weights ? &*result.weights : nullptr;
        if (options.useReference || weights) {
            const DoubleRows phiQ = headFeatures(map, h, n, true), phiK = headFeatures(map, g, n, false);
            ExactKernelRows exact(map, h, g, n);
            if (options.useReference) {
                featureMapHeadReference(phiQ, phiK, exact, v, h, g, options.causal, result.out, weights);
                return;
            }
            featureMapWeights(phiQ, phiK, options.causal, exact, RowMap(weights->head(h), n, n));
        }
        featureMapHead(map, h, g, v.head(g), n, v.cols, options.causal, result.out.head(h));
    });
    return result;
}

} // namespace attnlab
