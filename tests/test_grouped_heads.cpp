// Grouped key/value heads (GQA, MQA): K and V with h_kv heads, h_kv dividing h, query head t reading
// key/value head ⌊t·h_kv/h⌋. For every registered variant the result must equal the run on K and V with
// each head repeated h/h_kv times, and a grouped run must not cost the memory of those repeats.
#include "core/errors.h"
#include "core/measure/timing.h"
#include "core/registry.h"
#include "support/variant_runner.h"
#include "test_cli_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <string>

namespace attnlab {
namespace {

using testing::Call;
using testing::Inputs;

// Each head of t repeated `times` times in a row: head t of the result is head ⌊t / times⌋ of t.
Tensor3 repeatHeads(const Tensor3& t, int times) {
    Tensor3 repeated(t.heads * times, t.rows, t.cols);
    for (int h = 0; h < repeated.heads; ++h) std::copy(t.head(h / times), t.head(h / times) + t.headStride(), repeated.head(h));
    return repeated;
}

double largestMagnitude(const FloatStorage& values) {
    double largest = 0;
    for (const float x : values) largest = std::max(largest, static_cast<double>(std::abs(x)));
    return largest;
}

// Equal up to float rounding relative to the largest entry.
void expectSameValues(const Tensor3& grouped, const Tensor3& repeated, const std::string& what) {
    ASSERT_EQ(grouped.heads, repeated.heads) << what;
    ASSERT_EQ(grouped.rows, repeated.rows) << what;
    ASSERT_EQ(grouped.cols, repeated.cols) << what;
    const double tolerance = 1e-6 * std::max(1.0, largestMagnitude(repeated.values));
    EXPECT_LE(testing::maxAbsDifference(grouped.values, repeated.values), tolerance) << what;
}

TEST(GroupedHeads, KvHeadIsTheConsecutiveGroup) {
    const Tensor3 q(6, 1, 1), kv(2, 1, 1);
    const AttentionInputs inputs{&q, &kv, &kv};
    for (int t = 0; t < 6; ++t) EXPECT_EQ(inputs.kvHead(t), t / 3) << t;
    const AttentionInputs ungrouped{&q, &q, &q};
    for (int t = 0; t < 6; ++t) EXPECT_EQ(ungrouped.kvHead(t), t);
}

// One test per registered variant, so that each passes or is skipped on its own.
class EveryVariant : public ::testing::TestWithParam<std::string> {};

TEST_P(EveryVariant, GroupedRunEqualsTheRunOnRepeatedKeysAndValues) {
    const VariantInfo& variant = requireVariant(GetParam());
    constexpr std::int64_t n = 29, d = 8, dv = 6;
    for (const Call& base : testing::representativeCalls(n)) {
        if (base.id != variant.id) continue;
        for (const int heads : {4, 6})
            for (const int kvHeads : {1, 2, heads}) {
                const Tensor3 q = testing::randomTensor(heads, n, d, 11);
                Inputs grouped{q, testing::randomTensor(kvHeads, n, d, 12), testing::randomTensor(kvHeads, n, dv, 13)};
                Inputs repeated{q, repeatHeads(grouped.k, heads / kvHeads), repeatHeads(grouped.v, heads / kvHeads)};
                for (const bool reference : {false, true}) {
                    Call call = base;
                    call.useReference = reference;
                    const std::string what = testing::describe(call) + " h=" + std::to_string(heads) +
                                             " h_kv=" + std::to_string(kvHeads);
                    const RunResult a = testing::runCall(call, grouped), b = testing::runCall(call, repeated);
                    expectSameValues(a.out, b.out, what + ": out");
                    ASSERT_TRUE(a.weights && b.weights) << what;
                    expectSameValues(*a.weights, *b.weights, what + ": weights");
                }
            }
    }
}

// Peak memory a run adds (the inputs already exist), measured the way the timing view measures it.
double extraBytesOfRun(const VariantInfo& variant, const AttentionInputs& inputs, const ParamSet& params, bool causal) {
    RunOptions options;
    options.causal = causal;
    options.params = params;
    RunResult previous;
    options.recycle = &previous;
    return timeRepeated(
               [&] {
                   previous = variant.run(inputs, options);
                   return true;
               },
               0.0, 1, 1)
        .peakExtraBytes;
}

// A kernel that copied each key/value head h/h_kv times would add (h − h_kv)·n·(d + dv) floats (7.3 MB
// here); a grouped run must add no more than the same run on ungrouped K and V, within half of that.
TEST_P(EveryVariant, GroupedRunDoesNotPayForRepeatedKeysAndValues) {
#if defined(__SANITIZE_ADDRESS__)
    GTEST_SKIP() << "AddressSanitizer's allocator keeps freed memory in quarantine: resident memory says nothing here";
#endif
    const VariantInfo& variant = requireVariant(GetParam());
    constexpr int heads = 8, kvHeads = 1;
    constexpr std::int64_t n = 2048, d = 64;
    const double repeatBytes = 4.0 * (heads - kvHeads) * n * 2.0 * d;
    const Tensor3 q = testing::randomTensor(heads, n, d, 21);
    const Tensor3 k = testing::randomTensor(heads, n, d, 22), v = testing::randomTensor(heads, n, d, 23);
    const Tensor3 k1 = testing::randomTensor(kvHeads, n, d, 24), v1 = testing::randomTensor(kvHeads, n, d, 25);
    const AttentionInputs ungrouped{&q, &k, &v}, grouped{&q, &k1, &v1};
    const bool causal = variant.causalSupport != CausalSupport::BidirectionalOnly;
    const ParamSet params = prepareParams(variant, ungrouped.shape(causal), {});
    extraBytesOfRun(variant, grouped, params, causal); // workspaces kept between calls exist before measuring
    extraBytesOfRun(variant, ungrouped, params, causal);
    const double groupedBytes = extraBytesOfRun(variant, grouped, params, causal);
    const double ungroupedBytes = extraBytesOfRun(variant, ungrouped, params, causal);
    EXPECT_LT(groupedBytes, ungroupedBytes + repeatBytes / 2)
        << variant.id << ": a grouped run added " << groupedBytes << " bytes, an ungrouped one " << ungroupedBytes;
}

std::vector<std::string> registeredIds() {
    std::vector<std::string> ids;
    for (const VariantInfo& variant : allVariants()) ids.push_back(variant.id);
    return ids;
}

INSTANTIATE_TEST_SUITE_P(GroupedHeads, EveryVariant, ::testing::ValuesIn(registeredIds()),
                         [](const ::testing::TestParamInfo<std::string>& param) { return param.param; });

TEST(GroupedHeads, ShapesReportTheirKeyValueHeads) {
    const Tensor3 q(6, 5, 4), kv(3, 5, 4);
    EXPECT_EQ((AttentionInputs{&q, &kv, &kv}.shape(false).keyValueHeads()), 3);
    EXPECT_EQ((AttentionInputs{&q, nullptr, &kv}.shape(false).keyValueHeads()), 3);
    ProblemShape shape;
    shape.heads = 8;
    EXPECT_EQ(shape.keyValueHeads(), 8);
    shape.kvHeads = 3;
    shape.n = 4;
    shape.d = 4;
    shape.dv = 4;
    EXPECT_THROW(prepareParams(requireVariant("full"), shape, {}), InputError);
}

// The command line takes K and V with fewer heads than Q and rejects K and V that disagree.
class GroupedFiles : public clitest::CliTest {};

TEST_F(GroupedFiles, RunReadsGroupedKeyValueFiles) {
    constexpr std::int64_t n = 12, d = 4;
    const auto q = clitest::gaussianValues(4 * n * d, 1), k = clitest::gaussianValues(2 * n * d, 2);
    const auto v = clitest::gaussianValues(2 * n * d, 3);
    std::vector<float> kRepeated, vRepeated; // head t of the repeated files is head ⌊t/2⌋
    for (int t = 0; t < 4; ++t) {
        kRepeated.insert(kRepeated.end(), k.begin() + (t / 2) * n * d, k.begin() + (t / 2 + 1) * n * d);
        vRepeated.insert(vRepeated.end(), v.begin() + (t / 2) * n * d, v.begin() + (t / 2 + 1) * n * d);
    }
    writeArray("q.npy", {4, n, d}, q);
    writeArray("k.npy", {2, n, d}, k);
    writeArray("v.npy", {2, n, d}, v);
    writeArray("k4.npy", {4, n, d}, kRepeated);
    writeArray("v4.npy", {4, n, d}, vRepeated);
    succeed({"run", "--variant", "linear", "--causal", "--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--out", "grouped.npy"});
    succeed({"run", "--variant", "linear", "--causal", "--q", "q.npy", "--k", "k4.npy", "--v", "v4.npy", "--out", "repeated.npy"});
    const auto grouped = clitest::readNpyFile(file("grouped.npy")), repeated = clitest::readNpyFile(file("repeated.npy"));
    EXPECT_EQ(grouped.shape, (std::vector<std::int64_t>{4, n, d}));
    EXPECT_EQ(grouped.data, repeated.data);

    const std::vector<std::pair<std::vector<std::string>, std::string>> rejected = {
        {{"--k", "k4.npy", "--v", "v.npy"}, "same number of heads"},
        {{"--k", "k.npy", "--v", "v4.npy"}, "same number of heads"},
    };
    for (const auto& [files, mention] : rejected) {
        std::vector<std::string> args = {"run", "--variant", "linear", "--q", "q.npy", "--out", "bad.npy"};
        args.insert(args.end(), files.begin(), files.end());
        const clitest::Outcome outcome = run(args);
        EXPECT_NE(outcome.exitCode, 0) << clitest::describe(args);
        EXPECT_EQ(outcome.errLines(), 1u) << outcome.err;
        EXPECT_NE(outcome.err.find(mention), std::string::npos) << outcome.err;
        EXPECT_FALSE(std::filesystem::exists(file("bad.npy")));
    }
    writeArray("v3.npy", {3, n, d}, clitest::gaussianValues(3 * n * d, 4));
    const clitest::Outcome outcome = run({"run", "--variant", "linear", "--q", "q.npy", "--k", "k.npy", "--v", "v3.npy", "--out", "bad.npy"});
    EXPECT_NE(outcome.err.find("do not divide"), std::string::npos) << outcome.err;
}

} // namespace
} // namespace attnlab
