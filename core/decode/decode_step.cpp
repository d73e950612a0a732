// FLASH mixed chunk's decoding step (makeMixedChunkStep, core/decode/decode_step.h).
#include "core/decode/decode_step.h"

#include "core/jobs/parallel_tasks.h"

#include <algorithm>

namespace attnlab {

namespace {

// S += k vᵀ for one token (d × dv, row-major); in and out may be the same.
void addOuterProduct(const float* state, const float* k, const float* v, std::int64_t d, std::int64_t dv, float* out) {
    for (std::int64_t f = 0; f < d; ++f)
        for (std::int64_t c = 0; c < dv; ++c) out[f * dv + c] = state[f * dv + c] + k[f] * v[c];
}

class MixedChunkStep : public DecodeStep {
public:
    MixedChunkStep(const AttentionInputs& context, std::int64_t chunk, const DecodeOptions& options)
        : m_context(context), m_chunk(chunk), m_threads(options.threads) {
        const std::int64_t n = context.v->rows, d = context.q->cols, dv = context.v->cols;
        MaskedRowSpec spec;
        spec.patterns = sharedPattern(blockLocalPattern(n, chunk, true));
        spec.scoring.kind = MaskedScoring::Kind::ReluSquared;
        spec.scoring.normalizer = static_cast<double>(chunk) * static_cast<double>(d);
        m_quad = makeMaskedRowStep(context, std::move(spec), options);
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
        const std::int64_t n = m_context.v->rows, d = m_context.q->cols, dv = m_context.v->cols;
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
            const float* q = m_context.q->row(static_cast<int>(t), m_context.q->rows - 1);
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

std::unique_ptr<DecodeStep> makeMixedChunkStep(const AttentionInputs& context, std::int64_t chunk, const DecodeOptions& options) {
    return std::make_unique<MixedChunkStep>(context, chunk, options);
}

} // namespace attnlab
