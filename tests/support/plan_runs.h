#pragma once

// Running block plans in the tests against independent computations: dense relu² in double, the
// scorings and recycled results the runs use, and a variant's fast path against its reference path.
// Shared by the plan-run tests (test_block_plan_runs.cpp, test_split_rows.cpp).

#include "core/kernels/block_attention.h"
#include "core/registry.h"
#include "core/variants/variant_support.h"
#include "support/reference_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace attnlab::testing {

// Dense relu² in double: out_i = Σ_{j∈M_i} relu(q_i·k_j)² v_j / normalizer, and its weights.
inline std::vector<double> maskedReluSquared(const Tensor3& q, const Tensor3& k, const Tensor3& v, int head,
                                      const std::vector<std::uint8_t>& mask, double normalizer,
                                      DenseMatrix& weights) {
    const std::int64_t n = q.rows, dv = v.cols;
    const auto scores = scaledScores(q, k, head, 1.0);
    std::vector<double> out(static_cast<std::size_t>(n * dv), 0.0);
    weights.assign(static_cast<std::size_t>(n * n), 0.0);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            if (!mask[static_cast<std::size_t>(i * n + j)]) continue;
            const double s = std::max(0.0, scores[static_cast<std::size_t>(i * n + j)]);
            const double w = s * s / normalizer;
            weights[static_cast<std::size_t>(i * n + j)] = w;
            for (std::int64_t c = 0; c < dv; ++c) out[static_cast<std::size_t>(i * dv + c)] += w * v.at(head, j, c);
        }
    return out;
}

inline std::vector<float> headValues(const Tensor3& t, int head) {
    return {t.head(head), t.head(head) + t.rows * t.cols};
}

// Softmax at scale 1/√d, or relu² normalised by n·d.
inline MaskedScoring testScoring(bool relu, std::int64_t n, std::int64_t d) {
    MaskedScoring scoring;
    scoring.scale = 1.0 / std::sqrt(static_cast<double>(d));
    if (relu) {
        scoring.kind = MaskedScoring::Kind::ReluSquared;
        scoring.normalizer = static_cast<double>(n * d);
    }
    return scoring;
}

// An earlier result full of NaN, for a run to recycle: every value it leaves unwritten shows.
inline RunResult nanResult(int heads, std::int64_t n, std::int64_t dv) {
    RunResult result;
    result.out = Tensor3(heads, n, dv);
    std::fill(result.out.values.begin(), result.out.values.end(), std::numeric_limits<float>::quiet_NaN());
    return result;
}

// A variant's fast path matches its reference path (outputs and, with weights, every weight) on random
// inputs of the shape given, with and without weights, on two threads.
inline void expectMatchesReference(const VariantInfo& variant, const ParamOverrides& overrides, int heads, std::int64_t n,
                            std::int64_t d, bool causal) {
    SCOPED_TRACE(variant.id + " h=" + std::to_string(heads) + " n=" + std::to_string(n) + " d=" + std::to_string(d) +
                 (causal ? " causal" : ""));
    const Tensor3 q = randomTensor(heads, n, d, 5), k = randomTensor(heads, n, d, 6);
    const Tensor3 v = randomTensor(heads, n, d + 3, 7);
    const AttentionInputs inputs{&q, &k, &v};
    RunOptions options;
    options.causal = causal;
    options.params = prepareParams(variant, inputs.shape(causal), overrides);
    options.threads = 2;
    for (const bool weights : {true, false}) {
        options.wantWeights = weights;
        options.useReference = false;
        const RunResult fast = variant.run(inputs, options);
        options.useReference = true;
        const RunResult reference = variant.run(inputs, options);
        double largest = 0, worst = 0;
        for (std::size_t e = 0; e < reference.out.values.size(); ++e) {
            largest = std::max(largest, static_cast<double>(std::fabs(reference.out.values[e])));
            worst = std::max(worst, static_cast<double>(std::fabs(fast.out.values[e] - reference.out.values[e])));
        }
        EXPECT_LE(worst, 2e-5 * std::max(1.0, largest)) << (weights ? "with weights" : "without weights");
        if (weights) {
            ASSERT_TRUE(fast.weights && reference.weights);
            for (std::size_t e = 0; e < reference.weights->values.size(); ++e)
                ASSERT_NEAR(fast.weights->values[e], reference.weights->values[e], 2e-5) << "weight " << e;
        }
    }
}

} // namespace attnlab::testing
