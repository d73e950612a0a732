#include "core/masked_attention.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>

namespace attnlab {

RunResult makeResult(const AttentionInputs& inputs, bool wantWeights) {
    RunResult result;
    result.out = Tensor3(inputs.v->heads, inputs.v->rows, inputs.v->cols);
    if (wantWeights) result.weights = Tensor3(inputs.q->heads, inputs.q->rows, inputs.q->rows);
    return result;
}

namespace {

const Pattern& patternOf(const HeadPatterns& patterns, int head) {
    return *patterns[patterns.size() == 1 ? 0 : static_cast<std::size_t>(head)];
}

double dot(const float* a, const float* b, std::int64_t size) {
    double sum = 0;
    for (std::int64_t c = 0; c < size; ++c) sum += static_cast<double>(a[c]) * b[c];
    return sum;
}

float dotFloat(const float* a, const float* b, std::int64_t size) {
    float sum = 0;
    for (std::int64_t c = 0; c < size; ++c) sum += a[c] * b[c];
    return sum;
}

// Raw score of (i, j) before the softmax or relu²: scale · (q_i·k_j + q_i·R_{i−j}).
template <typename Dot>
double rawScore(const MaskedScoring& scoring, const float* q, const float* k, std::int64_t i, std::int64_t j,
                std::int64_t d, Dot dotProduct) {
    double s = dotProduct(q, k, d);
    if (scoring.relativePositions)
        s += dotProduct(q, scoring.relativePositions->data() + (i - j) * d, d);
    return s;
}

double reluSquared(double s) { return s > 0 ? s * s : 0.0; }

} // namespace

RunResult runMaskedAttention(const AttentionInputs& inputs, const HeadPatterns& patterns,
                             const MaskedScoring& scoring, const RunOptions& options) {
    RunResult result = makeResult(inputs, options.wantWeights);
    const Tensor3& q = *inputs.q;
    const Tensor3& k = *inputs.k;
    const Tensor3& v = *inputs.v;
    const std::int64_t n = q.rows, d = q.cols, dv = v.cols;
    const std::int64_t blocks = (n + kRowBlock - 1) / kRowBlock;
    const std::int64_t tasks = blocks * q.heads;
    std::atomic<bool> stop{false};
    const bool softmax = scoring.kind == MaskedScoring::Kind::Softmax;

#pragma omp parallel num_threads(std::max(1, options.threads))
    {
        std::vector<ColumnRange> ranges;
        std::vector<float> weights;
        std::vector<float> accumulator(static_cast<std::size_t>(dv));
#pragma omp for schedule(dynamic, 1)
        for (std::int64_t task = 0; task < tasks; ++task) {
            if (stop.load(std::memory_order_relaxed)) continue;
            if (options.cancelled && options.cancelled()) {
                stop = true;
                continue;
            }
            const int h = static_cast<int>(task / blocks);
            const Pattern& pattern = patternOf(patterns, h);
            const std::int64_t rowEnd = std::min(n, (task % blocks + 1) * kRowBlock);
            for (std::int64_t i = (task % blocks) * kRowBlock; i < rowEnd; ++i) {
                ranges.clear();
                pattern.rowRanges(i, ranges);
                const float* qi = q.row(h, i);
                weights.clear();
                float best = -std::numeric_limits<float>::infinity();
                for (const auto& r : ranges)
                    for (std::int64_t j = r.begin; j < r.end; ++j) {
                        const auto s = static_cast<float>(rawScore(scoring, qi, k.row(h, j), i, j, d, dotFloat));
                        weights.push_back(s);
                        best = std::max(best, s);
                    }
                double total = 0;
                for (float& w : weights) {
                    w = softmax ? std::exp(static_cast<float>(scoring.scale) * (w - best))
                                : static_cast<float>(reluSquared(w) / scoring.normalizer);
                    total += w;
                }
                const float norm = softmax ? static_cast<float>(1.0 / total) : 1.0f;
                std::fill(accumulator.begin(), accumulator.end(), 0.0f);
                std::size_t p = 0;
                float* wRow = result.weights ? result.weights->row(h, i) : nullptr;
                for (const auto& r : ranges)
                    for (std::int64_t j = r.begin; j < r.end; ++j, ++p) {
                        const float w = weights[p] * norm;
                        const float* vj = v.row(h, j);
                        for (std::int64_t c = 0; c < dv; ++c) accumulator[c] += w * vj[c];
                        if (wRow) wRow[j] = w;
                    }
                std::copy(accumulator.begin(), accumulator.end(), result.out.row(h, i));
            }
        }
    }
    result.cancelled = stop.load();
    return result;
}

RunResult runMaskedAttentionReference(const AttentionInputs& inputs, const HeadPatterns& patterns,
                                      const MaskedScoring& scoring, const RunOptions& options) {
    RunResult result = makeResult(inputs, options.wantWeights);
    const Tensor3& q = *inputs.q;
    const Tensor3& k = *inputs.k;
    const Tensor3& v = *inputs.v;
    const std::int64_t n = q.rows, d = q.cols, dv = v.cols;
    const bool softmax = scoring.kind == MaskedScoring::Kind::Softmax;
#pragma omp parallel for collapse(2) schedule(dynamic, 8) num_threads(std::max(1, options.threads))
    for (int h = 0; h < q.heads; ++h)
        for (std::int64_t i = 0; i < n; ++i) {
            const Pattern& pattern = patternOf(patterns, h);
            std::vector<double> w(static_cast<std::size_t>(n), 0.0);
            double best = -std::numeric_limits<double>::infinity();
            for (std::int64_t j = 0; j < n; ++j)
                if (pattern.allowed(i, j)) {
                    w[j] = rawScore(scoring, q.row(h, i), k.row(h, j), i, j, d, dot);
                    if (softmax) best = std::max(best, scoring.scale * w[j]);
                }
            double total = 0;
            for (std::int64_t j = 0; j < n; ++j) {
                if (!pattern.allowed(i, j)) continue;
                w[j] = softmax ? std::exp(scoring.scale * w[j] - best) : reluSquared(w[j]) / scoring.normalizer;
                total += w[j];
            }
            std::vector<double> acc(static_cast<std::size_t>(dv), 0.0);
            for (std::int64_t j = 0; j < n; ++j) {
                if (!pattern.allowed(i, j)) continue;
                if (softmax) w[j] /= total;
                for (std::int64_t c = 0; c < dv; ++c) acc[c] += w[j] * v.at(h, j, c);
                if (result.weights) result.weights->at(h, i, j) = static_cast<float>(w[j]);
            }
            for (std::int64_t c = 0; c < dv; ++c) result.out.at(h, i, c) = static_cast<float>(acc[c]);
        }
    return result;
}

RunResult runMasked(const AttentionInputs& inputs, const HeadPatterns& patterns, const MaskedScoring& scoring,
                    const RunOptions& options) {
    return options.useReference ? runMaskedAttentionReference(inputs, patterns, scoring, options)
                                : runMaskedAttention(inputs, patterns, scoring, options);
}

} // namespace attnlab
