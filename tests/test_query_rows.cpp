// Queries that are not the whole sequence (ProblemShape::queries, `--queries m`): the last m rows of the
// pattern, the run and the cost against the whole sequence's, m = 1 against the decoding step, and the
// command line's files, JSON and refusals.
#include "core/cost/cost_model.h"
#include "core/decode/decode.h"
#include "core/decode/decode_step.h"
#include "core/errors.h"
#include "core/registry.h"
#include "support/variant_runner.h"
#include "test_cli_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace attnlab {
namespace {

using testing::Call;

// The last m rows of every head of t.
Tensor3 lastRows(const Tensor3& t, std::int64_t m) {
    Tensor3 rows(t.heads, m, t.cols);
    for (int h = 0; h < t.heads; ++h)
        for (std::int64_t r = 0; r < m; ++r)
            for (std::int64_t c = 0; c < t.cols; ++c) rows.at(h, r, c) = t.at(h, t.rows - m + r, c);
    return rows;
}

// The queries' inputs: Q's last m rows, K and V whole. A variant whose keys are its queries (lsh with
// shared_qk) reads every position's query from K.
RunResult runQueries(const Call& call, const testing::Inputs& whole, std::int64_t m, const ParamSet& params) {
    const VariantInfo& variant = requireVariant(call.id);
    const Tensor3 q = lastRows(whole.q, m);
    const bool ownKeys = !variant.needsKeys || variant.needsKeys(params);
    const AttentionInputs inputs{&q, ownKeys ? &whole.k : &whole.q, &whole.v};
    RunOptions options;
    options.causal = call.causal;
    options.params = params;
    options.threads = call.threads;
    options.wantWeights = true;
    options.useReference = call.useReference;
    return variant.run(inputs, options);
}

std::vector<std::string> registeredIds() {
    std::vector<std::string> ids;
    for (const VariantInfo& variant : allVariants()) ids.push_back(variant.id);
    return ids;
}

class EveryVariant : public ::testing::TestWithParam<std::string> {};

// Every variant with a mask takes queries; one without either takes them or refuses them as bad input.
TEST_P(EveryVariant, TakesQueriesOrRefusesThem) {
    const VariantInfo& variant = requireVariant(GetParam());
    EXPECT_TRUE(variant.queryRows || !variant.hasMask) << variant.id;
    ProblemShape shape;
    shape.n = 16;
    shape.d = shape.dv = 8;
    shape.causal = variant.causalSupport == CausalSupport::CausalOnly;
    shape.queries = 4;
    if (variant.queryRows)
        EXPECT_NO_THROW(prepareParams(variant, shape, {}));
    else
        EXPECT_THROW(prepareParams(variant, shape, {}), InputError);
    shape.queries = 17;
    EXPECT_THROW(prepareParams(variant, shape, {}), InputError);
    shape.queries = shape.n; // every position: the ordinary problem
    EXPECT_NO_THROW(prepareParams(variant, shape, {}));
}

// The run with Q's last m rows equals the whole run's last m rows (output and weights [h, m, n]), on both
// paths, causal or not, with grouped key/value heads.
TEST_P(EveryVariant, RunEqualsTheLastRowsOfTheWholeRun) {
    const VariantInfo& variant = requireVariant(GetParam());
    if (!variant.queryRows) GTEST_SKIP() << variant.id << " takes no queries";
    constexpr int heads = 4;
    for (const std::int64_t n : {13, 70})
        for (const Call& base : testing::representativeCalls(n)) {
            if (base.id != variant.id) continue;
            for (const int kvHeads : {1, heads})
                for (const bool reference : {false, true}) {
                    testing::Inputs whole{testing::randomTensor(heads, n, 8, 41), testing::randomTensor(kvHeads, n, 8, 42),
                                          testing::randomTensor(kvHeads, n, 6, 43)};
                    Call call = base;
                    call.useReference = reference;
                    call.threads = 2;
                    const ParamSet params = testing::resolve(call, whole.view().shape(call.causal));
                    if (variant.needsKeys && !variant.needsKeys(params)) whole.k = whole.q; // shared keys: every position's query
                    const RunResult all = testing::runCall(call, whole);
                    for (const std::int64_t m : {std::int64_t{1}, std::int64_t{5}, n - 1, n}) {
                        const RunResult part = runQueries(call, whole, m, params);
                        ASSERT_EQ(part.out.rows, m);
                        ASSERT_TRUE(part.weights.has_value());
                        ASSERT_EQ(part.weights->rows, m);
                        ASSERT_EQ(part.weights->cols, n);
                        for (int t = 0; t < heads; ++t)
                            for (std::int64_t r = 0; r < m; ++r) {
                                for (std::int64_t c = 0; c < part.out.cols; ++c) {
                                    const float expected = all.out.at(t, n - m + r, c);
                                    ASSERT_NEAR(part.out.at(t, r, c), expected, 2e-5 + 2e-4 * std::abs(expected))
                                        << testing::describe(call) << " n=" << n << " m=" << m << " h_kv=" << kvHeads
                                        << " head " << t << " row " << r;
                                }
                                for (std::int64_t j = 0; j < n; ++j)
                                    ASSERT_NEAR(part.weights->at(t, r, j), all.weights->at(t, n - m + r, j), 2e-5)
                                        << testing::describe(call) << " n=" << n << " m=" << m << " weight " << r << "," << j;
                            }
                    }
                }
        }
}

// m = 1 with --causal is the decoding step: the same output and the same count.
TEST_P(EveryVariant, OneCausalQueryIsTheDecodingStep) {
    const VariantInfo& variant = requireVariant(GetParam());
    if (!variant.queryRows || variant.causalSupport == CausalSupport::BidirectionalOnly) GTEST_SKIP();
    constexpr int heads = 4, kvHeads = 2;
    for (const std::int64_t n : {1, 37})
        for (const Call& base : testing::representativeCalls(n)) {
            if (base.id != variant.id || !base.causal) continue;
            testing::Inputs whole{testing::randomTensor(heads, n, 8, 51), testing::randomTensor(kvHeads, n, 8, 52),
                                  testing::randomTensor(kvHeads, n, 8, 53)};
            const ParamSet params = testing::resolve(base, whole.view().shape(true));
            if (variant.needsKeys && !variant.needsKeys(params)) whole.k = whole.q;
            const RunResult one = runQueries(base, whole, 1, params);
            const AttentionInputs context = whole.view();
            const auto step = prepareDecodeStep(variant, context, params, DecodeOptions{});
            std::vector<float> out(static_cast<std::size_t>(heads * 8));
            step->run(out.data());
            for (int t = 0; t < heads; ++t)
                for (std::int64_t c = 0; c < 8; ++c) {
                    const float expected = out[static_cast<std::size_t>(t * 8 + c)];
                    EXPECT_NEAR(one.out.at(t, 0, c), expected, 2e-5 + 2e-4 * std::abs(expected)) << testing::describe(base) << " n=" << n;
                }

            ProblemShape shape = whole.view().shape(true);
            shape.queries = 1;
            const LayerCost rows = layerCost(variant, shape, params), decode = decodeLayerCost(variant, whole.view().shape(true), params);
            EXPECT_EQ(rows.terms, decode.terms) << testing::describe(base) << " n=" << n;
            EXPECT_EQ(rows.exps, decode.exps) << testing::describe(base);
            EXPECT_EQ(rows.layerMacs, decode.layerMacs) << testing::describe(base);
        }
}

// The pattern and its components of the last m rows are the whole pattern's rows n − m … n − 1; the core's
// count is the sum of those rows' allowed keys, counted here cell by cell; the projections and FFN are the
// m new tokens'.
TEST_P(EveryVariant, PatternAndCostOfTheLastRows) {
    const VariantInfo& variant = requireVariant(GetParam());
    if (!variant.queryRows) GTEST_SKIP();
    constexpr std::int64_t n = 45, d = 8;
    constexpr int heads = 3;
    for (const Call& call : testing::representativeCalls(n)) {
        if (call.id != variant.id) continue;
        testing::Inputs whole = testing::randomInputs(heads, n, d, d, 61);
        ProblemShape shape = whole.view().shape(call.causal);
        const ParamSet params = testing::resolve(call, shape);
        if (variant.needsKeys && !variant.needsKeys(params)) whole.k = whole.q;
        const AttentionInputs all = whole.view();
        const auto wholeMask = denseMask(*buildPattern(variant, shape, params, &all));
        const auto wholeLabels = denseComponents(*buildComponents(variant, shape, params, &all));
        for (const std::int64_t m : {std::int64_t{1}, std::int64_t{7}, n}) {
            const Tensor3 q = lastRows(whole.q, m);
            const AttentionInputs inputs{&q, &whole.k, &whole.v};
            shape.queries = m;
            const auto mask = denseMask(*buildPattern(variant, shape, params, &inputs));
            const auto labels = denseComponents(*buildComponents(variant, shape, params, &inputs));
            ASSERT_EQ(mask.size(), static_cast<std::size_t>(m * n));
            EXPECT_TRUE(std::equal(mask.begin(), mask.end(), wholeMask.end() - m * n)) << testing::describe(call) << " m=" << m;
            EXPECT_TRUE(std::equal(labels.begin(), labels.end(), wholeLabels.end() - m * n)) << testing::describe(call);

            const LayerCost cost = layerCost(variant, shape, params);
            const double width = heads * d, tokens = static_cast<double>(m);
            EXPECT_EQ(cost.terms.at("qkv_proj"), tokens * width * 3 * heads * d);
            EXPECT_EQ(cost.terms.at("out_proj"), tokens * width * width);
            EXPECT_EQ(cost.terms.at("ffn"), 8 * tokens * width * width);
            if (variant.dataDependentPattern) continue; // lsh: an expected count (below)
            const double cells = static_cast<double>(std::count(mask.begin(), mask.end(), std::uint8_t{1}));
            EXPECT_EQ(cost.terms.at("scores"), cells * d * heads) << testing::describe(call) << " m=" << m;
            EXPECT_EQ(cost.terms.at("weights_v"), cells * d * heads) << testing::describe(call) << " m=" << m;
        }
    }
}

INSTANTIATE_TEST_SUITE_P(Queries, EveryVariant, ::testing::ValuesIn(registeredIds()),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

// The last m of n queries, d = 64.
ProblemShape lastQueries(std::int64_t n, std::int64_t m, int heads, int kvHeads = 0, bool causal = false) {
    ProblemShape shape;
    shape.n = n;
    shape.queries = m;
    shape.d = shape.dv = 64;
    shape.heads = heads;
    shape.kvHeads = kvHeads;
    shape.causal = causal;
    return shape;
}

// Full causal: rows n − m … n − 1 see n − m + 1 … n keys, not half the m × n rectangle.
TEST(QueryCost, FullCausalCountsItsRowsNotHalfTheRectangle) {
    const ProblemShape shape = lastQueries(16384, 512, 12, 4, true);
    const VariantInfo& full = requireVariant("full");
    const LayerCost cost = layerCost(full, shape, prepareParams(full, shape, {}));
    double pairs = 0;
    for (std::int64_t i = shape.n - shape.queries; i < shape.n; ++i) pairs += static_cast<double>(i + 1);
    EXPECT_EQ(cost.terms.at("scores"), pairs * 64 * 12);
    EXPECT_EQ(cost.terms.at("qkv_proj"), 512.0 * 768 * (12 + 2 * 4) * 64);
    EXPECT_EQ(cost.exps, pairs * 12);
}

// lsh: m rows of the expected rounds·n/b keys, and the m new tokens' queries and keys hashed.
TEST(QueryCost, LshCountsItsNewRowsAsDecodingDoes) {
    const ProblemShape shape = lastQueries(4096, 100, 2);
    const VariantInfo& lsh = requireVariant("lsh");
    const LayerCost cost = layerCost(lsh, shape, prepareParams(lsh, shape, {{"buckets", "64"}, {"rounds", "2"}}));
    EXPECT_EQ(cost.terms.at("scores"), 100.0 * (2.0 * 4096 / 64) * 64 * 2);
    EXPECT_EQ(cost.terms.at("hashing"), 100.0 * 2 * 64 * 32 * (2 + 2));
}

// ---------------------------------------------------------------------------------------------------
// Command line

using clitest::CliTest;
using clitest::Outcome;

// Row-major floats of every head of t, and the [h, m, ·] floats of its last m rows.
std::vector<float> floatsOf(const Tensor3& t) { return {t.values.begin(), t.values.end()}; }

class QueriesCli : public CliTest {
protected:
    void writeTensor(const std::string& name, const Tensor3& t) const { writeArray(name, {t.heads, t.rows, t.cols}, floatsOf(t)); }
    // A refused command: exit 2, one line on stderr, no output file.
    void expectBadInput(const std::vector<std::string>& args) const {
        const Outcome outcome = run(args);
        std::string command;
        for (const auto& arg : args) command += arg + " ";
        EXPECT_TRUE(outcome.exited) << command;
        EXPECT_EQ(outcome.exitCode, 2) << command << outcome.err;
        EXPECT_EQ(outcome.errLines(), 1u) << command << outcome.err;
        EXPECT_FALSE(std::filesystem::exists(file("x.npy"))) << command;
        EXPECT_FALSE(std::filesystem::exists(file("x.png"))) << command;
    }
};

TEST_F(QueriesCli, PatternWritesTheLastRows) {
    for (const bool causal : {false, true}) {
        std::vector<std::string> base = {"pattern", "--variant", "longformer", "--n", "40", "--set", "globals=3,35"};
        if (causal) base.push_back("--causal");
        auto whole = base, part = base, labels = base;
        whole.insert(whole.end(), {"--out", "whole.npy"});
        part.insert(part.end(), {"--queries", "9", "--out", "part.npy"});
        labels.insert(labels.end(), {"--queries", "9", "--components", "--out", "labels.npy"});
        succeed(whole);
        succeed(part);
        succeed(labels);
        const auto all = clitest::readNpyFile(file("whole.npy")).bytes();
        const clitest::NpyFile rows = clitest::readNpyFile(file("part.npy"));
        ASSERT_EQ(rows.shape, (std::vector<std::int64_t>{9, 40}));
        ASSERT_EQ(clitest::readNpyFile(file("labels.npy")).shape, (std::vector<std::int64_t>{9, 40}));
        const auto mask = rows.bytes();
        EXPECT_TRUE(std::equal(mask.begin(), mask.end(), all.end() - 9 * 40));
        // Causal: key j ≤ n − m + r = 31 + r; position 35 (row 4) is global and sees every key it may.
        for (std::int64_t r = 0; r < 9; ++r)
            for (std::int64_t j = 0; j < 40; ++j) {
                const bool allowed = mask[static_cast<std::size_t>(r * 40 + j)] != 0;
                EXPECT_FALSE(causal && j > 31 + r && allowed) << r << "," << j;
                EXPECT_FALSE(r == 4 && j <= (causal ? 35 : 39) && !allowed) << r << "," << j;
            }
    }
}

TEST_F(QueriesCli, RunWritesTheLastRowsOfOutAndWeights) {
    const Tensor3 q = testing::randomTensor(2, 30, 8, 71), k = testing::randomTensor(1, 30, 8, 72),
                  v = testing::randomTensor(1, 30, 5, 73);
    writeTensor("q.npy", q);
    writeTensor("k.npy", k);
    writeTensor("v.npy", v);
    writeTensor("q6.npy", lastRows(q, 6));
    const std::vector<std::string> base = {"run", "--variant", "strided", "--causal", "--k", "k.npy", "--v", "v.npy"};
    auto whole = base, part = base;
    whole.insert(whole.end(), {"--q", "q.npy", "--out", "o.npy", "--weights", "w.npy"});
    part.insert(part.end(), {"--q", "q6.npy", "--queries", "6", "--out", "o6.npy", "--weights", "w6.npy"});
    succeed(whole);
    succeed(part);
    const auto all = clitest::readNpyFile(file("o.npy")).floats(), weights = clitest::readNpyFile(file("w.npy")).floats();
    const clitest::NpyFile out = clitest::readNpyFile(file("o6.npy")), w = clitest::readNpyFile(file("w6.npy"));
    ASSERT_EQ(out.shape, (std::vector<std::int64_t>{2, 6, 5}));
    ASSERT_EQ(w.shape, (std::vector<std::int64_t>{2, 6, 30}));
    const auto rows = out.floats(), rowWeights = w.floats();
    for (std::size_t h = 0; h < 2; ++h)
        for (std::size_t r = 0; r < 6; ++r) {
            for (std::size_t c = 0; c < 5; ++c) EXPECT_NEAR(rows[(h * 6 + r) * 5 + c], all[(h * 30 + 24 + r) * 5 + c], 1e-5);
            for (std::size_t j = 0; j < 30; ++j)
                EXPECT_NEAR(rowWeights[(h * 6 + r) * 30 + j], weights[(h * 30 + 24 + r) * 30 + j], 1e-6);
        }
}

TEST_F(QueriesCli, CostJsonCountsTheNewTokens) {
    const Outcome outcome = succeed({"cost", "--variant", "chunk", "--n", "100", "--d", "16", "--heads", "2", "--causal",
                                     "--queries", "10", "--set", "chunk=8", "--json"});
    const auto json = clitest::parseJson(outcome.out);
    EXPECT_EQ(json["queries"], 10);
    // Rows 90 … 99 in chunks of 8: row i sees (i mod 8) + 1 keys.
    double pairs = 0;
    for (int i = 90; i < 100; ++i) pairs += i % 8 + 1;
    EXPECT_EQ(json["terms"]["scores"].get<double>(), pairs * 16 * 2);
    EXPECT_EQ(json["terms"]["ffn"].get<double>(), 8.0 * 10 * 32 * 32);
    const auto whole = clitest::parseJson(succeed({"cost", "--variant", "chunk", "--n", "100", "--d", "16", "--heads", "2", "--json"}).out);
    EXPECT_EQ(whole["queries"], 100);
}

TEST_F(QueriesCli, BadQueriesAreOneLineAndNoFile) {
    const Tensor3 q = testing::randomTensor(1, 20, 4, 81), k = testing::randomTensor(1, 20, 4, 82);
    writeTensor("q.npy", q);
    writeTensor("k.npy", k);
    writeTensor("q3.npy", lastRows(q, 3));
    const std::vector<std::vector<std::string>> bad = {
        {"pattern", "--variant", "full", "--n", "20", "--queries", "0", "--out", "x.npy"},
        {"pattern", "--variant", "full", "--n", "20", "--queries", "21", "--out", "x.npy"},
        {"pattern", "--variant", "full", "--n", "20", "--queries", "two", "--out", "x.npy"},
        {"pattern", "--variant", "linear", "--n", "20", "--queries", "3", "--out", "x.npy"},
        {"pattern", "--variant", "full", "--n", "20", "--queries", "3", "--print-expr"},
        {"run", "--variant", "full", "--q", "q.npy", "--k", "k.npy", "--v", "k.npy", "--queries", "4", "--out", "x.npy"},
        {"run", "--variant", "full", "--q", "q3.npy", "--k", "k.npy", "--v", "k.npy", "--out", "x.npy"},
        {"run", "--variant", "performer", "--q", "q3.npy", "--k", "k.npy", "--v", "k.npy", "--queries", "3", "--out", "x.npy"},
        {"run", "--variant", "lsh", "--q", "q3.npy", "--v", "k.npy", "--queries", "3", "--out", "x.npy"},
        {"cost", "--variant", "linformer", "--n", "20", "--d", "4", "--heads", "1", "--queries", "3"},
        {"cost", "--variant", "full", "--n", "20", "--d", "4", "--heads", "1", "--queries", "-1"},
        {"cost", "--variant", "full", "--n", "20", "--d", "4", "--heads", "1", "--queries", "1", "--decode"},
        {"bench", "--variant", "full", "--n", "20", "--queries", "30"},
        {"bench", "--variant", "mixed_chunk", "--n", "20", "--queries", "3"},
        // m = 0, m > n and a number that is not a count, in every command; --queries where it has no meaning
        {"run", "--variant", "full", "--q", "q3.npy", "--k", "k.npy", "--v", "k.npy", "--queries", "0", "--out", "x.npy"},
        {"run", "--variant", "full", "--q", "q.npy", "--k", "k.npy", "--v", "k.npy", "--queries", "21", "--out", "x.npy"},
        {"run", "--variant", "full", "--q", "q3.npy", "--k", "k.npy", "--v", "k.npy", "--queries", "3.0", "--out", "x.npy"},
        {"cost", "--variant", "full", "--n", "20", "--d", "4", "--heads", "1", "--queries", "0"},
        {"cost", "--variant", "full", "--n", "20", "--d", "4", "--heads", "1", "--queries", "21"},
        {"cost", "--variant", "full", "--n", "20", "--d", "4", "--heads", "1", "--queries", "1e1"},
        {"bench", "--variant", "full", "--n", "20", "--queries", "0"},
        {"bench", "--variant", "full", "--n", "20", "--queries", "three"},
        {"bench", "--variant", "linformer", "--n", "20", "--queries", "3"},
        {"bench", "--decode", "--variant", "full", "--n", "20", "--queries", "3"},
        {"figure", "pattern", "--variant", "full", "--n", "20", "--queries", "0", "-o", "x.png"},
        {"figure", "pattern", "--variant", "full", "--n", "20", "--queries", "21", "-o", "x.png"},
        {"figure", "pattern", "--variant", "full", "--n", "20", "--queries", "", "-o", "x.png"},
        {"figure", "pattern", "--variant", "linformer", "--n", "20", "--queries", "3", "-o", "x.png"},
        {"figure", "pattern", "--compare", "full,performer", "--n", "20", "--queries", "3", "-o", "x.png"},
        {"figure", "flops", "--variant", "full", "--n", "20", "--queries", "3", "-o", "x.png"},
    };
    for (const auto& args : bad) expectBadInput(args);
}

} // namespace
} // namespace attnlab
