// Linformer (explicit E and F) and Reformer LSH (hashing done here from the same rotations) against
// double-precision references written from docs/variants.md.
#include "core/random/random.h"
#include "support/variant_references.h"

#include <gtest/gtest.h>

#include <cmath>
#include <numeric>
#include <string>

namespace attnlab::testing {
namespace {

struct LinformerSetting {
    ParamOverrides set;
    std::int64_t k; // -1: the default min(n, 64)
    bool pool;
    std::uint64_t seed;
};

TEST(LinformerAttention, GaussianAndPoolProjectionsMatchExplicitEAndF) {
    const std::vector<LinformerSetting> settings = {
        {{}, -1, false, 0},
        {{{"k", "5"}, {"seed", "4"}}, 5, false, 4},
        {{{"k", "1"}}, 1, false, 0},
        {{{"k", "100"}, {"proj", "gaussian"}, {"seed", "2"}}, 100, false, 2}, // k > n is allowed for gaussian
        {{{"proj", "pool"}}, -1, true, 0},
        {{{"proj", "pool"}, {"k", "1"}}, 1, true, 0},
        {{{"proj", "pool"}, {"k", "7"}}, 7, true, 0}};
    struct Shape {
        std::int64_t n;
        int heads;
        std::int64_t d, dv;
    };
    for (const LinformerSetting& setting : settings)
        for (const Shape& s : std::vector<Shape>{{1, 1, 4, 4}, {9, 3, 5, 2}, {37, 3, 6, 3}, {70, 1, 8, 8}}) {
            const std::int64_t k = setting.k < 0 ? std::min<std::int64_t>(s.n, 64) : setting.k;
            if (setting.pool && k > s.n) continue; // rejected, see the parameter tests
            const Call call{"linformer", false, setting.set};
            SCOPED_TRACE(describe(call) + " n=" + std::to_string(s.n));
            const Inputs inputs = randomInputs(s.heads, s.n, s.d, s.dv, 80 + s.n);
            const Matrix e = setting.pool ? poolMatrix(k, s.n)
                                          : fromRowMajor(linformerGaussian(k, s.n, setting.seed, LinformerE), k, s.n);
            const Matrix f = setting.pool ? e : fromRowMajor(linformerGaussian(k, s.n, setting.seed, LinformerF), k, s.n);
            std::vector<Matrix> weights;
            for (int h = 0; h < s.heads; ++h)
                weights.push_back(linformerWeights(headMatrix(inputs.q, h), headMatrix(inputs.k, h), e, f));
            expectBothPathsMatch(call, inputs, weights);
        }
}

TEST(LinformerProjections, GaussianEntriesHaveVariance1OverKAndEDiffersFromF) {
    const std::int64_t k = 16, n = 500;
    const auto e = linformerGaussian(k, n, 3, LinformerE);
    const auto f = linformerGaussian(k, n, 3, LinformerF);
    ASSERT_EQ(e.size(), static_cast<std::size_t>(k * n));
    const double mean = std::accumulate(e.begin(), e.end(), 0.0) / static_cast<double>(e.size());
    double variance = 0;
    for (const double x : e) variance += (x - mean) * (x - mean) / static_cast<double>(e.size());
    EXPECT_NEAR(mean, 0.0, 0.01);
    EXPECT_NEAR(variance * k, 1.0, 0.1);
    EXPECT_NE(e, f);
    EXPECT_EQ(linformerGaussian(k, n, 3, LinformerE), e);
    EXPECT_NE(linformerGaussian(k, n, 4, LinformerE), e);
    EXPECT_EQ(linformerPool(7, 30), poolMatrix(7, 30).values);
}

TEST(LinformerAttention, CostCountsProjectionScoresAndWeights) {
    const ProblemShape shape{2, 100, 8, 8, false};
    const Call call{"linformer", false, {{"k", "10"}}};
    const CoreCost cost = requireVariant("linformer").cost(shape, resolve(call, shape));
    EXPECT_DOUBLE_EQ(cost.terms.at("projection"), 2.0 * 10 * 100 * 8 * 2);
    EXPECT_DOUBLE_EQ(cost.terms.at("scores"), 100.0 * 10 * 8 * 2);
    EXPECT_DOUBLE_EQ(cost.terms.at("weights_v"), 100.0 * 10 * 8 * 2);
}

// ---- lsh ----

struct LshSetting {
    std::int64_t buckets; // -1: the default max(2, 2·⌊n/64⌋)
    std::int64_t rounds;
    std::uint64_t seed;
    bool shared;
};

ParamOverrides lshOverrides(const LshSetting& s) {
    ParamOverrides set = {{"rounds", std::to_string(s.rounds)}, {"seed", std::to_string(s.seed)},
                          {"shared_qk", s.shared ? "true" : "false"}};
    if (s.buckets > 0) set["buckets"] = std::to_string(s.buckets);
    return set;
}

// argmax([xR ; −xR]) with R given d × b/2 row-major.
std::int64_t bucketOf(const Matrix& x, std::int64_t row, const std::vector<double>& rotation, std::int64_t half) {
    std::int64_t best = 0;
    double bestValue = -std::numeric_limits<double>::infinity();
    for (std::int64_t t = 0; t < 2 * half; ++t) {
        double projected = 0;
        for (std::int64_t c = 0; c < x.cols; ++c) projected += x(row, c) * rotation[static_cast<std::size_t>(c * half + t % half)];
        const double value = t < half ? projected : -projected;
        if (value > bestValue) {
            bestValue = value;
            best = t;
        }
    }
    return best;
}

struct LshReference {
    Matrix keys;
    Mask mask;
    int selfExcluded = 0; // rows where shared_qk dropped j = i
    int fallbacks = 0;    // rows that got j = i because they had no other member
};

LshReference lshReference(const Inputs& inputs, int head, const LshSetting& s, bool causal) {
    const Matrix q = headMatrix(inputs.q, head);
    LshReference ref{s.shared ? unitRows(q) : headMatrix(inputs.k, head), {}};
    const std::int64_t n = q.rows;
    const std::int64_t b = s.buckets > 0 ? s.buckets : std::max<std::int64_t>(2, 2 * (n / 64));
    ref.mask.assign(static_cast<std::size_t>(n * n), 0);
    for (std::int64_t r = 0; r < s.rounds; ++r) {
        const auto rotation = lshRotation(q.cols, b / 2, s.seed, r);
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < n; ++j)
                if ((!causal || j <= i) && bucketOf(q, i, rotation, b / 2) == bucketOf(ref.keys, j, rotation, b / 2))
                    ref.mask[i * n + j] = 1;
    }
    for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t members = 0;
        for (std::int64_t j = 0; j < n; ++j) members += ref.mask[i * n + j];
        if (s.shared && ref.mask[i * n + i] && members > 1) {
            ref.mask[i * n + i] = 0;
            ++ref.selfExcluded;
        }
        if (members == 0) {
            ref.mask[i * n + i] = 1;
            ++ref.fallbacks;
        }
    }
    return ref;
}

TEST(LshAttention, PatternAndOutputsFollowTheHashRule) {
    const std::vector<LshSetting> settings = {{-1, 1, 0, true},  {-1, 1, 0, false}, {4, 1, 3, true}, {4, 2, 3, false},
                                              {8, 3, 1, true},   {16, 1, 2, false}, {16, 3, 7, true}, {2, 1, 9, false}};
    int selfExcluded = 0, fallbacks = 0;
    for (const LshSetting& setting : settings)
        for (const bool causal : {false, true})
            for (const std::int64_t n : {1, 9, 37, 70}) {
                const Call call{"lsh", causal, lshOverrides(setting)};
                SCOPED_TRACE(describe(call) + " n=" + std::to_string(n));
                const Inputs inputs = randomInputs(3, n, 6, 4, 90 + n);
                std::vector<Matrix> weights;
                for (int h = 0; h < 3; ++h) {
                    const LshReference ref = lshReference(inputs, h, setting, causal);
                    selfExcluded += ref.selfExcluded;
                    fallbacks += ref.fallbacks;
                    EXPECT_EQ(maskOf(*patternOf(call, inputs, h)), ref.mask) << "head " << h;
                    const Matrix scores = rowProducts(headMatrix(inputs.q, h), ref.keys, 1.0 / std::sqrt(6.0));
                    weights.push_back(softmaxWeights(scores, ref.mask));
                }
                expectBothPathsMatch(call, inputs, weights);
            }
    // The inputs above exercise both special rules of the contract, not only the plain collisions.
    EXPECT_GT(selfExcluded, 100);
    EXPECT_GT(fallbacks, 10);
}

TEST(LshAttention, SharedQkIgnoresKAndNeedsNoKeys) {
    const Inputs inputs = randomInputs(2, 40, 6, 3, 12);
    Inputs otherKeys = inputs;
    otherKeys.k = randomTensor(2, 40, 6, 999);
    const Call call{"lsh", false, {{"buckets", "4"}}};
    EXPECT_FALSE(requireVariant("lsh").needsKeys(resolve(call, shapeOf(inputs, false))));
    EXPECT_TRUE(requireVariant("lsh").needsKeys(resolve({"lsh", false, {{"shared_qk", "false"}}}, shapeOf(inputs, false))));
    const RunResult withK = runCall(call, inputs);
    EXPECT_EQ(runCall(call, otherKeys).out.values, withK.out.values);

    RunOptions options;
    options.params = resolve(call, shapeOf(inputs, false));
    const AttentionInputs noKeys{&inputs.q, nullptr, &inputs.v};
    EXPECT_EQ(requireVariant("lsh").run(noKeys, options).out.values, withK.out.values);
}

TEST(LshAttention, CostUsesTheExpectedMaskSize) {
    const ProblemShape shape{3, 128, 8, 8, false};
    const Call call{"lsh", false, {{"buckets", "8"}, {"rounds", "2"}}};
    const CoreCost cost = requireVariant("lsh").cost(shape, resolve(call, shape));
    const double expectedPairs = 2.0 * 128 * 128 / 8;
    EXPECT_DOUBLE_EQ(cost.terms.at("hashing"), 2.0 * 2 * 128 * 8 * 4 * 3);
    EXPECT_DOUBLE_EQ(cost.terms.at("scores"), expectedPairs * 8 * 3);
    EXPECT_DOUBLE_EQ(cost.terms.at("weights_v"), expectedPairs * 8 * 3);
}

} // namespace
} // namespace attnlab::testing
