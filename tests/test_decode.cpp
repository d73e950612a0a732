// One generation step (core/decode/decode.h, `cost --decode`): the step's output against the last row of the
// full causal run, its MACs and the keys a layer must keep against hand formulas and against a
// brute-force count over the rows that come later, and the command line's JSON.
#include "core/cost/cost_model.h"
#include "core/decode/decode.h"
#include "core/decode/kv_cache.h"
#include "core/errors.h"
#include "core/measure/timing.h"
#include "core/patterns/decode_cache.h"
#include "core/registry.h"
#include "support/variant_checks.h"
#include "support/variant_runner.h"
#include "test_cli_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

namespace attnlab {
namespace {

using testing::Call;

Tensor3 repeatHeads(const Tensor3& t, int times) {
    Tensor3 repeated(t.heads * times, t.rows, t.cols);
    for (int h = 0; h < repeated.heads; ++h) std::copy(t.head(h / times), t.head(h / times) + t.headStride(), repeated.head(h));
    return repeated;
}

Tensor3 roundedTensor(const Tensor3& t, KvDtype dtype) {
    Tensor3 rounded = t;
    for (float& x : rounded.values) x = roundedTo(dtype, x);
    return rounded;
}

// Q's last row alone, [h, 1, d]: the new token, as a step's context may give it.
Tensor3 lastQueryRow(const Tensor3& q) {
    Tensor3 last(q.heads, 1, q.cols);
    for (int h = 0; h < q.heads; ++h) std::copy(q.row(h, q.rows - 1), q.row(h, q.rows - 1) + q.cols, last.head(h));
    return last;
}

constexpr KvDtype kPrecisions[] = {KvDtype::F32, KvDtype::F16, KvDtype::BF16};

// Runs the step of `call` on a context (Q whole or only its last row, as the step reads it) unsplit and in
// chunks of 5 keys, twice each (a step leaves its cache as it found it), and hands each output to `check`.
template <typename Check>
void forEachStepOutput(const Call& call, const Tensor3& q, const Tensor3& k, const Tensor3& v, KvDtype dtype, Check check) {
    const VariantInfo& variant = requireVariant(call.id);
    const AttentionInputs whole{&q, &k, &v};
    const ParamSet params = testing::resolve(call, whole.shape(true));
    const Tensor3 last = lastQueryRow(q);
    const AttentionInputs context{decodeReadsEveryQuery(variant, params) ? &q : &last, &k, &v};
    for (const std::int64_t chunkKeys : {std::int64_t{0}, std::int64_t{5}}) {
        DecodeOptions options;
        options.kvDtype = dtype;
        options.chunkKeys = chunkKeys;
        options.threads = k.heads == 1 ? 2 : 1; // one key/value head on two threads: its chunks in parallel
        const auto step = prepareDecodeStep(variant, context, params, options);
        std::vector<float> out(static_cast<std::size_t>(q.heads * v.cols), -1.0f);
        for (int repeat = 0; repeat < 2; ++repeat) {
            step->run(out.data());
            check(out, chunkKeys);
        }
    }
}

class EveryVariant : public ::testing::TestWithParam<std::string> {};

// The step on a grouped cache against row n − 1 of the reference causal run on K and V repeated per
// query head (so that it does not depend on how the full kernels read grouped heads), at every cache
// precision on keys and values the precision holds exactly (so every difference is float32 rounding),
// unsplit and split.
TEST_P(EveryVariant, StepEqualsTheLastRowOfTheCausalRun) {
    const VariantInfo& variant = requireVariant(GetParam());
    constexpr std::int64_t d = 8, dv = 6;
    constexpr int heads = 4;
    if (variant.causalSupport == CausalSupport::BidirectionalOnly) {
        const Tensor3 q = testing::randomTensor(heads, 8, d, 1), v = testing::randomTensor(heads, 8, dv, 2);
        EXPECT_THROW(prepareDecodeStep(variant, {&q, &q, &v}, {}, {}), InputError);
        return;
    }
    for (const std::int64_t n : {1, 13, 64, 65})
        for (const Call& base : testing::representativeCalls(n)) {
            if (base.id != variant.id || !base.causal) continue;
            // Keys derived from the queries (lsh's shared_qk: q/‖q‖) are exact in no smaller precision.
            const ParamSet resolved = prepareParams(variant, ProblemShape{heads, n, d, dv, true}, base.set);
            const bool ownKeys = variant.needsKeys && !variant.needsKeys(resolved);
            for (const int kvHeads : {1, 2, heads})
                for (const KvDtype dtype : kPrecisions) {
                    if (ownKeys && dtype != KvDtype::F32) continue;
                    const Tensor3 q = testing::randomTensor(heads, n, d, 31);
                    const Tensor3 k = roundedTensor(testing::randomTensor(kvHeads, n, d, 32), dtype);
                    const Tensor3 v = roundedTensor(testing::randomTensor(kvHeads, n, dv, 33), dtype);
                    const testing::Inputs repeated{q, repeatHeads(k, heads / kvHeads), repeatHeads(v, heads / kvHeads)};
                    Call call = base;
                    call.useReference = true;
                    call.wantWeights = false;
                    const RunResult full = testing::runCall(call, repeated);
                    forEachStepOutput(call, q, k, v, dtype, [&](const std::vector<float>& out, std::int64_t chunkKeys) {
                        for (int t = 0; t < heads; ++t)
                            for (std::int64_t c = 0; c < dv; ++c) {
                                const float expected = full.out.at(t, n - 1, c);
                                ASSERT_NEAR(out[static_cast<std::size_t>(t * dv + c)], expected, 2e-5 + 2e-4 * std::abs(expected))
                                    << testing::describe(call) << " n=" << n << " h_kv=" << kvHeads << " " << kvDtypeName(dtype)
                                    << " chunk " << chunkKeys << " head " << t << " c " << c;
                            }
                    });
                }
        }
}

// Keys and values that float16 and bfloat16 round: every softmax pattern (the variants whose step is the
// default one) stays within docs/inference.md's bound of the float32 result, |Δout| ≤ max|v|·(u + e^{2Δ} − 1)
// with Δ = u · ‖q‖₁ · max|k| / √d the largest change of a score and u the precision's unit roundoff.
TEST_P(EveryVariant, HalfPrecisionCachesStayWithinTheirBound) {
    const VariantInfo& variant = requireVariant(GetParam());
    if (variant.causalSupport == CausalSupport::BidirectionalOnly || (variant.decode && variant.decode->prepare)) return;
    constexpr std::int64_t n = 65, d = 16, dv = 16;
    constexpr int heads = 4, kvHeads = 2;
    const Tensor3 q = testing::randomTensor(heads, n, d, 41), k = testing::randomTensor(kvHeads, n, d, 42);
    const Tensor3 v = testing::randomTensor(kvHeads, n, dv, 43);
    const float largestKey = *std::max_element(k.values.begin(), k.values.end(), [](float a, float b) { return std::abs(a) < std::abs(b); });
    const float largestValue = *std::max_element(v.values.begin(), v.values.end(), [](float a, float b) { return std::abs(a) < std::abs(b); });
    for (const Call& base : testing::representativeCalls(n)) {
        if (base.id != variant.id || !base.causal) continue;
        Call call = base;
        call.useReference = true;
        call.wantWeights = false;
        const RunResult full = testing::runCall(call, {q, repeatHeads(k, heads / kvHeads), repeatHeads(v, heads / kvHeads)});
        for (const KvDtype dtype : {KvDtype::F16, KvDtype::BF16}) {
            const double u = kvDtypeRoundoff(dtype);
            bool differs = false;
            forEachStepOutput(call, q, k, v, dtype, [&](const std::vector<float>& out, std::int64_t) {
                for (int t = 0; t < heads; ++t) {
                    double norm = 0;
                    for (std::int64_t c = 0; c < d; ++c) norm += std::abs(q.at(t, n - 1, c));
                    const double delta = u * norm * std::abs(largestKey) / std::sqrt(static_cast<double>(d));
                    const double bound = std::abs(largestValue) * (u + std::expm1(2 * delta)) + 2e-5;
                    for (std::int64_t c = 0; c < dv; ++c) {
                        const double error = std::abs(out[static_cast<std::size_t>(t * dv + c)] - full.out.at(t, n - 1, c));
                        EXPECT_LE(error, bound) << testing::describe(call) << " " << kvDtypeName(dtype) << " head " << t;
                        differs = differs || error > 1e-6;
                    }
                }
            });
            EXPECT_TRUE(differs) << testing::describe(call) << ": the " << kvDtypeName(dtype) << " cache changed nothing";
        }
    }
}

// Rows wider than one vector (d = 40: three key vectors, the last partial; dv = 72: a four-vector pass and
// a one-vector pass), every number of query heads per key/value head the step groups (1 to 4) and row
// counts that are no multiple of the rows scored together, against the reference causal run.
TEST(DecodeStep, WideRowsAndEveryHeadGroupEqualTheCausalRun) {
    constexpr std::int64_t d = 40, dv = 72;
    for (const auto& [heads, kvHeads] : std::vector<std::pair<int, int>>{{4, 4}, {4, 2}, {3, 1}, {4, 1}})
        for (const std::int64_t n : {7, 37, 70})
            for (const KvDtype dtype : kPrecisions) {
                const Tensor3 q = testing::randomTensor(heads, n, d, 51);
                const Tensor3 k = roundedTensor(testing::randomTensor(kvHeads, n, d, 52), dtype);
                const Tensor3 v = roundedTensor(testing::randomTensor(kvHeads, n, dv, 53), dtype);
                Call call;
                call.id = "full";
                call.causal = true;
                call.useReference = true;
                call.wantWeights = false;
                const RunResult full =
                    testing::runCall(call, {q, repeatHeads(k, heads / kvHeads), repeatHeads(v, heads / kvHeads)});
                forEachStepOutput(call, q, k, v, dtype, [&](const std::vector<float>& out, std::int64_t chunkKeys) {
                    for (int t = 0; t < heads; ++t)
                        for (std::int64_t c = 0; c < dv; ++c) {
                            const float expected = full.out.at(t, n - 1, c);
                            ASSERT_NEAR(out[static_cast<std::size_t>(t * dv + c)], expected, 2e-5 + 2e-4 * std::abs(expected))
                                << "h=" << heads << " h_kv=" << kvHeads << " n=" << n << " " << kvDtypeName(dtype)
                                << " chunk " << chunkKeys << " head " << t << " c " << c;
                        }
                });
            }
}

std::vector<std::string> registeredIds() {
    std::vector<std::string> ids;
    for (const VariantInfo& variant : allVariants()) ids.push_back(variant.id);
    return ids;
}

INSTANTIATE_TEST_SUITE_P(Decode, EveryVariant, ::testing::ValuesIn(registeredIds()),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

ProblemShape decodeShape(std::int64_t n, std::int64_t d, int heads, int kvHeads) {
    ProblemShape shape;
    shape.n = n;
    shape.d = d;
    shape.dv = d;
    shape.heads = heads;
    shape.kvHeads = kvHeads;
    shape.causal = true;
    return shape;
}

// The keys held while row t is computed (the pattern view's decoding step) against a brute-force scan:
// key j <= t is held exactly when row t or a later row attends to it. n = 2100 runs the scan past one
// batch of rows.
TEST_P(EveryVariant, CachedKeysAreThoseRowTOrALaterRowReads) {
    const VariantInfo& variant = requireVariant(GetParam());
    if (variant.causalSupport == CausalSupport::BidirectionalOnly || variant.dataDependentPattern) return;
    const std::vector<std::pair<std::int64_t, std::int64_t>> steps = {
        {1, 0},   {13, 0},   {13, 5},    {13, 12},     {64, 21},
        {64, 63}, {200, 33}, {200, 101}, {2100, 1000}, {2100, 2099}};
    for (const auto& [n, t] : steps)
        for (const Call& call : testing::representativeCalls(n)) {
            if (call.id != variant.id || !call.causal) continue;
            const ProblemShape shape = decodeShape(n, 4, 1, 1);
            const auto pattern = buildPattern(variant, shape, testing::resolve(call, shape));
            std::vector<bool> read(static_cast<std::size_t>(t + 1), false);
            for (std::int64_t i = t; i < n; ++i)
                for (std::int64_t j = 0; j <= t; ++j)
                    read[static_cast<std::size_t>(j)] =
                        read[static_cast<std::size_t>(j)] || pattern->allowed(i, j);
            std::vector<bool> held(static_cast<std::size_t>(t + 1), false);
            std::int64_t previousEnd = -1;
            for (const ColumnRange& range : cachedKeysAt(*pattern, t)) {
                ASSERT_GT(range.begin, previousEnd) << "ranges sorted, disjoint and not touching";
                ASSERT_LT(range.begin, range.end);
                ASSERT_LE(range.end, t + 1);
                for (std::int64_t j = range.begin; j < range.end; ++j)
                    held[static_cast<std::size_t>(j)] = true;
                previousEnd = range.end;
            }
            EXPECT_EQ(held, read) << call.id << " n=" << n << " t=" << t;
        }
}

LayerCost decodeOf(const std::string& id, const ProblemShape& shape, const ParamOverrides& set = {}) {
    const VariantInfo& variant = requireVariant(id);
    return decodeLayerCost(variant, shape, prepareParams(variant, shape, set));
}

// The spec's retained keys for the fixed-parameter cases below.
std::int64_t specRetainedKeys(const std::string& id, std::int64_t n, const ParamOverrides& set) {
    const auto integer = [&set](const char* key) { return static_cast<std::int64_t>(std::stoll(set.at(key))); };
    if (id == "chunk") return (n - 1) % integer("chunk") + 1;
    if (id == "xl") return std::min(n, (n - 1) % integer("segment") + 1 + integer("memory"));
    if (id == "fixed") return (n - 1) % integer("block") + 1 + integer("summary") * ((n - 1) / integer("block"));
    if (id == "longformer") {
        const std::int64_t span = integer("window") / 2 * integer("dilation");
        std::int64_t before = 0;
        for (std::size_t at = 0; at < set.at("globals").size();) {
            const std::size_t comma = std::min(set.at("globals").find(',', at), set.at("globals").size());
            const std::int64_t g = std::stoll(set.at("globals").substr(at, comma - at));
            if (g >= n - 1) return n;
            before += g < n - 1 - span ? 1 : 0;
            at = comma + 1;
        }
        return std::min(n, span + 1) + before;
    }
    return n; // full, strided
}

std::int64_t largestGlobal(const ParamOverrides& set) {
    if (!set.count("globals")) return -1;
    const std::string& list = set.at("globals");
    return static_cast<std::int64_t>(std::stoll(list.substr(list.rfind(',') + 1)));
}

TEST(DecodeCost, RetainedKeysAreTheKeysLaterRowsStillUse) {
    const std::vector<std::pair<std::string, ParamOverrides>> cases = {
        {"full", {}},
        {"strided", {{"stride", "5"}}},
        {"fixed", {{"block", "6"}, {"summary", "2"}}},
        {"chunk", {{"chunk", "7"}}},
        {"xl", {{"segment", "6"}, {"memory", "9"}}},
        {"xl", {{"segment", "5"}, {"memory", "0"}, {"relpos", "none"}}},
        {"longformer", {{"window", "4"}, {"dilation", "2"}, {"globals", "0,3"}}},
        {"longformer", {{"window", "6"}, {"dilation", "1"}, {"globals", "1,30"}}},
        {"longformer", {{"window", "6"}, {"dilation", "1"}, {"globals", "2,45"}}},
    };
    for (const auto& [id, set] : cases)
        for (const std::int64_t n : {1, 2, 20, 40, 41, 46, 47}) {
            if (n <= largestGlobal(set)) continue; // a global index must lie in [0, n)
            const LayerCost cost = decodeOf(id, decodeShape(n, 4, 2, 1), set);
            ASSERT_TRUE(cost.retainedKeys) << id;
            EXPECT_EQ(*cost.retainedKeys, specRetainedKeys(id, n, set)) << id << " n=" << n;
            const VariantInfo& variant = requireVariant(id);
            const ProblemShape shape = decodeShape(n, 4, 1, 1);
            EXPECT_EQ(*cost.retainedKeys, testing::keysStillNeeded(variant, shape, prepareParams(variant, shape, set), 64))
                << id << " n=" << n;
            EXPECT_EQ(cost.kvCacheBytes, static_cast<double>(*cost.retainedKeys) * 1 * (4 + 4) * 4) << id;
        }
}

// Every variant that states its own retained-keys rule, found through the registry: the rule against the
// brute-force count at every causal setting of its schema.
TEST(DecodeCost, EveryRetainedKeysRuleIsTheBruteForceCount) {
    int rules = 0;
    for (const VariantInfo& variant : allVariants()) {
        if (!testing::hasRetainedKeysRule(variant)) continue;
        ++rules;
        EXPECT_GT(testing::expectRetainedKeysAreTheKeysLaterRowsUse(variant), 0) << variant.id;
    }
    EXPECT_GT(rules, 0);
}

// Parameters near 2^63 (in range): the spec's min(n, r·δ + 1) and min(n, ((n − 1) mod L) + 1 + m) are n,
// though the sums themselves would overflow 64 bits (they once gave −9.2e18 keys).
TEST(DecodeCost, RetainedKeysOfHugeWindowsAndMemoriesStayWithinTheContext) {
    const std::vector<std::pair<std::string, ParamOverrides>> cases = {
        {"xl", {{"segment", "5"}, {"memory", "9223372036854775800"}}},
        {"xl", {{"segment", "9223372036854775807"}, {"memory", "9223372036854775807"}}},
        {"longformer", {{"window", "4611686018427387904"}, {"dilation", "4"}, {"globals", "0,1"}}},
        {"longformer", {{"window", "9223372036854775807"}, {"dilation", "9223372036854775807"}, {"globals", "0"}}},
    };
    for (const auto& [id, set] : cases)
        for (const std::int64_t n : {2, 8, 47}) {
            const LayerCost cost = decodeOf(id, decodeShape(n, 4, 2, 1), set);
            ASSERT_TRUE(cost.retainedKeys) << id;
            EXPECT_EQ(*cost.retainedKeys, n) << id << " n=" << n;
            EXPECT_EQ(cost.kvCacheBytes, static_cast<double>(n) * 1 * (4 + 4) * 4) << id;
        }
}

// Every softmax pattern (and any variant without its own rules): row n − 1 counted cell by cell.
TEST(DecodeCost, SoftmaxPatternsCostTheirLastRow) {
    const std::int64_t n = 50, d = 16;
    const int heads = 4, kvHeads = 2;
    for (const VariantInfo& variant : allVariants()) {
        if (!variant.hasMask || variant.dataDependentPattern || variant.causalSupport == CausalSupport::BidirectionalOnly)
            continue;
        const ProblemShape shape = decodeShape(n, d, heads, kvHeads);
        const ParamSet params = prepareParams(variant, shape, {});
        const auto pattern = buildPattern(variant, shape, params);
        double row = 0;
        for (std::int64_t j = 0; j < n; ++j) row += pattern->allowed(n - 1, j) ? 1 : 0;
        const LayerCost cost = decodeLayerCost(variant, shape, params);
        EXPECT_EQ(cost.terms.at("scores"), row * d * heads) << variant.id;
        EXPECT_EQ(cost.terms.at("weights_v"), row * d * heads) << variant.id;
        EXPECT_EQ(cost.exps, row * heads) << variant.id;
        if (cost.terms.count("relpos")) {
            EXPECT_EQ(cost.terms.at("relpos"), row * d * heads) << variant.id;
        }
    }
}

// bigbird counts its step in closed form (its pattern is O(n)): the count must be the pattern's last row
// for windows, globals and random keys that fit, overlap or exceed what the row has.
TEST(DecodeCost, BigBirdsClosedFormIsItsPatternsLastRow) {
    const VariantInfo& variant = requireVariant("bigbird");
    for (const std::int64_t n : {1, 2, 7, 50, 130})
        for (const auto& [window, globals, random, block] :
             std::vector<std::tuple<int, int, int, int>>{{6, 2, 3, 1}, {0, 0, 0, 1}, {9, 60, 5, 1}, {1, 0, 200, 1}, {300, 1, 1, 1},
                                                         {3, 1, 3, 8}, {3, 1, 3, 7}, {1, 0, 2, 16}, {0, 0, 0, 3}, {5, 2, 50, 200}}) {
            const ProblemShape shape = decodeShape(n, 8, 2, 1);
            const ParamSet params = prepareParams(variant, shape, {{"window", std::to_string(window)}, {"globals", std::to_string(globals)},
                                                                   {"random", std::to_string(random)}, {"block", std::to_string(block)}});
            const auto pattern = buildPattern(variant, shape, params);
            double row = 0;
            for (std::int64_t j = 0; j < n; ++j) row += pattern->allowed(n - 1, j) ? 1 : 0;
            EXPECT_EQ(decodeLayerCost(variant, shape, params).terms.at("scores"), row * 8 * 2)
                << "n=" << n << " w=" << window << " g=" << globals << " r=" << random << " b=" << block;
        }
}

TEST(DecodeCost, LayerTermsAreOneTokensProducts) {
    const double d = 128, h = 64, hkv = 8, hd = h * d; // LLaMA-2-70B's attention shape
    for (const VariantInfo& variant : allVariants()) {
        if (variant.causalSupport == CausalSupport::BidirectionalOnly) continue;
        const LayerCost cost = decodeOf(variant.id, decodeShape(4096, 128, 64, 8));
        EXPECT_TRUE(cost.decode);
        EXPECT_EQ(cost.terms.at("qkv_proj"), hd * (h + 2 * hkv) * d) << variant.id;
        EXPECT_EQ(cost.terms.at("out_proj"), hd * hd) << variant.id;
        EXPECT_EQ(cost.terms.at("ffn"), 8 * hd * hd) << variant.id;
        double core = 0;
        for (const auto& [name, macs] : cost.terms)
            if (name != "qkv_proj" && name != "out_proj" && name != "ffn") core += macs;
        EXPECT_EQ(cost.attentionMacs, core) << variant.id;
        EXPECT_EQ(cost.layerMacs, core + hd * (h + 2 * hkv) * d + 9 * hd * hd) << variant.id;
    }
    EXPECT_THROW(decodeOf("linformer", decodeShape(64, 8, 4, 4)), InputError);
}

TEST(DecodeCost, RecurrentAndMixedVariantsFollowTheirStateRules) {
    const double n = 100, d = 16, h = 6, hkv = 2;
    const ProblemShape shape = decodeShape(100, 16, 6, 2);
    const std::vector<std::pair<std::string, double>> linear = {
        {"elu", d * d + d}, {"taylor", (d + 1) * (d + 1)}, {"efficient", d * d + 2 * d}};
    for (const auto& [kernel, state] : linear) {
        const LayerCost cost = decodeOf("linear", shape, {{"kernel", kernel}});
        EXPECT_FALSE(cost.retainedKeys) << kernel;
        EXPECT_EQ(cost.kvCacheBytes, hkv * state * 4) << kernel;
        EXPECT_EQ(cost.terms.at("feature_map"), (h + hkv) * d) << kernel;
        EXPECT_EQ(cost.terms.at("linear_state"), (h + hkv) * d * d) << kernel;
        EXPECT_EQ(cost.terms.at("scores") + cost.terms.at("weights_v"), 0) << kernel;
    }
    const double m = 24;
    const LayerCost performer = decodeOf("performer", shape, {{"features", "24"}});
    EXPECT_FALSE(performer.retainedKeys);
    EXPECT_EQ(performer.kvCacheBytes, hkv * (m * d + m + 1) * 4);
    EXPECT_EQ(performer.terms.at("feature_map"), (h + hkv) * m * d);
    EXPECT_EQ(performer.terms.at("linear_state"), (h + hkv) * m * d);
    EXPECT_EQ(performer.exps, (h + hkv) * m);

    for (const std::int64_t context : {1, 7, 30, 31, 100}) {
        const double c = 10, inChunk = static_cast<double>((context - 1) % 10 + 1), start = static_cast<double>(context) - inChunk;
        const LayerCost mixed = decodeOf("mixed_chunk", decodeShape(context, 16, 6, 2), {{"chunk", "10"}});
        ASSERT_TRUE(mixed.retainedKeys);
        EXPECT_EQ(*mixed.retainedKeys, static_cast<std::int64_t>(inChunk)) << context;
        EXPECT_EQ(mixed.kvCacheBytes, (inChunk * hkv * 2 * d + hkv * d * d) * 4) << context;
        EXPECT_EQ(mixed.terms.at("scores"), inChunk * d * h) << context;
        EXPECT_EQ(mixed.exps, 0) << context;
        const double closes = context % 10 == 0 ? hkv * c * d * d : 0;
        EXPECT_EQ(mixed.terms.at("linear_state"), (start > 0 ? h * d * d : 0) + closes) << context;
    }

    const LayerCost relu2 = decodeOf("relu2", shape);
    EXPECT_EQ(*relu2.retainedKeys, 100);
    EXPECT_EQ(relu2.terms.at("scores"), n * d * h);
    EXPECT_EQ(relu2.exps, 0);
    const LayerCost lsh = decodeOf("lsh", shape, {{"buckets", "4"}, {"rounds", "2"}, {"shared_qk", "false"}});
    EXPECT_EQ(*lsh.retainedKeys, 100);
    EXPECT_EQ(lsh.kvCacheBytes, n * hkv * 2 * d * 4);
    EXPECT_EQ(lsh.terms.at("scores"), 2 * n / 4 * d * h);
    EXPECT_EQ(lsh.terms.at("hashing"), 2 * d * 2 * (h + hkv));
    for (const std::string id : {"bigbird", "strided", "full"})
        EXPECT_EQ(decodeOf(id, shape).kvCacheBytes, n * hkv * 2 * d * 4) << id;
}

TEST(DecodeTiming, TimesOneStepWithTheStepsMacs) {
    TimingRequest request;
    request.variant = "chunk";
    request.shape = decodeShape(300, 16, 4, 2);
    request.overrides = {{"chunk", "64"}};
    request.budgetSeconds = 0.01;
    const TimingResult timing = timeDecodeStep(request);
    EXPECT_GT(timing.medianSeconds, 0);
    EXPECT_GE(timing.repeats, 3);
    EXPECT_EQ(timing.attentionMacs, 2.0 * (299 % 64 + 1) * 16 * 4);
    request.variant = "linformer";
    EXPECT_THROW(timeDecodeStep(request), InputError);
}

} // namespace
} // namespace attnlab
