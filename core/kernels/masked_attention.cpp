#include "core/kernels/masked_attention.h"
#include "core/kernels/run_result.h"

#include "core/jobs/parallel_tasks.h"
#include "core/kernels/block_attention.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>

namespace attnlab {

HeadPatterns sharedPattern(std::unique_ptr<Pattern> pattern) {
    HeadPatterns patterns;
    patterns.push_back(std::move(pattern));
    return patterns;
}

CoreCost maskedCoreCost(const ProblemShape& shape, double nnzPerHead, bool softmax) {
    CoreCost cost;
    cost.terms["scores"] = nnzPerHead * static_cast<double>(shape.d) * shape.heads;
    cost.terms["weights_v"] = nnzPerHead * static_cast<double>(shape.dv) * shape.heads;
    cost.exps = softmax ? nnzPerHead * shape.heads : 0;
    return cost;
}

namespace {

constexpr std::uint32_t kExponentBits = 0x7F800000u;

const Pattern& patternOf(const HeadPatterns& patterns, int head) {
    return *patterns[patterns.size() == 1 ? 0 : static_cast<std::size_t>(head)];
}

double dot(const float* a, const float* b, std::int64_t size) {
    double sum = 0;
    for (std::int64_t c = 0; c < size; ++c) sum += static_cast<double>(a[c]) * b[c];
    return sum;
}

// Raw score of (i, j) before the softmax or relu²: scale · (q_i·k_j + q_i·R_{p−j}), p = i's position.
double rawScore(const MaskedScoring& scoring, const float* q, const float* k, std::int64_t i, std::int64_t j,
                std::int64_t d) {
    double s = dot(q, k, d);
    if (scoring.relativePositions) s += dot(q, scoring.relativePositions->data() + (scoring.firstQuery + i - j) * d, d);
    return s;
}

double reluSquared(double s) { return s > 0 ? s * s : 0.0; }

// Query row i of head h in double precision against every key, each cell tested through Pattern::allowed.
void referenceRow(const AttentionInputs& inputs, const Pattern& pattern, const MaskedScoring& scoring, int h,
                  std::int64_t i, RunResult& result) {
    const Tensor3& q = *inputs.q;
    const Tensor3& k = *inputs.k;
    const Tensor3& v = *inputs.v;
    const std::int64_t n = v.rows, d = q.cols, dv = v.cols;
    const bool softmax = scoring.kind == MaskedScoring::Kind::Softmax;
    const int kvHead = inputs.kvHead(h);
    std::vector<double> w(static_cast<std::size_t>(n), 0.0);
    double best = -std::numeric_limits<double>::infinity();
    // The scaled score is stored before the row maximum is subtracted: recomputing scale·s inside
    // exp(scale·s − best) lets the compiler fuse it into one multiply-add whose unrounded product
    // differs from `best` by up to 1e23 for scores near 1e39, and exp of that is inf.
    for (std::int64_t j = 0; j < n; ++j)
        if (pattern.allowed(i, j)) {
            w[j] = rawScore(scoring, q.row(h, i), k.row(kvHead, j), i, j, d);
            if (softmax) best = std::max(best, w[j] *= scoring.scale);
        }
    double total = 0;
    for (std::int64_t j = 0; j < n; ++j) {
        if (!pattern.allowed(i, j)) continue;
        w[j] = softmax ? std::exp(w[j] - best) : reluSquared(w[j]) / scoring.normalizer;
        total += w[j];
    }
    std::vector<double> acc(static_cast<std::size_t>(dv), 0.0);
    for (std::int64_t j = 0; j < n; ++j) {
        if (!pattern.allowed(i, j)) continue;
        if (softmax) w[j] /= total;
        for (std::int64_t c = 0; c < dv; ++c) acc[c] += w[j] * v.at(kvHead, j, c);
        if (result.weights) result.weights->at(h, i, j) = static_cast<float>(w[j]);
    }
    for (std::int64_t c = 0; c < dv; ++c) result.out.at(h, i, c) = static_cast<float>(acc[c]);
}

bool rowFinite(const RunResult& result, int h, std::int64_t i) {
    return finiteValues(result.out.row(h, i), result.out.cols) &&
           (!result.weights || finiteValues(result.weights->row(h, i), result.weights->cols));
}

// Whole tensors in slices of 64 Ki elements shared by the threads.
bool tensorFinite(const Tensor3& tensor, int threads) {
    constexpr std::int64_t kSlice = std::int64_t{1} << 16;
    const auto size = static_cast<std::int64_t>(tensor.values.size());
    const std::int64_t slices = (size + kSlice - 1) / kSlice;
    std::atomic<bool> finite = true;
    runTasks(slices, threads, {}, [&](std::int64_t s) {
        const std::int64_t begin = s * kSlice;
        if (!finiteValues(tensor.values.data() + begin, std::min(kSlice, size - begin)))
            finite.store(false, std::memory_order_relaxed);
    });
    return finite.load();
}

} // namespace

// Inf and NaN are the floats whose exponent bits are all set; tested as integers with no early exit so
// that the loop vectorizes.
bool finiteValues(const float* values, std::int64_t size) {
    std::uint32_t bad = 0;
    for (std::int64_t c = 0; c < size; ++c)
        bad |= static_cast<std::uint32_t>((std::bit_cast<std::uint32_t>(values[c]) & kExponentBits) == kExponentBits);
    return bad == 0;
}

bool hasNonFiniteRow(const RunResult& result, int threads) {
    return hasNonFiniteRow(result, threads, !result.cancelled && !tensorFinite(result.out, threads));
}

bool hasNonFiniteRow(const RunResult& result, int threads, bool nonFiniteOutput) {
    if (result.cancelled) return false;
    return nonFiniteOutput || (result.weights && !tensorFinite(*result.weights, threads));
}

void redoNonFiniteRows(const AttentionInputs& inputs, const HeadPatterns& patterns, const MaskedScoring& scoring,
                       RunResult& result) {
    for (int h = 0; h < result.out.heads; ++h)
        for (std::int64_t i = 0; i < result.out.rows; ++i) {
            if (rowFinite(result, h, i)) continue;
            if (result.weights) std::fill_n(result.weights->row(h, i), result.weights->cols, 0.0f);
            referenceRow(inputs, patternOf(patterns, h), scoring, h, i, result);
        }
}

RunResult runMaskedAttention(const AttentionInputs& inputs, const HeadPatterns& patterns,
                             const MaskedScoring& scoring, const RunOptions& options) {
    bool nonFiniteOutput = false;
    RunResult result = runBlockAttention(inputs, patterns, scoring, options, &nonFiniteOutput);
    if (hasNonFiniteRow(result, options.threads, nonFiniteOutput)) redoNonFiniteRows(inputs, patterns, scoring, result);
    return result;
}

RunResult runMaskedAttentionReference(const AttentionInputs& inputs, const HeadPatterns& patterns,
                                      const MaskedScoring& scoring, const RunOptions& options) {
    RunResult result = makeQueryResult(inputs, options);
    const int heads = inputs.q->heads;
    const std::int64_t n = inputs.q->rows;
    ParallelErrors errors;
#pragma omp parallel for collapse(2) schedule(dynamic, 8) num_threads(std::max(1, options.threads))
    for (int h = 0; h < heads; ++h)
        for (std::int64_t i = 0; i < n; ++i)
            errors.run([&, h, i] { referenceRow(inputs, patternOf(patterns, h), scoring, h, i, result); });
    errors.rethrowFirst();
    return result;
}

RunResult runMasked(const AttentionInputs& inputs, const HeadPatterns& patterns, const MaskedScoring& scoring,
                    const RunOptions& options) {
    return options.useReference ? runMaskedAttentionReference(inputs, patterns, scoring, options)
                                : runMaskedAttention(inputs, patterns, scoring, options);
}

} // namespace attnlab
