// Properties every variant must have whatever its formula: causality, linearity in V through the
// effective weights, bidirectional patterns derived from causal ones as docs/variants.md says, dense == tiled,
// performer converging to softmax, seeded determinism, thread-count and head independence.
#include "support/variant_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <set>

namespace attnlab::testing {
namespace {

// Max |a − b| over rows [0, rows) of every head of two [h, n, c] tensors, relative to max(1, max|b|).
double relativeErrorOfRows(const Tensor3& a, const Tensor3& b, std::int64_t rows) {
    double worst = 0, scale = 1;
    for (int h = 0; h < a.heads; ++h)
        for (std::int64_t i = 0; i < rows; ++i)
            for (std::int64_t c = 0; c < a.cols; ++c) {
                worst = std::max(worst, static_cast<double>(std::fabs(a.at(h, i, c) - b.at(h, i, c))));
                scale = std::max(scale, static_cast<double>(std::fabs(b.at(h, i, c))));
            }
    return worst / scale;
}

TEST(VariantCoverage, RepresentativeSettingsCoverEveryFormOfEveryVariant) {
    std::set<std::pair<std::string, bool>> covered;
    for (const Call& call : representativeCalls(40)) covered.insert({call.id, call.causal});
    for (const auto& variant : allVariants()) {
        EXPECT_EQ(covered.count({variant.id, true}), variant.causalSupport != CausalSupport::BidirectionalOnly) << variant.id;
        EXPECT_EQ(covered.count({variant.id, false}), variant.causalSupport != CausalSupport::CausalOnly) << variant.id;
    }
}

int variantsWithACausalForm() {
    return static_cast<int>(std::count_if(allVariants().begin(), allVariants().end(), [](const VariantInfo& variant) {
        return variant.causalSupport != CausalSupport::BidirectionalOnly;
    }));
}

TEST(VariantProperties, CausalOutputsIgnoreFutureRows) {
    const std::int64_t n = 40, last = 17; // rows 0..17 must not see rows 18..39
    const Inputs inputs = randomInputs(2, n, 6, 3, 101);
    Inputs changed = inputs;
    const Inputs fresh = randomInputs(2, n, 6, 3, 202, 2.0);
    for (int h = 0; h < 2; ++h)
        for (std::int64_t i = last + 1; i < n; ++i) {
            for (std::int64_t c = 0; c < 6; ++c) {
                changed.q.at(h, i, c) = fresh.q.at(h, i, c);
                changed.k.at(h, i, c) = fresh.k.at(h, i, c);
            }
            for (std::int64_t c = 0; c < 3; ++c) changed.v.at(h, i, c) = fresh.v.at(h, i, c);
        }
    int checked = 0;
    for (Call call : representativeCalls(n)) {
        if (!call.causal) continue;
        for (const bool reference : {false, true}) {
            call.useReference = reference;
            const RunResult before = runCall(call, inputs), after = runCall(call, changed);
            EXPECT_LE(relativeErrorOfRows(after.out, before.out, last + 1), 1e-6) << describe(call);
            for (int h = 0; h < 2; ++h)
                for (std::int64_t i = 0; i < n; ++i)
                    for (std::int64_t j = i + 1; j < n; ++j)
                        ASSERT_EQ(before.weights->at(h, i, j), 0.0f) << describe(call) << " W(" << i << "," << j << ")";
            ++checked;
        }
    }
    EXPECT_GE(checked, 2 * variantsWithACausalForm()); // both paths of at least one setting each
}

TEST(VariantProperties, OutputIsEffectiveWeightsTimesValues) {
    for (const std::int64_t n : {1, 33, 70}) {
        const Inputs inputs = randomInputs(3, n, 6, 5, 300 + n);
        for (Call call : representativeCalls(n))
            for (const bool reference : {false, true}) {
                call.useReference = reference;
                call.wantWeights = true;
                const RunResult withWeights = runCall(call, inputs);
                ASSERT_TRUE(withWeights.weights.has_value());
                EXPECT_LE(relativeError(withWeights.out.values, weightsTimesValues(*withWeights.weights, inputs.v)), 1e-5)
                    << describe(call) << " n=" << n;
                call.wantWeights = false;
                const RunResult without = runCall(call, inputs);
                EXPECT_FALSE(without.weights.has_value());
                EXPECT_LE(maxAbsDifference(without.out.values, withWeights.out.values), 1e-5) << describe(call);
            }
    }
}

// Large logits (Q and K entries N(0, 30²)): the weights still sum to 1 per row and the output is still
// W·V. A path that computes the weights' scores in another order than the run's, or features whose
// float range runs out, breaks one of the two.
TEST(VariantProperties, OutputIsEffectiveWeightsTimesValuesAtLargeLogits) {
    for (const std::int64_t n : {7, 40}) {
        const Inputs inputs = randomInputs(2, n, 8, 5, 700 + n, 30.0);
        for (Call call : representativeCalls(n)) {
            call.wantWeights = true;
            const RunResult result = runCall(call, inputs);
            ASSERT_TRUE(result.weights.has_value());
            EXPECT_LE(relativeError(result.out.values, weightsTimesValues(*result.weights, inputs.v)), 1e-4)
                << describe(call) << " n=" << n;
        }
    }
}

Mask symmetricClosure(const Mask& causal, std::int64_t n) {
    return maskFromRule(n, [&](std::int64_t i, std::int64_t j) { return causal[i * n + j] || causal[j * n + i]; });
}

TEST(VariantProperties, BidirectionalIsTheSymmetricClosureForStridedLongformerChunk) {
    const std::vector<Call> calls = {{"strided", false, {}},         {"strided", false, {{"stride", "1"}}},
                                     {"strided", false, {{"stride", "5"}}}, {"longformer", false, {}},
                                     {"longformer", false, {{"window", "6"}, {"dilation", "3"}}},
                                     {"longformer", false, {{"window", "3"}, {"globals", "0,7,16"}}},
                                     {"chunk", false, {}},           {"chunk", false, {{"chunk", "4"}}}};
    for (const std::int64_t n : {17, 40, 70})
        for (Call call : calls) {
            const Mask bidirectional = maskOf(*patternOfShape(call, n));
            call.causal = true;
            const Mask causal = maskOf(*patternOfShape(call, n));
            EXPECT_EQ(bidirectional, symmetricClosure(causal, n)) << describe(call) << " n=" << n;
        }
}

TEST(VariantProperties, FixedBidirectionalLetsEveryQuerySeeEverySummaryColumnInsteadOfTheClosure) {
    for (const std::int64_t n : {17, 40, 70})
        for (const ParamOverrides& set : std::vector<ParamOverrides>{{}, {{"block", "6"}, {"summary", "2"}}}) {
            const Mask bidirectional = maskOf(*patternOfShape({"fixed", false, set}, n));
            const Mask causal = maskOf(*patternOfShape({"fixed", true, set}, n));
            EXPECT_NE(bidirectional, symmetricClosure(causal, n));
            const std::int64_t l = set.empty() ? static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(n))))
                                               : 6;
            const std::int64_t c = set.empty() ? 1 : 2;
            for (std::int64_t i = 0; i < n; ++i)
                for (std::int64_t j = 0; j < n; ++j)
                    EXPECT_TRUE(j % l < l - c || bidirectional[i * n + j]) << "n=" << n << " (" << i << "," << j << ")";
        }
}

TEST(VariantProperties, CausalPatternIsTheBidirectionalOneBelowTheDiagonal) {
    // Holds for every data-independent pattern with both forms (bigbird without its random keys, custom
    // with its empty-row rule applied after the cut).
    for (const std::int64_t n : {1, 17, 40}) {
        for (Call call : representativeCalls(n)) {
            const VariantInfo& variant = requireVariant(call.id);
            if (call.causal || variant.causalSupport != CausalSupport::Both || variant.dataDependentPattern) continue;
            if (call.id == "bigbird") call.set["random"] = "0";
            const Mask bidirectional = maskOf(*patternOfShape(call, n));
            call.causal = true;
            const Mask causal = maskOf(*patternOfShape(call, n));
            Mask expected = maskFromRule(n, [&](std::int64_t i, std::int64_t j) { return j <= i && bidirectional[i * n + j]; });
            // custom's empty-row rule comes after the causal cut: a row the cut empties gets its diagonal.
            if (call.id == "custom")
                for (std::int64_t i = 0; i < n; ++i)
                    if (std::none_of(expected.begin() + i * n, expected.begin() + (i + 1) * n, [](auto cell) { return cell != 0; }))
                        expected[i * n + i] = 1;
            EXPECT_EQ(causal, expected) << describe(call);
        }
    }
}

TEST(VariantProperties, FullDenseEqualsTiled) {
    for (const std::int64_t n : {1, 5, 63, 64, 65, 129, 200})
        for (const int heads : {1, 3})
            for (const bool causal : {false, true})
                for (const double scale : {1.0, 4.0}) {
                    const Inputs inputs = randomInputs(heads, n, 16, 24, 400 + n, scale);
                    const RunResult dense = runCall({"full", causal, {{"impl", "dense"}}}, inputs);
                    const RunResult tiled = runCall({"full", causal, {{"impl", "tiled"}}}, inputs);
                    std::vector<double> denseOut(dense.out.values.begin(), dense.out.values.end());
                    std::vector<double> denseWeights(dense.weights->values.begin(), dense.weights->values.end());
                    EXPECT_LE(relativeError(tiled.out.values, denseOut), 1e-5) << n << " " << heads << " " << causal;
                    EXPECT_LE(relativeError(tiled.weights->values, denseWeights), 1e-5) << n << " " << heads << " " << causal;
                }
}

// Mean |performer − exact softmax| over all outputs, averaged over seeds 0..seeds−1.
double performerError(std::int64_t features, bool causal, int seeds) {
    const Inputs inputs = randomInputs(1, 48, 8, 4, 500, 0.6);
    const RunResult exact = runCall({"full", causal, {{"impl", "dense"}}}, inputs);
    double total = 0;
    for (int seed = 0; seed < seeds; ++seed) {
        const Call call{"performer", causal, {{"features", std::to_string(features)}, {"seed", std::to_string(seed)}}};
        const RunResult approximate = runCall(call, inputs);
        for (std::size_t e = 0; e < exact.out.values.size(); ++e)
            total += std::fabs(approximate.out.values[e] - exact.out.values[e]);
    }
    return total / static_cast<double>(seeds * exact.out.values.size());
}

TEST(VariantProperties, PerformerApproachesSoftmaxAsFeaturesGrow) {
    for (const bool causal : {false, true}) {
        const double coarse = performerError(16, causal, 8), fine = performerError(1024, causal, 8);
        // Monte Carlo error shrinks like 1/√m: 8× from m = 16 to 1024; ask for 3×.
        EXPECT_LT(fine * 3, coarse) << "m=16: " << coarse << ", m=1024: " << fine;
        EXPECT_LT(fine, 0.05);
    }
}

TEST(VariantProperties, SameSeedSameNumbersOtherSeedOtherNumbers) {
    const Inputs inputs = randomInputs(2, 50, 6, 4, 600);
    const std::vector<Call> seeded = {{"performer", false, {}},
                                      {"performer", true, {{"orthogonal", "false"}}},
                                      {"linformer", false, {{"k", "8"}}},
                                      {"lsh", false, {{"buckets", "4"}}},
                                      {"lsh", true, {{"buckets", "8"}, {"rounds", "2"}, {"shared_qk", "false"}}},
                                      {"bigbird", false, {}},
                                      {"bigbird", true, {{"random", "5"}}}};
    for (Call call : seeded) {
        call.set["seed"] = "11";
        const RunResult first = runCall(call, inputs);
        EXPECT_EQ(runCall(call, inputs).out.values, first.out.values) << describe(call);
        call.set["seed"] = "12";
        EXPECT_GT(maxAbsDifference(runCall(call, inputs).out.values, first.out.values), 1e-4) << describe(call);
    }
}

TEST(VariantProperties, ThreadCountDoesNotChangeResults) {
    const std::int64_t n = 150; // several 64-row blocks
    const Inputs inputs = randomInputs(3, n, 6, 5, 700);
    for (Call call : representativeCalls(n)) {
        call.threads = 1;
        const RunResult single = runCall(call, inputs);
        call.threads = 2;
        const RunResult two = runCall(call, inputs);
        EXPECT_LE(maxAbsDifference(two.out.values, single.out.values), 1e-6) << describe(call);
        EXPECT_LE(maxAbsDifference(two.weights->values, single.weights->values), 1e-6) << describe(call);
    }
}

TEST(VariantProperties, HeadsAreIndependent) {
    const std::int64_t n = 30;
    const Inputs inputs = randomInputs(3, n, 6, 4, 800);
    Inputs changed = inputs;
    const Inputs other = randomInputs(3, n, 6, 4, 801, 3.0);
    for (int h = 1; h < 3; ++h) // heads 1 and 2 replaced, head 0 kept
        for (std::int64_t i = 0; i < n; ++i) {
            for (std::int64_t c = 0; c < 6; ++c) {
                changed.q.at(h, i, c) = other.q.at(h, i, c);
                changed.k.at(h, i, c) = other.k.at(h, i, c);
            }
            for (std::int64_t c = 0; c < 4; ++c) changed.v.at(h, i, c) = other.v.at(h, i, c);
        }
    for (const Call& call : representativeCalls(n)) {
        const RunResult before = runCall(call, inputs), after = runCall(call, changed);
        Tensor3 firstBefore(1, n, 4), firstAfter(1, n, 4);
        std::copy_n(before.out.values.begin(), n * 4, firstBefore.values.begin());
        std::copy_n(after.out.values.begin(), n * 4, firstAfter.values.begin());
        EXPECT_LE(relativeErrorOfRows(firstAfter, firstBefore, n), 1e-6) << describe(call);
    }
}

// One element of 1e20 in Q and K (valid float32) makes scores of 1e40, beyond float32, while the
// softmax of those scores is finite (nearly one-hot): every path must give it, as float64 math does.
Inputs inputsBeyondFloat32() {
    Inputs inputs = randomInputs(1, 24, 8, 4, 7);
    inputs.q.at(0, 3, 5) = 1e20f;
    inputs.q.at(0, 9, 1) = -1e20f;
    inputs.k.at(0, 6, 5) = 1e20f;
    inputs.k.at(0, 2, 5) = -3e19f;
    inputs.k.at(0, 11, 1) = 2e19f;
    return inputs;
}

double dot64(const Tensor3& a, std::int64_t i, const Tensor3& b, std::int64_t j) {
    double sum = 0;
    for (std::int64_t c = 0; c < a.cols; ++c) sum += static_cast<double>(a.at(0, i, c)) * b.at(0, j, c);
    return sum;
}

TEST(VariantProperties, ScoresBeyondFloat32GiveTheFiniteSoftmaxOfFloat64) {
    const Inputs inputs = inputsBeyondFloat32();
    const std::int64_t n = inputs.q.rows;
    for (const std::string id : {"full", "longformer", "custom"})
        for (const bool causal : {false, true})
            for (const bool reference : {false, true}) {
                Call call;
                call.id = id;
                call.causal = causal;
                call.useReference = reference;
                const RunResult result = runCall(call, inputs);
                const auto pattern = patternOf(call, inputs);
                for (std::int64_t i = 0; i < n; ++i) {
                    std::vector<double> w(static_cast<std::size_t>(n), 0.0);
                    double best = -INFINITY, total = 0;
                    for (std::int64_t j = 0; j < n; ++j)
                        if (pattern->allowed(i, j)) best = std::max(best, dot64(inputs.q, i, inputs.k, j) / std::sqrt(8.0));
                    for (std::int64_t j = 0; j < n; ++j)
                        if (pattern->allowed(i, j)) total += w[j] = std::exp(dot64(inputs.q, i, inputs.k, j) / std::sqrt(8.0) - best);
                    const std::string where = id + (causal ? " causal" : "") + (reference ? " reference" : "") + " row " + std::to_string(i);
                    for (std::int64_t c = 0; c < inputs.v.cols; ++c) {
                        double expected = 0;
                        for (std::int64_t j = 0; j < n; ++j) expected += w[j] / total * inputs.v.at(0, j, c);
                        ASSERT_TRUE(std::isfinite(result.out.at(0, i, c))) << where;
                        EXPECT_NEAR(result.out.at(0, i, c), expected, 1e-5) << where;
                    }
                    for (std::int64_t j = 0; j < n; ++j) EXPECT_NEAR(result.weights->at(0, i, j), w[j] / total, 1e-6) << where;
                }
            }
}

// Without weights only the output tells the kernel's overflow apart, and every writer of output rows
// reports it as it stores them: a block's final rows (plain and streamed stores: dv 12 and 16), streamed
// row-wise groups (a narrow window), and split rows merged from their chunks (a global row of 2,100 keys).
// The overflowing row must come back as float64's finite softmax.
TEST(VariantProperties, EveryOutputWriterReportsAnOverflowingRow) {
    struct Case {
        std::string id;
        ParamOverrides set;
        std::int64_t n, dv, row, key;
    };
    const std::vector<Case> cases = {
        {"full", {}, 100, 12, 70, 40},
        {"full", {}, 100, 16, 70, 40},
        {"longformer", {{"window", "16"}, {"globals", "0"}}, 300, 16, 153, 150},
        {"longformer", {{"window", "16"}, {"globals", "2099"}}, 2100, 16, 2099, 500},
    };
    for (const Case& c : cases)
        for (const bool causal : {false, true}) {
            Inputs inputs = randomInputs(1, c.n, 8, c.dv, 11);
            inputs.q.at(0, c.row, 2) = 1e20f;
            inputs.k.at(0, c.key, 2) = 1e20f;
            Call call{c.id, causal, c.set};
            call.wantWeights = false;
            const RunResult fast = runCall(call, inputs);
            call.useReference = true;
            const RunResult reference = runCall(call, inputs);
            const std::string where = c.id + " n " + std::to_string(c.n) + " dv " + std::to_string(c.dv) +
                                      (causal ? " causal" : "");
            for (std::int64_t e = 0; e < c.dv; ++e) {
                if (!std::isfinite(fast.out.at(0, c.row, e))) {
                    ADD_FAILURE() << where << ": not finite";
                    break;
                }
                EXPECT_NEAR(fast.out.at(0, c.row, e), inputs.v.at(0, c.key, e), 1e-5) << where; // one-hot
                EXPECT_NEAR(fast.out.at(0, c.row, e), reference.out.at(0, c.row, e), 1e-5) << where;
            }
        }
}

TEST(VariantProperties, LinearAttentionBeyondFloat32FollowsFloat64) {
    // elu: φ(x) = elu(x) + 1; out_i = φ(q_i)ᵀ Σ φ(k_j) v_jᵀ / φ(q_i)ᵀ Σ φ(k_j), all in double here.
    const Inputs inputs = inputsBeyondFloat32();
    const std::int64_t n = inputs.q.rows, d = inputs.q.cols;
    const auto phi = [](double x) { return x > 0 ? x + 1 : std::exp(x); };
    for (const bool reference : {false, true}) {
        Call call;
        call.id = "linear";
        call.useReference = reference;
        call.wantWeights = false;
        const RunResult result = runCall(call, inputs);
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t c = 0; c < inputs.v.cols; ++c) {
                double numerator = 0, denominator = 0;
                for (std::int64_t j = 0; j < n; ++j) {
                    double kernel = 0;
                    for (std::int64_t e = 0; e < d; ++e) kernel += phi(inputs.q.at(0, i, e)) * phi(inputs.k.at(0, j, e));
                    numerator += kernel * inputs.v.at(0, j, c);
                    denominator += kernel;
                }
                ASSERT_TRUE(std::isfinite(result.out.at(0, i, c))) << "row " << i << (reference ? " reference" : "");
                EXPECT_NEAR(result.out.at(0, i, c), numerator / denominator, 1e-4 * std::max(1.0, std::fabs(numerator / denominator)))
                    << "row " << i << (reference ? " reference" : "");
            }
    }
}

} // namespace
} // namespace attnlab::testing
