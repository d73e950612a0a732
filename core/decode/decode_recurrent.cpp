// The recurrent decoding steps (core/decode/decode_step.h): linear attention through a feature map, and Shen et
// al.'s efficient attention. Each keeps a state per key/value head built from the tokens before the new
// one; a step writes the updated state into a second buffer, so the kept state stays as it was.
#include "core/decode/decode_step.h"

#include "core/jobs/parallel_tasks.h"
#include "core/kernels/gemm.h"
#include "core/kernels/tile_math.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab {

namespace {

// One key/value head's feature-map state: S (m × dv), z (m) and, for exponent keys, the shift M.
struct FeatureState {
    float* values;
    float* sums;
    float* shift;
};

// S' = r·S + φ vᵀ, z' = r·z + φ with r the rescale factor; `from` and `to` may be the same.
void absorbFeatures(const float* phi, const float* v, std::int64_t m, std::int64_t dv, float rescale, FeatureState from,
                    FeatureState to) {
    for (std::int64_t f = 0; f < m; ++f) {
        for (std::int64_t c = 0; c < dv; ++c) to.values[f * dv + c] = rescale * from.values[f * dv + c] + phi[f] * v[c];
        to.sums[f] = rescale * from.sums[f] + phi[f];
    }
}

class FeatureMapStep : public DecodeStep {
public:
    FeatureMapStep(const AttentionInputs& context, const FeatureMapOf& mapOf, int threads)
        : m_context(context), m_map(mapOf(m_context)), m_threads(threads) {
        useSerialGemmEngine(); // feature maps may multiply through Eigen inside the steps' parallel regions
        const std::int64_t m = m_map.features, dv = context.v->cols, last = context.v->rows - 1;
        const auto kvHeads = static_cast<std::size_t>(context.v->heads);
        m_state.assign(kvHeads * static_cast<std::size_t>(m * dv), 0.0f);
        m_sum.assign(kvHeads * static_cast<std::size_t>(m), 0.0f);
        m_shift.assign(kvHeads, -std::numeric_limits<float>::infinity());
        m_nextState = m_state;
        m_nextSum = m_sum;
        m_nextShift = m_shift;
        runTasks(context.v->heads, threads, {}, [&](std::int64_t g) {
            const FeatureState state = stateOf(m_state, m_sum, m_shift, g);
            for (std::int64_t j = 0; j < last; ++j) absorbKey(g, j, state, state);
        });
    }

    void run(float* out) override {
        const std::int64_t m = m_map.features, dv = m_context.v->cols, last = m_context.v->rows - 1;
        const std::int64_t query = m_context.q->rows - 1;
        runTasks(m_context.v->heads, m_threads, {}, [&](std::int64_t g) {
            absorbKey(g, last, stateOf(m_state, m_sum, m_shift, g), stateOf(m_nextState, m_nextSum, m_nextShift, g));
        });
        runTasks(m_context.q->heads, m_threads, {}, [&](std::int64_t t) {
            thread_local std::vector<float> phi;
            phi.resize(static_cast<std::size_t>(m));
            m_map.rows(static_cast<int>(t), query, 1, true, phi.data());
            const int g = m_context.kvHead(static_cast<int>(t));
            const float* state = m_nextState.data() + g * m * dv;
            const float denominator = tile::dot(phi.data(), m_nextSum.data() + g * m, m);
            float* o = out + t * dv;
            std::fill(o, o + dv, 0.0f);
            for (std::int64_t f = 0; f < m; ++f)
                for (std::int64_t c = 0; c < dv; ++c) o[c] += phi[f] * state[f * dv + c];
            const float scale = denominator != 0.0f ? 1.0f / denominator : 0.0f;
            for (std::int64_t c = 0; c < dv; ++c) o[c] *= scale;
        });
    }

private:
    FeatureState stateOf(std::vector<float>& values, std::vector<float>& sums, std::vector<float>& shifts, std::int64_t g) {
        const std::int64_t m = m_map.features, dv = m_context.v->cols;
        return {values.data() + g * m * dv, sums.data() + g * m, shifts.data() + g};
    }

    // Absorbs token j of key/value head g: φ(k_j), or for exponent keys e^{log φ(k_j) − M'} with the
    // shift raised to M' = max(M, max log φ(k_j)) and the old state rescaled by e^{M − M'}.
    void absorbKey(std::int64_t g, std::int64_t j, FeatureState from, FeatureState to) const {
        const std::int64_t m = m_map.features, dv = m_context.v->cols;
        thread_local std::vector<float> phi;
        phi.resize(static_cast<std::size_t>(m));
        m_map.rows(static_cast<int>(g), j, 1, false, phi.data());
        float rescale = 1.0f;
        if (m_map.keys == KeyFeatures::Exponents) {
            const float shift = std::max(*from.shift, *std::max_element(phi.begin(), phi.end()));
            rescale = *from.shift == -std::numeric_limits<float>::infinity() ? 0.0f : std::exp(*from.shift - shift);
            for (float& x : phi) x = std::exp(x - shift);
            *to.shift = shift;
        }
        absorbFeatures(phi.data(), m_context.v->row(static_cast<int>(g), j), m, dv, rescale, from, to);
    }

    AttentionInputs m_context;
    FeatureMap m_map;
    int m_threads;
    // [h_kv][m][dv], [h_kv][m], [h_kv]: S, z and (exponent keys) M over the tokens before the new one
    std::vector<float> m_state, m_sum, m_shift;
    std::vector<float> m_nextState, m_nextSum, m_nextShift; // the same with the new token
};

// One key/value head's efficient-attention state: A (d × dv), Z (d), M (d).
struct EfficientState {
    float* values;
    float* sums;
    float* maxima;
};

// Absorbs key k and value v: per feature the running max rises to cover k_m, rescaling A_m and Z_m.
// from and to may be the same.
void absorbKey(const float* k, const float* v, std::int64_t d, std::int64_t dv, EfficientState from, EfficientState to) {
    for (std::int64_t m = 0; m < d; ++m) {
        const float best = std::max(from.maxima[m], k[m]);
        const float rescale = from.maxima[m] == -std::numeric_limits<float>::infinity() ? 0.0f : std::exp(from.maxima[m] - best);
        const float e = std::exp(k[m] - best);
        for (std::int64_t c = 0; c < dv; ++c) to.values[m * dv + c] = from.values[m * dv + c] * rescale + e * v[c];
        to.sums[m] = from.sums[m] * rescale + e;
        to.maxima[m] = best;
    }
}

class EfficientStep : public DecodeStep {
public:
    EfficientStep(const AttentionInputs& context, int threads) : m_context(context), m_threads(threads) {
        const std::int64_t d = context.q->cols, dv = context.v->cols, last = context.v->rows - 1;
        const auto heads = static_cast<std::size_t>(context.v->heads);
        m_values.assign(heads * static_cast<std::size_t>(d * dv), 0.0f);
        m_sums.assign(heads * static_cast<std::size_t>(d), 0.0f);
        m_maxima.assign(heads * static_cast<std::size_t>(d), -std::numeric_limits<float>::infinity());
        m_nextValues = m_values;
        m_nextSums = m_sums;
        m_nextMaxima = m_maxima;
        runTasks(context.v->heads, threads, {}, [&](std::int64_t g) {
            const EfficientState state = stateOf(m_values, m_sums, m_maxima, g);
            for (std::int64_t j = 0; j < last; ++j)
                absorbKey(context.k->row(static_cast<int>(g), j), context.v->row(static_cast<int>(g), j), d, dv, state, state);
        });
    }

    void run(float* out) override {
        const std::int64_t d = m_context.q->cols, dv = m_context.v->cols, last = m_context.v->rows - 1;
        runTasks(m_context.v->heads, m_threads, {}, [&](std::int64_t g) {
            absorbKey(m_context.k->row(static_cast<int>(g), last), m_context.v->row(static_cast<int>(g), last), d, dv,
                      stateOf(m_values, m_sums, m_maxima, g), stateOf(m_nextValues, m_nextSums, m_nextMaxima, g));
        });
        runTasks(m_context.q->heads, m_threads, {}, [&](std::int64_t t) {
            const float* q = m_context.q->row(static_cast<int>(t), m_context.q->rows - 1);
            const EfficientState state = stateOf(m_nextValues, m_nextSums, m_nextMaxima, m_context.kvHead(static_cast<int>(t)));
            const float best = *std::max_element(q, q + d);
            float total = 0.0f;
            for (std::int64_t m = 0; m < d; ++m) total += std::exp(q[m] - best);
            float* o = out + t * dv;
            std::fill(o, o + dv, 0.0f);
            for (std::int64_t m = 0; m < d; ++m) {
                const float a = std::exp(q[m] - best) / total / state.sums[m];
                for (std::int64_t c = 0; c < dv; ++c) o[c] += a * state.values[m * dv + c];
            }
        });
    }

private:
    EfficientState stateOf(std::vector<float>& values, std::vector<float>& sums, std::vector<float>& maxima, std::int64_t g) {
        const std::int64_t d = m_context.q->cols, dv = m_context.v->cols;
        return {values.data() + g * d * dv, sums.data() + g * d, maxima.data() + g * d};
    }

    AttentionInputs m_context;
    int m_threads;
    std::vector<float> m_values, m_sums, m_maxima;             // over the tokens before the new one
    std::vector<float> m_nextValues, m_nextSums, m_nextMaxima; // with the new token
};

} // namespace

std::unique_ptr<DecodeStep> makeFeatureMapStep(const AttentionInputs& context, FeatureMapOf mapOf, int threads) {
    return std::make_unique<FeatureMapStep>(context, mapOf, threads);
}

std::unique_ptr<DecodeStep> makeEfficientStep(const AttentionInputs& context, int threads) {
    return std::make_unique<EfficientStep>(context, threads);
}

} // namespace attnlab
