// Shen et al.'s "efficient attention" (linear, kernel=efficient): the per-token reference and the
// chunked fast path, which shares the linear kernels' chunk buffers and products.
#include "core/jobs/parallel_tasks.h"
#include "core/kernels/feature_map_attention.h"
#include "core/kernels/feature_map_chunks.h"
#include "core/kernels/run_result.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>
#include <numeric>

namespace attnlab {

namespace {

using namespace featurechunks;

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
    const std::int64_t n = q.rows, d = q.cols, dv = v.cols, width = tile::paddedWidth(dv);
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
            tile::requestRest(ws.prefetch);
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
        tile::requestRest(ws.prefetch);
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
