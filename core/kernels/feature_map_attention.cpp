#include "core/kernels/feature_map_attention.h"

#include "core/kernels/gemm.h"
#include "core/kernels/tile_math.h"
#include "core/parallel_tasks.h"
#include "core/run_result.h"

#include <Eigen/Core>
#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>
#include <utility>

namespace attnlab {

namespace {

using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
using ConstRowMap = Eigen::Map<const RowMatrix>;
using RowMap = Eigen::Map<RowMatrix>;

constexpr std::int64_t kChunk = kFeatureMapChunk;

// One chunk's buffers, m features wide (φ of Q and K for the feature maps, softmax(q)/Z and e^(k−M)
// for efficient attention), rows padded to whole vectors where they are products' outputs.
struct ChunkBuffers {
    float* queries;   // [kChunk][m]
    float* keys;      // [kChunk][m]
    float* keysT;     // [m][kChunk]: the chunk's keys transposed
    float* local;     // [kChunk][kChunk]: queries · keysᵀ, masked to j ≤ i
    float* numerator; // [kChunk][padded dv]
    float* state;     // [m][padded dv]: Σ key_j v_jᵀ over the keys absorbed so far, zeroed by reserve()
};

// Rows [row0, row0 + rows) of head `head` of t, as a range for queueNext (nothing past the last row or
// without a tensor).
std::pair<const float*, std::int64_t> nextRows(const Tensor3* t, int head, std::int64_t row0, std::int64_t rows) {
    const std::int64_t count = t ? std::min(rows, t->rows - row0) : 0;
    return {count > 0 ? t->row(head, row0) : nullptr, count * (t ? t->cols : 0)};
}

// One thread's chunk buffers, kept between calls (freshly mapped pages are slow to touch).
struct ChunkWorkspace {
    tile::AlignedBuffer queries, keys, keysT, local, numerator, state;
    std::vector<float> keySum;  // [m]: Σ of the absorbed keys (feature maps), Z_m (efficient)
    std::vector<float> keyMax;  // [m]: efficient attention's running max M_m of column m of K
    std::vector<float> rowSums; // [kChunk]: row sums of `local`
    std::vector<const char*> prefetchLines; // the next chunk's input lines, requested as the products run
    tile::PrefetchQueue prefetch;

    // Queues the input rows the next chunk reads, given as (first float, count) ranges (a null first is
    // skipped), for this chunk's products to request so that they arrive while it computes; the
    // hardware prefetcher would only start on them once the chunk reads them.
    void queueNext(std::initializer_list<std::pair<const float*, std::int64_t>> ranges) {
        prefetchLines.clear();
        for (const auto& [first, count] : ranges)
            if (first) tile::queueLines(prefetchLines, first, count);
        prefetch = {prefetchLines.data(), prefetchLines.data() + prefetchLines.size()};
    }

    ChunkBuffers reserve(std::int64_t m, std::int64_t width) {
        const auto chunk = static_cast<std::size_t>(kChunk), features = static_cast<std::size_t>(m);
        const auto rowWidth = static_cast<std::size_t>(width);
        ChunkBuffers buffers{queries.reserve(chunk * features),    keys.reserve(chunk * features),
                             keysT.reserve(features * chunk),      local.reserve(chunk * chunk),
                             numerator.reserve(chunk * rowWidth), state.reserve(features * rowWidth)};
        std::fill(buffers.state, buffers.state + features * rowWidth, 0.0f);
        keySum.assign(features, 0.0f);
        rowSums.resize(chunk);
        return buffers;
    }
};


std::int64_t padded(std::int64_t width) { return (width + tile::kLanes - 1) / tile::kLanes * tile::kLanes; }

// rows × width product into `c` (row stride cStride): A given by pointer and strides, B row-major.
void multiply(const float* a, std::int64_t aRowStride, std::int64_t aDepthStride, std::int64_t depth, const float* b,
              std::int64_t bStride, float* c, std::int64_t cStride, std::int64_t rows, std::int64_t width,
              tile::Accumulate mode, tile::PrefetchQueue* prefetch = nullptr) {
    tile::TileProduct product;
    product.prefetch = prefetch;
    product.depth = depth;
    product.a = a;
    product.aRowStride = aRowStride;
    product.aDepthStride = aDepthStride;
    product.b = b;
    product.bRowStride = bStride;
    product.c = c;
    product.cRowStride = cStride;
    product.mode = mode;
    tile::multiplyBlock(product, rows, width);
}

// dst[f][j] = src[j][f] for j < rows, f < m: the chunk's features transposed (dst row stride kChunk).
void transposeChunk(const float* src, std::int64_t rows, std::int64_t m, float* dst) {
    const std::int64_t wholeRows = rows / 16 * 16, wholeFeatures = m / 16 * 16;
    for (std::int64_t j = 0; j < wholeRows; j += 16)
        for (std::int64_t f = 0; f < wholeFeatures; f += 16) tile::transpose16(src + j * m + f, m, dst + f * kChunk + j, kChunk);
    for (std::int64_t f = 0; f < m; ++f)
        for (std::int64_t j = f < wholeFeatures ? wholeRows : 0; j < rows; ++j) dst[f * kChunk + j] = src[j * m + f];
}

// The intra-chunk part of a causal chunk: numerator = (Q_c K_cᵀ masked to j ≤ i) V_c, and the masked
// rows' sums into rowSums (if given). Works in stripes of kTileRows queries, each computing only the key
// columns up to its last row, so the masked upper triangle costs (almost) nothing.
// queries [rows][m], keysT [m][kChunk], v [rows][dv]; local [kChunk][kChunk], numerator [kChunk][width].
void causalChunk(const float* queries, const float* keysT, const float* v, std::int64_t rows, std::int64_t m,
                 std::int64_t dv, float* local, float* numerator, std::int64_t width, float* rowSums,
                 tile::PrefetchQueue* prefetch) {
    for (std::int64_t r0 = 0; r0 < rows; r0 += tile::kTileRows) {
        const std::int64_t r1 = std::min<std::int64_t>(rows, r0 + tile::kTileRows);
        multiply(queries + r0 * m, m, 1, m, keysT, kChunk, local + r0 * kChunk, kChunk, r1 - r0, r1,
                 tile::Accumulate::Overwrite, prefetch);
        for (std::int64_t r = r0; r < r1; ++r) {
            std::fill(local + r * kChunk + r + 1, local + r * kChunk + r1, 0.0f);
            if (rowSums) rowSums[r] = tile::sum(local + r * kChunk, r + 1);
        }
        multiply(local + r0 * kChunk, kChunk, 1, r1, v, dv, numerator + r0 * width, width, r1 - r0, dv,
                 tile::Accumulate::Overwrite, prefetch);
    }
}

// out_i = φ(q_i)ᵀ state_i / φ(q_i)ᵀ keySum_i for the rows of one chunk, from the numerator buffer. Rows
// of whole vectors on aligned storage go to memory with non-temporal stores (nothing reads them again
// here, and a normal store would first read each cold line in); featureMapHead fences them.
void writeNormalised(const float* phiQ, const std::vector<float>& keySum, const float* localRowSums,
                     const float* numerator, std::int64_t stride, std::int64_t rows, std::int64_t m, std::int64_t dv,
                     float* out) {
    const bool stream = tile::streamable(out, dv);
    for (std::int64_t r = 0; r < rows; ++r) {
        const float denominator = (localRowSums ? localRowSums[r] : 0.0f) + tile::dot(phiQ + r * m, keySum.data(), m);
        const float scale = denominator != 0.0f ? 1.0f / denominator : 0.0f;
        if (stream)
            tile::streamScaledCopy(numerator + r * stride, dv, scale, out + r * dv);
        else
            tile::scaledCopy(numerator + r * stride, dv, scale, out + r * dv, dv);
    }
}

// Query head h reading key/value head g, out [n, dv] (row-major). Bidirectional: state = Φ_Kᵀ V over all
// key chunks, then Φ_Q · state per chunk. Causal: per chunk, the masked intra-chunk product plus the state
// of the earlier chunks.
void featureMapHead(const FeatureMap& map, int h, int g, const float* v, std::int64_t n, std::int64_t dv, bool causal,
                    float* out) {
    thread_local ChunkWorkspace ws;
    const std::int64_t m = map.features, width = padded(dv);
    const auto [queries, keys, keysT, local, numerator, state] = ws.reserve(m, width);
    const auto nextValues = [&](std::int64_t row0, std::int64_t rows) {
        return std::pair<const float*, std::int64_t>{row0 < n ? v + row0 * dv : nullptr, std::min(rows, n - row0) * dv};
    };
    // Buffers are captured by copy (they are pointers): clang 14 cannot capture structured bindings.
    auto absorb = [&, keys = keys, state = state](std::int64_t row0, std::int64_t rows) { // state += Φ_K[rows]ᵀ V[rows], keys already mapped
        multiply(keys, 1, m, rows, v + row0 * dv, dv, state, width, m, dv, tile::Accumulate::Add, &ws.prefetch);
        for (std::int64_t j = 0; j < rows; ++j)
            for (std::int64_t f = 0; f < m; ++f) ws.keySum[static_cast<std::size_t>(f)] += keys[j * m + f];
    };
    if (!causal)
        for (std::int64_t c0 = 0; c0 < n; c0 += kChunk) {
            const std::int64_t rows = std::min(kChunk, n - c0);
            ws.queueNext({nextRows(map.keysRead, g, c0 + rows, kChunk), nextValues(c0 + rows, kChunk)});
            map.rows(g, c0, rows, false, keys);
            absorb(c0, rows);
            tile::requestQueued(ws.prefetch, ws.prefetch.end - ws.prefetch.next); // what the products left
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
            writeNormalised(queries, ws.keySum, nullptr, numerator, width, rows, m, dv, out + c0 * dv);
            tile::requestQueued(ws.prefetch, ws.prefetch.end - ws.prefetch.next); // what the products left
            continue;
        }
        map.rows(g, c0, rows, false, keys);
        transposeChunk(keys, rows, m, keysT);
        causalChunk(queries, keysT, v + c0 * dv, rows, m, dv, local, numerator, width, ws.rowSums.data(), &ws.prefetch);
        multiply(queries, m, 1, m, state, width, numerator, width, rows, dv, tile::Accumulate::Add, &ws.prefetch);
        writeNormalised(queries, ws.keySum, ws.rowSums.data(), numerator, width, rows, m, dv, out + c0 * dv);
        absorb(c0, rows);
        tile::requestQueued(ws.prefetch, ws.prefetch.end - ws.prefetch.next); // what the products left
    }
    tile::storeFence();
}

// Φ_Q or Φ_K of one whole head, [n, m] (the reference path and the weights need them all at once).
Tensor3 headFeatures(const FeatureMap& map, int h, std::int64_t n, bool query) {
    Tensor3 phi(1, n, map.features);
    map.rows(h, 0, n, query, phi.values.data());
    return phi;
}

// Effective weights of one head: W_ij = φ(q_i)·φ(k_j) / Σ_{j'∈J_i} φ(q_i)·φ(k_j'), a zero row for a zero sum.
void featureMapWeights(const Tensor3& phiQ, const Tensor3& phiK, bool causal, RowMap w) {
    const ConstRowMap q(phiQ.values.data(), phiQ.rows, phiQ.cols), k(phiK.values.data(), phiK.rows, phiK.cols);
    w.noalias() = q * k.transpose();
    if (causal) w.triangularView<Eigen::StrictlyUpper>().setZero();
    // The row sum runs in a fixed order: Eigen's vectorised sum would depend on the buffer's alignment,
    // and the same inputs must give the same bits wherever the weights buffer happens to live.
    for (Eigen::Index r = 0; r < w.rows(); ++r) {
        const float total = std::accumulate(w.row(r).data(), w.row(r).data() + w.cols(), 0.0f);
        if (total != 0.0f)
            w.row(r) /= total;
        else
            w.row(r).setZero();
    }
}

// Query head h (out, weights) reading key/value head g of v.
void featureMapHeadReference(const Tensor3& phiQ, const Tensor3& phiK, const Tensor3& v, int h, int g, bool causal,
                             Tensor3& out, Tensor3* weights) {
    const std::int64_t n = phiQ.rows, m = phiQ.cols, dv = v.cols;
    for (std::int64_t i = 0; i < n; ++i) {
        std::vector<double> kernel(static_cast<std::size_t>(n), 0.0);
        double total = 0;
        for (std::int64_t j = 0; j < (causal ? i + 1 : n); ++j) {
            for (std::int64_t f = 0; f < m; ++f) kernel[j] += static_cast<double>(phiQ.at(0, i, f)) * phiK.at(0, j, f);
            total += kernel[j];
        }
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

FeatureMap precomputedFeatures(const Tensor3& phiQ, const Tensor3& phiK) {
    FeatureMap map;
    map.queriesRead = &phiQ;
    map.keysRead = &phiK;
    map.features = phiQ.cols;
    map.rows = [&phiQ, &phiK](int h, std::int64_t row0, std::int64_t count, bool query, float* out) {
        const Tensor3& phi = query ? phiQ : phiK;
        std::copy(phi.row(h, row0), phi.row(h, row0) + count * phi.cols, out);
    };
    return map;
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
            const Tensor3 phiQ = headFeatures(map, h, n, true), phiK = headFeatures(map, g, n, false);
            if (options.useReference) {
                featureMapHeadReference(phiQ, phiK, v, h, g, options.causal, result.out, weights);
                return;
            }
            featureMapWeights(phiQ, phiK, options.causal, RowMap(weights->head(h), n, n));
        }
        featureMapHead(map, h, g, v.head(g), n, v.cols, options.causal, result.out.head(h));
    });
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
void efficientHead(const Tensor3& q, const Tensor3& k, const Tensor3& v, int h, int g, bool causal, Tensor3& out,
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
            const double x = k.at(g, j, m);
            if (x > best[m]) {
                const double rescale = std::exp(best[m] - x);
                total[m] *= rescale;
                for (std::int64_t c = 0; c < dv; ++c) acc[m * dv + c] *= rescale;
                best[m] = x;
            }
            const double e = std::exp(x - best[m]);
            total[m] += e;
            for (std::int64_t c = 0; c < dv; ++c) acc[m * dv + c] += e * v.at(g, j, c);
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
                w += queryWeights[i * d + m] * std::exp(k.at(g, j, m) - best[m]) / total[m];
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

// Softmax over the d features of each of `rows` query rows, into out.
void featureSoftmax(const float* q, std::int64_t rows, std::int64_t d, float* out) {
    for (std::int64_t r = 0; r < rows; ++r, q += d, out += d) {
        std::copy(q, q + d, out);
        tile::exp2Shifted(out, d, *std::max_element(q, q + d), std::numbers::log2e_v<float>);
        const float total = std::accumulate(out, out + d, 0.0f);
        for (std::int64_t m = 0; m < d; ++m) out[m] /= total;
    }
}

// Efficient attention of one head in chunks. Per feature m the keys' softmax is kept unnormalised
// against a running max M_m (state Σ e_jm v_j and sum Z_m, both rescaled when M_m grows), so
//   out_i = Σ_m σ(q_i)_m / Z_m(i) · Σ_{j∈J_i} e_jm v_j,
// which per chunk is (Q̃ Eᵀ masked to j ≤ i) V + Q̃ · state with Q̃_im = σ(q_i)_m / Z_m(i). A chunk's
// exponentials use the max through the chunk's last key, a shift common to the rows of the chunk that
// cancels in the ratio. Bidirectional absorbs every key first and reads the final state.
void efficientHeadChunked(const Tensor3& q, const Tensor3& k, const Tensor3& v, int h, int g, bool causal, Tensor3& out) {
    thread_local ChunkWorkspace ws;
    const std::int64_t n = q.rows, d = q.cols, dv = v.cols, width = padded(dv);
    const auto [queries, keys, keysT, local, numerator, state] = ws.reserve(d, width);
    ws.keyMax.assign(static_cast<std::size_t>(d), -std::numeric_limits<float>::infinity());
    // Raises M_m to cover the chunk's keys (rescaling state and Z) and writes e_jm into `keys`.
    auto exponentiate = [&, keys = keys, state = state](std::int64_t row0, std::int64_t rows) {
        for (std::int64_t m = 0; m < d; ++m) {
            float chunkMax = ws.keyMax[static_cast<std::size_t>(m)];
            for (std::int64_t j = 0; j < rows; ++j) chunkMax = std::max(chunkMax, k.at(g, row0 + j, m));
            const float previous = ws.keyMax[static_cast<std::size_t>(m)];
            if (chunkMax > previous && previous > -std::numeric_limits<float>::infinity()) {
                const float factor = std::exp(previous - chunkMax);
                ws.keySum[static_cast<std::size_t>(m)] *= factor;
                for (std::int64_t c = 0; c < dv; ++c) state[m * width + c] *= factor;
            }
            ws.keyMax[static_cast<std::size_t>(m)] = chunkMax;
        }
        for (std::int64_t j = 0; j < rows; ++j) {
            const float* kj = k.row(g, row0 + j);
            for (std::int64_t m = 0; m < d; ++m) keys[j * d + m] = kj[m] - ws.keyMax[static_cast<std::size_t>(m)];
            tile::exp2Shifted(keys + j * d, d, 0.0f, std::numbers::log2e_v<float>);
        }
    };
    auto absorb = [&, keys = keys, state = state](std::int64_t row0, std::int64_t rows) { // state += Eᵀ V, Z += Σ_j e_j
        multiply(keys, 1, d, rows, v.row(g, row0), dv, state, width, d, dv, tile::Accumulate::Add, &ws.prefetch);
        for (std::int64_t j = 0; j < rows; ++j)
            for (std::int64_t m = 0; m < d; ++m) ws.keySum[static_cast<std::size_t>(m)] += keys[j * d + m];
    };
    auto divide = [&, queries = queries](std::int64_t r, const float* sums) { // Q̃ row r = σ(q) / Z (0 where Z is 0)
        for (std::int64_t m = 0; m < d; ++m) queries[r * d + m] = sums[m] > 0.0f ? queries[r * d + m] / sums[m] : 0.0f;
    };
    if (!causal)
        for (std::int64_t c0 = 0; c0 < n; c0 += kChunk) {
            const std::int64_t rows = std::min(kChunk, n - c0);
            ws.queueNext({nextRows(&k, g, c0 + rows, kChunk), nextRows(&v, g, c0 + rows, kChunk)});
            exponentiate(c0, rows);
            absorb(c0, rows);
            tile::requestQueued(ws.prefetch, ws.prefetch.end - ws.prefetch.next); // what the products left
        }
    std::vector<float> prefix(static_cast<std::size_t>(d));
    const std::int64_t step = causal ? kCausalFeatureMapChunk : kChunk;
    for (std::int64_t c0 = 0; c0 < n; c0 += step) {
        const std::int64_t rows = std::min(step, n - c0);
        if (causal)
            ws.queueNext({nextRows(&q, h, c0 + rows, step), nextRows(&k, g, c0 + rows, step), nextRows(&v, g, c0 + rows, step)});
        else
            ws.queueNext({nextRows(&q, h, c0 + rows, step)});
        featureSoftmax(q.row(h, c0), rows, d, queries);
        if (!causal) {
            for (std::int64_t r = 0; r < rows; ++r) divide(r, ws.keySum.data());
            multiply(queries, d, 1, d, state, width, numerator, width, rows, dv, tile::Accumulate::Overwrite, &ws.prefetch);
        } else {
            exponentiate(c0, rows);
            std::copy(ws.keySum.begin(), ws.keySum.end(), prefix.begin());
            for (std::int64_t r = 0; r < rows; ++r) {
                for (std::int64_t m = 0; m < d; ++m) prefix[static_cast<std::size_t>(m)] += keys[r * d + m];
                divide(r, prefix.data());
            }
            transposeChunk(keys, rows, d, keysT);
            causalChunk(queries, keysT, v.row(g, c0), rows, d, dv, local, numerator, width, nullptr, &ws.prefetch);
            multiply(queries, d, 1, d, state, width, numerator, width, rows, dv, tile::Accumulate::Add, &ws.prefetch);
            absorb(c0, rows);
        }
        float* o = out.row(h, c0);
        for (std::int64_t r = 0; r < rows; ++r) std::copy(numerator + r * width, numerator + r * width + dv, o + r * dv);
        tile::requestQueued(ws.prefetch, ws.prefetch.end - ws.prefetch.next); // what the products left
    }
}

} // namespace

RunResult runEfficientAttention(const AttentionInputs& inputs, const RunOptions& options) {
    RunResult result = makeQueryResult(inputs, options);
    result.cancelled = !runTasks(inputs.q->heads, options.threads, options.cancelled, [&](std::int64_t task) {
        const auto h = static_cast<int>(task);
        const int g = inputs.kvHead(h);
        // The weights come from the per-token form, which also is the reference.
        if (options.useReference || result.weights)
            efficientHead(*inputs.q, *inputs.k, *inputs.v, h, g, options.causal, result.out,
                          result.weights ? &*result.weights : nullptr);
        else
            efficientHeadChunked(*inputs.q, *inputs.k, *inputs.v, h, g, options.causal, result.out);
    });
    return result;
}

} // namespace attnlab
