// Every integer parameter of every variant at 2^62 and 2^63−1: either refused with one line (a range
// or a limit that says how to raise it) or a correct result — the pattern's ranges, counts and
// predicate agree, outputs equal W·V and the reference kernels, and where the meaning of a huge value
// is known (a window wider than the sequence, ...) the mask is the one the spec's formula gives.
// Run under the asan preset with UBSAN_OPTIONS=halt_on_error=1 so a wrapped integer fails the test.
#include "core/cost/job_limits.h"
#include "core/errors.h"
#include "core/registry.h"
#include "support/variant_runner.h"

#include "test_cli_harness.h"

#include <cmath>
#include <limits>

namespace attnlab {
namespace {

using testing::Call;
using testing::Inputs;

constexpr std::int64_t kHuge62 = std::int64_t{1} << 62;
constexpr std::int64_t kMaxInt = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kN = 16;

std::vector<bool> causalModes(const VariantInfo& variant) {
    if (variant.causalSupport == CausalSupport::CausalOnly) return {true};
    if (variant.causalSupport == CausalSupport::BidirectionalOnly) return {false};
    return {false, true};
}

// A refusal must be an InputError with one line; anything else escapes and fails the test.
template <typename Body>
bool refusedCleanly(const std::string& context, Body body) {
    try {
        body();
        return false;
    } catch (const InputError& error) {
        const std::string message = error.what();
        EXPECT_FALSE(message.empty()) << context;
        EXPECT_EQ(message.find('\n'), std::string::npos) << context << ": " << message;
        return true;
    }
}

void expectConsistentPattern(const Pattern& pattern, const std::string& context) {
    const auto dense = denseMask(pattern);
    for (std::int64_t i = 0; i < kN; ++i) {
        std::int64_t inRow = 0;
        for (std::int64_t j = 0; j < kN; ++j) {
            const bool member = dense[static_cast<std::size_t>(i * kN + j)] != 0;
            inRow += member;
            ASSERT_EQ(member, pattern.allowed(i, j)) << context << " cell " << i << "," << j;
        }
        EXPECT_EQ(pattern.rowCount(i), inRow) << context << " row " << i;
        EXPECT_GT(inRow, 0) << context << " row " << i << " is empty";
    }
}

void expectRunIsLinearInV(const Call& call, const Inputs& inputs, const std::string& context) {
    const RunResult fast = testing::runCall(call, inputs);
    ASSERT_TRUE(fast.weights) << context;
    for (const float value : fast.out.values) ASSERT_TRUE(std::isfinite(value)) << context;
    const auto expected = testing::weightsTimesValues(*fast.weights, inputs.v);
    EXPECT_LT(testing::relativeError(fast.out.values, expected), 1e-4) << context << ": out != W·V";
    Call reference = call;
    reference.useReference = true;
    const RunResult slow = testing::runCall(reference, inputs);
    EXPECT_LT(testing::maxAbsDifference(fast.out.values, slow.out.values), 1e-4) << context << ": fast and reference differ";
}

TEST(ParamExtremes, EveryIntegerParameterAtTwoToThe62AndInt64MaxIsRefusedOrCorrect) {
    const Inputs inputs = testing::randomInputs(2, kN, 4, 3, 7);
    int accepted = 0, refused = 0;
    for (const auto& variant : allVariants())
        for (const auto& spec : variant.params) {
            if (spec.type != ParamType::Integer) continue;
            for (const std::int64_t value : {kHuge62, kMaxInt})
                for (const bool causal : causalModes(variant)) {
                    Call call{variant.id, causal, {{spec.key, std::to_string(value)}}};
                    const std::string context = testing::describe(call);
                    const ProblemShape shape = testing::shapeOf(inputs, causal);
                    const bool isRefused = refusedCleanly(context, [&] {
                        const ParamSet params = prepareParams(variant, shape, call.set);
                        requireRunLimits(variant, shape, params, true);
                    });
                    if (isRefused) {
                        ++refused;
                        continue;
                    }
                    ++accepted;
                    expectConsistentPattern(*testing::patternOf(call, inputs), context);
                    expectRunIsLinearInV(call, inputs, context);
                }
        }
    EXPECT_GT(accepted, 20);
    EXPECT_GT(refused, 5); // lsh rounds and buckets, performer features, linformer k: the work limit
}

// Parameters whose cost explodes are refused by the work limit, with the limit and how to raise it.
TEST(ParamExtremes, ExplodingParametersAreRefusedNamingTheWorkLimit) {
    struct Case {
        std::string id;
        std::int64_t n;
        ParamOverrides set;
    };
    const std::vector<Case> cases = {
        {"lsh", 1024, {{"rounds", "1000000000"}}},
        {"lsh", 1024, {{"buckets", "4611686018427387904"}}},
        {"performer", 1024, {{"features", "1000000000000"}}},
        {"linformer", 1024, {{"k", "1000000000000"}}},
        {"full", 1000000, {{"impl", "dense"}}},
    };
    for (const auto& c : cases) {
        ProblemShape shape;
        shape.heads = 1;
        shape.n = c.n;
        shape.d = shape.dv = 64;
        const VariantInfo& variant = requireVariant(c.id);
        const ParamSet params = prepareParams(variant, shape, c.set);
        try {
            requireRunLimits(variant, shape, params, false);
            ADD_FAILURE() << c.id << " was accepted";
        } catch (const InputError& error) {
            const std::string message = error.what();
            EXPECT_NE(message.find("over the work limit of 1e+13"), std::string::npos) << message;
            EXPECT_NE(message.find("--max-macs"), std::string::npos) << message;
        }
    }
}

// The spec's formula at a huge value, evaluated independently: the pattern must be exactly this.
struct KnownMeaning {
    std::string id;
    std::string key;
    bool causal;
    std::function<bool(std::int64_t i, std::int64_t j)> rule;
};

TEST(ParamExtremes, HugeValuesMeanWhatTheFormulaSays) {
    const auto all = [](std::int64_t, std::int64_t) { return true; };
    const auto lower = [](std::int64_t i, std::int64_t j) { return j <= i; };
    const auto diagonal = [](std::int64_t i, std::int64_t j) { return i == j; };
    const std::vector<KnownMeaning> cases = {
        {"strided", "stride", false, all}, // |i−j| ≤ l for every pair
        {"strided", "stride", true, lower},
        {"chunk", "chunk", false, all},    // one chunk
        {"chunk", "chunk", true, lower},
        {"fixed", "block", false, all},    // one block (summary defaults to block/8, all columns)
        {"fixed", "block", true, lower},
        {"longformer", "window", false, all},
        {"longformer", "dilation", false, diagonal}, // (i−j) mod δ = 0 only at j = i
        {"xl", "segment", true, lower},
        {"xl", "memory", true, lower},
        {"bigbird", "window", false, all},
        {"bigbird", "globals", true, lower},
        {"bigbird", "random", false, all},           // every free column drawn
    };
    for (const auto& known : cases)
        for (const std::int64_t value : {kHuge62, kMaxInt}) {
            Call call{known.id, known.causal, {{known.key, std::to_string(value)}}};
            const auto pattern = testing::patternOfShape(call, kN);
            EXPECT_EQ(testing::maskOf(*pattern), testing::maskFromRule(kN, known.rule)) << testing::describe(call);
            expectConsistentPattern(*pattern, testing::describe(call));
        }
}

// Through the command line: the example gives the full mask (or would be refused), never a
// wrapped one; huge shapes are refused with one line naming the limit.
class ParamExtremesCli : public clitest::CliTest {};

TEST_F(ParamExtremesCli, StridedWithInt64MaxStrideGivesTheAllPairsMask) {
    succeed({"pattern", "--variant", "strided", "--n", "16", "--set", "stride=9223372036854775807", "--out", "m.npy"});
    const auto mask = clitest::readNpyFile(file("m.npy")).bytes();
    EXPECT_EQ(mask, std::vector<std::uint8_t>(16 * 16, 1));
}

TEST_F(ParamExtremesCli, HugeShapesAndWorkAreRefusedWithTheLimitAndHowToRaiseIt) {
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"pattern", "--variant", "full", "--n", "2147483647", "--out", "m.npy"}, "--memory-budget"},
        {{"pattern", "--variant", "chunk", "--n", "100000", "--memory-budget", "1G", "--out", "m.npy"}, "job budget"},
        {{"pattern", "--variant", "full", "--n", "64", "--max-macs", "100", "--out", "m.npy"}, "--max-macs"},
        {{"pattern", "--variant", "full", "--n", "0", "--out", "m.npy"}, "--n"},
        {{"pattern", "--variant", "full", "--n", "9223372036854775808", "--out", "m.npy"}, "--n"},
        {{"pattern", "--variant", "full", "--n", "16", "--d", "0", "--out", "m.npy"}, "--d"},
        {{"pattern", "--variant", "full", "--n", "16", "--memory-budget", "lots", "--out", "m.npy"}, "--memory-budget"},
    };
    for (const auto& [args, mention] : cases) {
        const auto outcome = run(args);
        EXPECT_TRUE(outcome.exited) << clitest::describe(args);
        EXPECT_NE(outcome.exitCode, 0) << clitest::describe(args);
        EXPECT_EQ(outcome.errLines(), 1u) << clitest::describe(args) << ": " << outcome.err;
        EXPECT_NE(outcome.err.find(mention), std::string::npos) << clitest::describe(args) << ": " << outcome.err;
        EXPECT_TRUE(listing().empty()) << clitest::describe(args);
    }
}

TEST_F(ParamExtremesCli, CostAcceptsHugeShapesWithoutWrapping) {
    const auto outcome = succeed({"cost", "--variant", "strided", "--n", "1000000", "--d", "1048576", "--heads",
                                  "65536", "--set", "stride=9223372036854775807", "--json"});
    const auto json = clitest::parseJson(outcome.out);
    const double n = 1000000.0, hd = 1048576.0 * 65536.0;
    // stride ≥ n is the all-pairs pattern: scores = n²·d per head.
    EXPECT_DOUBLE_EQ(json["terms"]["scores"].get<double>(), n * n * hd);
}

} // namespace
} // namespace attnlab
