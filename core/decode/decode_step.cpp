#include "core/decode/decode_step.h"

#include "core/jobs/parallel_tasks.h"
#include "core/kernels/tile_math.h"

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

constexpr double kLog2E = 1.4426950408889634;
// Cached values per tiled product: 256 rows of dv = 128 floats (128 KiB) stay in L2 while the product's
// column tiles pass over them.
constexpr std::int64_t kValueBlock = 256;

// Σ x[e] in 16 interleaved partial sums (a fixed order for a given count).
float sumOf(const float* x, std::int64_t count) {
    float partial[tile::kLanes] = {};
    std::int64_t e = 0;
    for (; e + tile::kLanes <= count; e += tile::kLanes)
        for (int lane = 0; lane < tile::kLanes; ++lane) partial[lane] += x[e + lane];
    float total = 0.0f;
    for (; e < count; ++e) total += x[e];
    for (const float value : partial) total += value;
    return total;
}

class MaskedRowStep : public DecodeStep {
public:
    MaskedRowStep(const AttentionInputs& context, MaskedRowSpec spec, int threads)
        : m_context(context), m_spec(std::move(spec)), m_threads(threads) {
        if (!m_spec.relativePositions.empty()) m_spec.scoring.relativePositions = &m_spec.relativePositions;
        const std::int64_t last = context.q->rows - 1;
        m_columns.resize(m_spec.patterns.size());
        for (std::size_t p = 0; p < m_spec.patterns.size(); ++p) m_spec.patterns[p]->rowRanges(last, m_columns[p]);
    }

    // A key/value head's query heads run together when they share its keys and the pattern, so each
    // cached key and value is read once per group (decoding is bound by reading the cache); with fewer
    // key/value heads than threads the query heads run one by one, in parallel.
    void run(float* out) override {
        const int heads = m_context.q->heads, kvHeads = m_context.v->heads;
        const bool together = m_columns.size() == 1 && !m_spec.ownKeys && kvHeads >= m_threads;
        const int members = together ? heads / kvHeads : 1;
        runTasks(heads / members, m_threads, {}, [&](std::int64_t task) {
            const int first = static_cast<int>(task) * members;
            rowsOfHeads(first, members, out + first * m_context.v->cols);
        });
    }

private:
    // Row n − 1 of query heads [first, first + count), which read one key head, one value head and one
    // column list; out holds their count rows of dv. One pass over the cached keys scores every head of
    // the group (each key is loaded once); the weighted sum over V is a register-tiled product of the
    // group's weights with blocks of kValueBlock cached values, so each value row is read from memory once.
    void rowsOfHeads(int first, int count, float* out) const {
        const Tensor3& q = *m_context.q;
        const Tensor3& keys = m_spec.ownKeys ? *m_spec.ownKeys : *m_context.k;
        const int keyHead = m_spec.ownKeys ? first : m_context.kvHead(first), valueHead = m_context.kvHead(first);
        const std::int64_t i = q.rows - 1, d = q.cols, dv = m_context.v->cols;
        const auto& ranges = m_columns[m_columns.size() == 1 ? 0 : static_cast<std::size_t>(first)];
        const MaskedScoring& scoring = m_spec.scoring;
        std::int64_t length = 0;
        for (const ColumnRange& range : ranges) length += range.size();
        thread_local tile::AlignedBuffer weightBuffer, sumBuffer; // [count][length], [count][dv padded]
        float* weights = weightBuffer.reserve(static_cast<std::size_t>(count * length));
        std::int64_t e = 0;
        for (const ColumnRange& range : ranges)
            for (std::int64_t j = range.begin; j < range.end; ++j, ++e) {
                const float* key = keys.row(keyHead, j);
                for (int r = 0; r < count; ++r) {
                    const float* query = q.row(first + r, i);
                    float s = tile::dot(query, key, d);
                    if (scoring.relativePositions) s += tile::dot(query, scoring.relativePositions->data() + (i - j) * d, d);
                    weights[r * length + e] = s;
                }
            }
        std::vector<float> totals(static_cast<std::size_t>(count), 1.0f);
        for (int r = 0; r < count; ++r) {
            float* w = weights + r * length;
            if (length == 0) continue;
            if (scoring.kind == MaskedScoring::Kind::Softmax) {
                tile::exp2Shifted(w, length, *std::max_element(w, w + length), static_cast<float>(scoring.scale * kLog2E));
                totals[static_cast<std::size_t>(r)] = sumOf(w, length);
            } else {
                for (std::int64_t c = 0; c < length; ++c) w[c] = w[c] > 0.0f ? w[c] * w[c] / static_cast<float>(scoring.normalizer) : 0.0f;
            }
        }
        const std::int64_t padded = tile::paddedWidth(dv);
        float* sums = sumBuffer.reserve(static_cast<std::size_t>(count * padded));
        std::fill(sums, sums + count * padded, 0.0f);
        e = 0;
        for (const ColumnRange& range : ranges)
            for (std::int64_t j = range.begin; j < range.end; j += kValueBlock) {
                const std::int64_t block = std::min(kValueBlock, range.end - j);
                tile::TileProduct product;
                product.depth = block;
                product.a = weights + e;
                product.aRowStride = length;
                product.aDepthStride = 1;
                product.b = m_context.v->row(valueHead, j);
                product.bRowStride = dv;
                product.c = sums;
                product.cRowStride = padded;
                product.mode = tile::Accumulate::Add;
                tile::multiplyBlock(product, count, dv);
                e += block;
            }
        for (int r = 0; r < count; ++r)
            for (std::int64_t c = 0; c < dv; ++c) out[r * dv + c] = sums[r * padded + c] / totals[static_cast<std::size_t>(r)];
    }

    AttentionInputs m_context;
    MaskedRowSpec m_spec;
    int m_threads;
    std::vector<std::vector<ColumnRange>> m_columns; // row n − 1 of each pattern
};

// S += k vᵀ for one token (d × dv, row-major); in and out may be the same.
void addOuterProduct(const float* state, const float* k, const float* v, std::int64_t d, std::int64_t dv, float* out) {
    for (std::int64_t f = 0; f < d; ++f)
        for (std::int64_t c = 0; c < dv; ++c) out[f * dv + c] = state[f * dv + c] + k[f] * v[c];
}

class MixedChunkStep : public DecodeStep {
public:
    MixedChunkStep(const AttentionInputs& context, std::int64_t chunk, int threads)
        : m_context(context), m_chunk(chunk), m_threads(threads) {
        const std::int64_t n = context.q->rows, d = context.q->cols, dv = context.v->cols;
        MaskedRowSpec spec;
        spec.patterns = sharedPattern(blockLocalPattern(n, chunk, true));
        spec.scoring.kind = MaskedScoring::Kind::ReluSquared;
        spec.scoring.normalizer = static_cast<double>(chunk) * static_cast<double>(d);
        m_quad = makeMaskedRowStep(context, std::move(spec), threads);
        m_chunkStart = (n - 1) / chunk * chunk;
        const int kvHeads = context.v->heads;
        m_state.assign(static_cast<std::size_t>(kvHeads * d * dv), 0.0f);
        m_next = m_state;
        for (int g = 0; g < kvHeads; ++g)
            for (std::int64_t j = 0; j < m_chunkStart; ++j) {
                float* s = m_state.data() + g * d * dv;
                addOuterProduct(s, context.k->row(g, j), context.v->row(g, j), d, dv, s);
            }
    }

    void run(float* out) override {
        m_quad->run(out);
        const std::int64_t n = m_context.q->rows, d = m_context.q->cols, dv = m_context.v->cols;
        if (n % m_chunk == 0) // the new token closes its chunk: the next chunk reads the state with it
            runTasks(m_context.v->heads, m_threads, {}, [&](std::int64_t g) {
                const float* s = m_state.data() + g * d * dv;
                float* next = m_next.data() + g * d * dv;
                std::copy(s, s + d * dv, next);
                for (std::int64_t j = m_chunkStart; j < n; ++j)
                    addOuterProduct(next, m_context.k->row(static_cast<int>(g), j), m_context.v->row(static_cast<int>(g), j), d, dv, next);
            });
        if (m_chunkStart == 0) return; // the first chunk has no linear part
        const auto scale = static_cast<float>(1.0 / static_cast<double>(m_chunkStart));
        runTasks(m_context.q->heads, m_threads, {}, [&](std::int64_t t) {
            const float* q = m_context.q->row(static_cast<int>(t), n - 1);
            const float* s = m_state.data() + m_context.kvHead(static_cast<int>(t)) * d * dv;
            float* o = out + t * dv;
            for (std::int64_t f = 0; f < d; ++f)
                for (std::int64_t c = 0; c < dv; ++c) o[c] += scale * q[f] * s[f * dv + c];
        });
    }

private:
    AttentionInputs m_context;
    std::int64_t m_chunk;
    int m_threads;
    std::unique_ptr<DecodeStep> m_quad;
    std::int64_t m_chunkStart = 0; // g·c of the new token
    std::vector<float> m_state;    // [h_kv][d][dv]: Σ_{j<g·c} k_j v_jᵀ
    std::vector<float> m_next;     // the state after the chunk, written when the new token closes it
};

} // namespace

std::unique_ptr<DecodeStep> makeMaskedRowStep(const AttentionInputs& context, MaskedRowSpec spec, int threads) {
    return std::make_unique<MaskedRowStep>(context, std::move(spec), threads);
}

std::unique_ptr<DecodeStep> makeMixedChunkStep(const AttentionInputs& context, std::int64_t chunk, int threads) {
    return std::make_unique<MixedChunkStep>(context, chunk, threads);
}

} // namespace attnlab
