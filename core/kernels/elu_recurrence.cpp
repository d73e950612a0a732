#include "core/kernels/elu_recurrence.h"

#include "core/jobs/parallel_tasks.h"
#include "core/kernels/run_result.h"

#include <algorithm>
#include <cmath>
#include <vector>

namespace attnlab {

namespace {

float eluPlusOne(float x) { return x > 0 ? x + 1.0f : std::exp(x); }

void eluRecurrenceHead(const Tensor3& q, const Tensor3& k, const Tensor3& v, int h, int g, bool causal, Tensor3& out) {
    const std::int64_t n = q.rows, d = q.cols, dv = v.cols;
    std::vector<float> state(static_cast<std::size_t>(d * dv), 0.0f), keySum(static_cast<std::size_t>(d), 0.0f);
    std::vector<float> phi(static_cast<std::size_t>(d));
    auto absorb = [&](std::int64_t j) {
        const float* kj = k.row(g, j);
        const float* vj = v.row(g, j);
        for (std::int64_t f = 0; f < d; ++f) {
            const float feature = eluPlusOne(kj[f]);
            keySum[f] += feature;
            float* row = state.data() + f * dv;
            for (std::int64_t c = 0; c < dv; ++c) row[c] += feature * vj[c];
        }
    };
    auto emit = [&](std::int64_t i) {
        const float* qi = q.row(h, i);
        float denominator = 0;
        for (std::int64_t f = 0; f < d; ++f) denominator += (phi[f] = eluPlusOne(qi[f])) * keySum[f];
        float* o = out.row(h, i);
        std::fill(o, o + dv, 0.0f);
        for (std::int64_t f = 0; f < d; ++f) {
            const float* row = state.data() + f * dv;
            for (std::int64_t c = 0; c < dv; ++c) o[c] += phi[f] * row[c];
        }
        const float scale = denominator != 0 ? 1.0f / denominator : 0.0f;
        for (std::int64_t c = 0; c < dv; ++c) o[c] *= scale;
    };
    if (!causal)
        for (std::int64_t j = 0; j < n; ++j) absorb(j);
    for (std::int64_t i = 0; i < n; ++i) {
        if (causal) absorb(i);
        emit(i);
    }
}

} // namespace

RunResult runEluRecurrence(const AttentionInputs& inputs, const RunOptions& options) {
    RunOptions withoutWeights = options;
    withoutWeights.wantWeights = false;
    RunResult result = makeQueryResult(inputs, withoutWeights);
    result.cancelled = !runTasks(inputs.q->heads, options.threads, options.cancelled, [&](std::int64_t task) {
        const auto h = static_cast<int>(task);
        eluRecurrenceHead(*inputs.q, *inputs.k, *inputs.v, h, inputs.kvHead(h), options.causal, result.out);
    });
    return result;
}

} // namespace attnlab
