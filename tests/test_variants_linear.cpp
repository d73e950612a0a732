// Variants without a softmax mask (linear kernels, performer, relu2, mixed_chunk) against their explicit
// quadratic forms: every effective weight W_ij written out from docs/variants.md in double precision.
#include "core/kernels/elu_recurrence.h"
#include "core/registry.h"
#include "support/variant_references.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>

namespace attnlab::testing {
namespace {

struct Shape {
    std::int64_t n;
    int heads;
    std::int64_t d;
    std::int64_t dv;
};

const std::vector<Shape> kShapes = {{1, 1, 4, 4}, {2, 3, 3, 2}, {37, 3, 6, 3}, {45, 1, 5, 2}, {70, 3, 8, 7}};

std::string shapeText(const Shape& s) {
    return "n=" + std::to_string(s.n) + " h=" + std::to_string(s.heads) + " d=" + std::to_string(s.d);
}

TEST(LinearAttention, EveryKernelMatchesItsQuadraticForm) {
    for (const std::string kernel : {"elu", "efficient", "taylor"})
        for (const bool causal : {false, true})
            for (const Shape& s : kShapes) {
                SCOPED_TRACE(kernel + (causal ? " causal " : " bidirectional ") + shapeText(s));
                const Inputs inputs = randomInputs(s.heads, s.n, s.d, s.dv, 3 + s.n);
                const Call call{"linear", causal, {{"kernel", kernel}}};
                expectBothPathsMatch(call, inputs, perHead(inputs, [&](const Matrix& q, const Matrix& k) {
                                         return linearWeights(kernel, q, k, causal);
                                     }));
            }
}

// The per-token recurrence the benchmark compares the chunked kernel with computes the same numbers,
// across chunk boundaries and with grouped key/value heads.
TEST(LinearAttention, EluRecurrenceMatchesTheChunkedKernel) {
    const VariantInfo& linear = requireVariant("linear");
    for (const bool causal : {false, true})
        for (const std::int64_t n : {1, 31, 33, 97, 200}) {
            const Inputs inputs = randomInputs(4, n, 8, 5, 40 + n);
            Inputs grouped = inputs;
            grouped.k = randomTensor(2, n, 8, 50 + n);
            grouped.v = randomTensor(2, n, 5, 60 + n);
            for (const Inputs* in : std::vector<const Inputs*>{&inputs, &grouped}) {
                RunOptions options;
                options.causal = causal;
                options.params = prepareParams(linear, in->view().shape(causal), {});
                const RunResult chunked = linear.run(in->view(), options);
                const RunResult recurrent = runEluRecurrence(in->view(), options);
                EXPECT_LT(relativeError(recurrent.out.values, std::vector<double>(chunked.out.values.begin(), chunked.out.values.end())),
                          1e-5)
                    << (causal ? "causal" : "bidirectional") << " n=" << n << (in == &grouped ? " grouped" : "");
            }
        }
}

TEST(LinearAttention, DefaultKernelIsElu) {
    const Inputs inputs = randomInputs(2, 20, 4, 3, 8);
    expectBothPathsMatch({"linear", false, {}}, inputs,
                         perHead(inputs, [](const Matrix& q, const Matrix& k) { return linearWeights("elu", q, k, false); }));
}

// Rows of 1 or −1 halves: their unit vectors are exact in float, so 1 + q̂·k̂ is exactly 0 for k = −q.
TEST(LinearAttention, TaylorZeroDenominatorGivesAZeroRowAndZeroVectorsStayZero) {
    const std::int64_t n = 4, d = 4;
    Inputs inputs{Tensor3(1, n, d), Tensor3(1, n, d), randomTensor(1, n, 3, 17)};
    const float rowsQ[n][d] = {{1, 1, 1, 1}, {0, 0, 0, 0}, {2, -2, 2, -2}, {1, 1, -1, -1}};
    // k_0 = −q_0: causal row 0 has the single term 1 + q̂_0·k̂_0 = 0. k_1 = 0 contributes 1 to every row.
    const float rowsK[n][d] = {{-3, -3, -3, -3}, {0, 0, 0, 0}, {-1, 1, -1, 1}, {5, 5, 5, 5}};
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t c = 0; c < d; ++c) {
            inputs.q.at(0, i, c) = rowsQ[i][c];
            inputs.k.at(0, i, c) = rowsK[i][c];
        }
    for (const bool causal : {false, true}) {
        SCOPED_TRACE(causal ? "causal" : "bidirectional");
        const Call call{"linear", causal, {{"kernel", "taylor"}}};
        const std::vector<Matrix> weights = perHead(inputs, [causal](const Matrix& q, const Matrix& k) {
            return linearWeights("taylor", q, k, causal);
        });
        expectBothPathsMatch(call, inputs, weights);
        if (causal) {
            const RunResult result = runCall(call, inputs);
            for (std::int64_t c = 0; c < 3; ++c) EXPECT_EQ(result.out.at(0, 0, c), 0.0f) << "zero row expected";
            EXPECT_EQ(result.weights->at(0, 0, 0), 0.0f);
        }
        // Zero query row 1: every allowed j weighs 1 + 0, a plain average.
        EXPECT_DOUBLE_EQ(weights[0](1, 0), causal ? 0.5 : 0.25);
    }
}

// elu+1 of large negative inputs: φ = e^x passes float's range (e^−52·e^−52 underflows, e^−110 alone
// does). The weights still follow the formula, worked out here in closed form, on every path.
TEST(LinearAttention, EluOfLargeNegativeInputsFollowsTheFormula) {
    // q = k = −52 everywhere (d = 1): every φ(q)·φ(k) is the same e^−104, so W is uniform over J_i.
    Inputs equal{Tensor3(1, 2, 1), Tensor3(1, 2, 1), Tensor3(1, 2, 1)};
    for (std::int64_t i = 0; i < 2; ++i) {
        equal.q.at(0, i, 0) = equal.k.at(0, i, 0) = -52.0f;
        equal.v.at(0, i, 0) = i == 0 ? 1.0f : 3.0f;
    }
    for (const bool reference : {false, true})
        for (const bool causal : {false, true}) {
            Call call{"linear", causal, {{"kernel", "elu"}}};
            call.useReference = reference;
            call.wantWeights = true;
            const RunResult result = runCall(call, equal);
            EXPECT_FLOAT_EQ(result.out.at(0, 0, 0), causal ? 1.0f : 2.0f) << describe(call);
            EXPECT_FLOAT_EQ(result.out.at(0, 1, 0), 2.0f) << describe(call);
            EXPECT_FLOAT_EQ(result.weights->at(0, 1, 0), 0.5f) << describe(call);
        }
    // q_0 = (−110, −110): φ(q_0) = e^−110·(1, 1) is 0 in float, yet W_0j ∝ φ(k_j)·(1, 1).
    Inputs far{Tensor3(1, 2, 2), Tensor3(1, 2, 2), Tensor3(1, 2, 1)};
    const float q[2][2] = {{-110, -110}, {0.5f, -0.3f}}, k[2][2] = {{0.2f, 1}, {-0.4f, 0.3f}};
    for (std::int64_t i = 0; i < 2; ++i) {
        for (std::int64_t c = 0; c < 2; ++c) far.q.at(0, i, c) = q[i][c], far.k.at(0, i, c) = k[i][c];
        far.v.at(0, i, 0) = i == 0 ? 1.0f : 3.0f;
    }
    const double sum0 = 1.2 + 2.0, sum1 = std::exp(-0.4) + 1.3; // φ(k_j)·(1, 1)
    const double w00 = sum0 / (sum0 + sum1);
    for (const bool reference : {false, true}) {
        Call call{"linear", false, {{"kernel", "elu"}}};
        call.useReference = reference;
        call.wantWeights = true;
        const RunResult result = runCall(call, far);
        EXPECT_NEAR(result.weights->at(0, 0, 0), w00, 1e-6) << describe(call);
        EXPECT_NEAR(result.out.at(0, 0, 0), w00 * 1 + (1 - w00) * 3, 1e-5) << describe(call);
    }
}

TEST(LinearAttention, LargeInputsAreNotScaledBySqrtD) {
    // Entries of size ~3 with d = 16: a hidden 1/√d (or any rescaling of q·k) would move every kernel.
    const Inputs inputs = randomInputs(1, 30, 16, 4, 23, 3.0);
    for (const std::string kernel : {"elu", "efficient", "taylor"})
        expectBothPathsMatch({"linear", true, {{"kernel", kernel}}}, inputs,
                             perHead(inputs, [&](const Matrix& q, const Matrix& k) { return linearWeights(kernel, q, k, true); }));
}

TEST(LinearAttention, CostHasNoScoresAndTheStateTerms) {
    const ProblemShape shape{3, 100, 8, 5, false};
    for (const std::string kernel : {"elu", "efficient", "taylor"}) {
        const Call call{"linear", false, {{"kernel", kernel}}};
        const CoreCost cost = requireVariant("linear").cost(shape, resolve(call, shape));
        EXPECT_EQ(cost.terms.at("scores"), 0);
        EXPECT_EQ(cost.terms.at("weights_v"), 0);
        EXPECT_DOUBLE_EQ(cost.terms.at("linear_state"), 2.0 * 100 * 8 * 5 * 3);
        EXPECT_DOUBLE_EQ(cost.terms.at("feature_map"), 2.0 * 100 * 8 * 3);
    }
}

TEST(PerformerAttention, MatchesTheEluFormulaWithFavorFeatures) {
    struct Setting {
        ParamOverrides set;
        std::int64_t m; // -1: the default 4d
        std::uint64_t seed;
        bool orthogonal;
    };
    const std::vector<Setting> settings = {{{}, -1, 0, true},
                                           {{{"features", "7"}, {"seed", "3"}}, 7, 3, true},
                                           {{{"features", "13"}, {"orthogonal", "false"}, {"seed", "9"}}, 13, 9, false},
                                           {{{"features", "1"}}, 1, 0, true},
                                           {{{"features", "50"}, {"orthogonal", "true"}, {"seed", "2"}}, 50, 2, true}};
    for (const Setting& setting : settings)
        for (const bool causal : {false, true})
            for (const Shape& s : kShapes) {
                const Call call{"performer", causal, setting.set};
                SCOPED_TRACE(describe(call) + " " + shapeText(s));
                const Inputs inputs = randomInputs(s.heads, s.n, s.d, s.dv, 31 + s.n, 0.7);
                const std::int64_t m = setting.m < 0 ? 4 * s.d : setting.m;
                expectBothPathsMatch(call, inputs, performerReference(inputs, m, setting.seed, setting.orthogonal, causal));
            }
}

// The kernel exponentiates each chunk's keys against the largest key exponent so far and rescales what it
// summed when a later chunk raises it. Key j is t_j·d^(1/4)·ω_0 plus noise, t_j rising from 0.1 to 1,
// so that its first exponent ω_0·k' − ‖k'‖²/2 ≈ ‖ω_0‖²(t_j − t_j²/2) rises chunk after chunk to about
// d/2: at d = 256 past float's range (e^88), which only the shift keeps finite.
TEST(PerformerAttention, KeyShiftRisingChunkByChunkMatchesTheFormula) {
    for (const std::int64_t d : {8, 256})
        for (const bool causal : {false, true}) {
            const std::int64_t n = 150, m = 16;
            const auto omega = performerProjection(m, d, 5, true);
            Inputs inputs = randomInputs(2, n, d, 3, 77, 0.3);
            const double lift = std::pow(static_cast<double>(d), 0.25);
            for (int h = 0; h < 2; ++h)
                for (std::int64_t j = 0; j < n; ++j) {
                    const double t = 0.1 + 0.9 * static_cast<double>(j) / static_cast<double>(n - 1);
                    for (std::int64_t c = 0; c < d; ++c)
                        inputs.k.at(h, j, c) += static_cast<float>(t * lift * omega[static_cast<std::size_t>(c)]);
                }
            const Call call{"performer", causal, {{"features", std::to_string(m)}, {"seed", "5"}}};
            SCOPED_TRACE(describe(call) + " d=" + std::to_string(d));
            expectBothPathsMatch(call, inputs, performerReference(inputs, m, 5, true, causal), 1e-4);
        }
}

TEST(PerformerProjection, OrthogonalBlocksWithChiNormsAndIidOtherwise) {
    const std::int64_t d = 6, m = 15; // two full blocks and a partial one of 3 rows
    const auto omega = performerProjection(m, d, 4, true);
    ASSERT_EQ(omega.size(), static_cast<std::size_t>(m * d));
    auto dot = [&omega, d](std::int64_t a, std::int64_t b) {
        double sum = 0;
        for (std::int64_t c = 0; c < d; ++c) sum += omega[a * d + c] * omega[b * d + c];
        return sum;
    };
    double meanSquaredNorm = 0;
    for (std::int64_t a = 0; a < m; ++a) {
        for (std::int64_t b = a + 1; b < m && b / d == a / d; ++b) EXPECT_NEAR(dot(a, b), 0.0, 1e-9) << a << "," << b;
        meanSquaredNorm += dot(a, a) / m;
    }
    EXPECT_GT(meanSquaredNorm, 0.3 * d); // rows carry chi norms, not unit norms
    EXPECT_LT(meanSquaredNorm, 3.0 * d);
    EXPECT_EQ(performerProjection(m, d, 4, true), omega);
    EXPECT_NE(performerProjection(m, d, 5, true), omega);
    EXPECT_NE(performerProjection(m, d, 4, false), omega);
}

TEST(PerformerAttention, CostFollowsFeatureCount) {
    const ProblemShape shape{2, 64, 8, 4, true};
    const Call call{"performer", true, {{"features", "20"}}};
    const CoreCost cost = requireVariant("performer").cost(shape, resolve(call, shape));
    EXPECT_EQ(cost.terms.at("scores"), 0);
    EXPECT_EQ(cost.terms.at("weights_v"), 0);
    EXPECT_DOUBLE_EQ(cost.terms.at("feature_map"), 2.0 * 64 * 20 * 8 * 2);
    EXPECT_DOUBLE_EQ(cost.terms.at("linear_state"), 2.0 * 64 * 20 * 4 * 2);
}

// ---- relu2 and mixed_chunk ----

TEST(Relu2Attention, BothScalesMatchTheQuadraticForm) {
    for (const std::string scale : {"ns", "n2", ""})
        for (const bool causal : {false, true})
            for (const Shape& s : kShapes) {
                Call call{"relu2", causal, {}};
                if (!scale.empty()) call.set["scale"] = scale;
                SCOPED_TRACE(describe(call) + " " + shapeText(s));
                const Inputs inputs = randomInputs(s.heads, s.n, s.d, s.dv, 50 + s.n);
                const double z = scale == "n2" ? static_cast<double>(s.n * s.n) : static_cast<double>(s.n * s.d);
                expectBothPathsMatch(call, inputs, perHead(inputs, [&](const Matrix& q, const Matrix& k) {
                                         return scaledOnMask(reluSquaredProducts(q, k), allPairsMask(s.n, causal), z);
                                     }));
            }
}

TEST(MixedChunkAttention, QuadraticPlusLinearPartsMatch) {
    for (const std::int64_t chunk : {-1, 1, 4, 16, 100}) // -1: the default min(n, 64)
        for (const bool causal : {false, true})
            for (const Shape& s : kShapes) {
                Call call{"mixed_chunk", causal, {}};
                if (chunk > 0) call.set["chunk"] = std::to_string(chunk);
                SCOPED_TRACE(describe(call) + " " + shapeText(s));
                const std::int64_t c = chunk > 0 ? chunk : std::min<std::int64_t>(s.n, 64);
                const Inputs inputs = randomInputs(s.heads, s.n, s.d, s.dv, 60 + s.n);
                expectBothPathsMatch(call, inputs, perHead(inputs, [&](const Matrix& q, const Matrix& k) {
                                         return mixedChunkWeights(q, k, c, causal);
                                     }));
            }
}

TEST(MixedChunkAttention, CausalFirstChunkHasNoLinearPart) {
    // Queries in chunk 0 see only the relu² part; a negative-definite first chunk (k = −q) makes it zero.
    const std::int64_t n = 12, c = 5;
    Inputs inputs = randomInputs(1, n, 4, 3, 70);
    for (std::int64_t j = 0; j < c; ++j)
        for (std::int64_t x = 0; x < 4; ++x) inputs.k.at(0, j, x) = -inputs.q.at(0, 0, x);
    for (std::int64_t i = 1; i < c; ++i)
        for (std::int64_t x = 0; x < 4; ++x) inputs.q.at(0, i, x) = inputs.q.at(0, 0, x);
    const RunResult result = runCall({"mixed_chunk", true, {{"chunk", std::to_string(c)}}}, inputs);
    for (std::int64_t i = 0; i < c; ++i)
        for (std::int64_t x = 0; x < 3; ++x) EXPECT_EQ(result.out.at(0, i, x), 0.0f) << "row " << i;
    EXPECT_NE(result.out.at(0, c, 0), 0.0f);
}

TEST(MixedChunkAttention, CostIsTheChunkMaskPlusLinearState) {
    for (const bool causal : {false, true}) {
        const ProblemShape shape{2, 50, 8, 4, causal};
        const Call call{"mixed_chunk", causal, {{"chunk", "16"}}};
        const CoreCost cost = requireVariant("mixed_chunk").cost(shape, resolve(call, shape));
        double pairs = 0; // chunks of 16, 16, 16, 2
        for (const double size : {16.0, 16.0, 16.0, 2.0}) pairs += causal ? size * (size + 1) / 2 : size * size;
        EXPECT_DOUBLE_EQ(cost.terms.at("scores"), pairs * 8 * 2);
        EXPECT_DOUBLE_EQ(cost.terms.at("weights_v"), pairs * 4 * 2);
        EXPECT_DOUBLE_EQ(cost.terms.at("linear_state"), 2.0 * 50 * 8 * 4 * 2);
    }
}

} // namespace
} // namespace attnlab::testing
