// Parameter handling through the registry: the documented defaults (some depending on n, d or an earlier
// parameter), and every out-of-range value rejected with InputError instead of being clamped.
#include "core/errors.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <string>

namespace attnlab {
namespace {

ProblemShape shapeFor(std::int64_t n, std::int64_t d = 8, bool causal = false) {
    ProblemShape shape;
    shape.heads = 2;
    shape.n = n;
    shape.d = d;
    shape.dv = d;
    shape.causal = causal;
    return shape;
}

ParamSet prepare(const std::string& id, const ProblemShape& shape, const ParamOverrides& set = {}) {
    return prepareParams(requireVariant(id), shape, set);
}

std::int64_t resolvedInteger(const std::string& id, const std::string& key, std::int64_t n, const ParamOverrides& set = {},
                             std::int64_t d = 8) {
    return prepare(id, shapeFor(n, d, id == "xl"), set).integer(key);
}

// Expects an InputError whose message is one line and names `mention`.
void expectRejected(const std::string& id, const ProblemShape& shape, const ParamOverrides& set,
                    const std::string& mention) {
    std::string context = id;
    for (const auto& [key, value] : set) context += " " + key + "=" + value;
    try {
        prepare(id, shape, set);
        ADD_FAILURE() << context << " was accepted";
    } catch (const InputError& error) {
        const std::string message = error.what();
        EXPECT_EQ(message.find('\n'), std::string::npos) << message;
        EXPECT_NE(message.find(mention), std::string::npos) << context << ": '" << message << "' should name " << mention;
    }
}

TEST(ParamDefaults, SquareRootDefaultsAreCeilSqrtN) {
    const std::vector<std::pair<std::int64_t, std::int64_t>> roots = {
        {1, 1}, {2, 2}, {4, 2}, {5, 3}, {16, 4}, {17, 5}, {37, 7}, {65536, 256}, {65537, 257},
        {999999999999, 1000000}, {1000000000000, 1000000}, {1000000000001, 1000001}};
    for (const auto& [n, root] : roots) {
        EXPECT_EQ(resolvedInteger("strided", "stride", n), root) << n;
        EXPECT_EQ(resolvedInteger("fixed", "block", n), root) << n;
        EXPECT_EQ(resolvedInteger("chunk", "chunk", n), root) << n;
        EXPECT_EQ(resolvedInteger("longformer", "window", n), 2 * root) << n;
    }
    EXPECT_EQ(resolvedInteger("longformer", "dilation", 100), 1);
    EXPECT_TRUE(prepare("longformer", shapeFor(100)).indices("globals").empty());
}

TEST(ParamDefaults, FixedSummaryFollowsTheBlockInUse) {
    EXPECT_EQ(resolvedInteger("fixed", "summary", 100), 1);                        // l = 10
    EXPECT_EQ(resolvedInteger("fixed", "summary", 4096), 8);                       // l = 64
    EXPECT_EQ(resolvedInteger("fixed", "summary", 100, {{"block", "16"}}), 2);
    EXPECT_EQ(resolvedInteger("fixed", "summary", 100, {{"block", "17"}}), 2);
    EXPECT_EQ(resolvedInteger("fixed", "summary", 100, {{"block", "7"}}), 1);
    EXPECT_EQ(resolvedInteger("fixed", "summary", 10, {{"block", "80"}}), 10);
    EXPECT_EQ(resolvedInteger("fixed", "summary", 100, {{"block", "16"}, {"summary", "16"}}), 16);
}

TEST(ParamDefaults, XlSegmentAndMemoryInUse) {
    EXPECT_EQ(resolvedInteger("xl", "segment", 10), 10);
    EXPECT_EQ(resolvedInteger("xl", "segment", 500), 64);
    EXPECT_EQ(resolvedInteger("xl", "memory", 500), 64);
    EXPECT_EQ(resolvedInteger("xl", "memory", 10), 10);
    EXPECT_EQ(resolvedInteger("xl", "memory", 500, {{"segment", "20"}}), 20);
    EXPECT_EQ(resolvedInteger("xl", "memory", 500, {{"segment", "20"}, {"memory", "0"}}), 0);
    EXPECT_EQ(prepare("xl", shapeFor(50, 8, true)).choice("relpos"), "sinusoid");
}

TEST(ParamDefaults, LinearKernelsAndLowRank) {
    EXPECT_EQ(prepare("full", shapeFor(10)).choice("impl"), "tiled");
    EXPECT_EQ(prepare("linear", shapeFor(10)).choice("kernel"), "elu");
    EXPECT_EQ(resolvedInteger("performer", "features", 10, {}, 8), 32);
    EXPECT_EQ(resolvedInteger("performer", "features", 10, {}, 5), 20);
    EXPECT_EQ(resolvedInteger("performer", "seed", 10), 0);
    EXPECT_TRUE(prepare("performer", shapeFor(10)).flag("orthogonal"));
    EXPECT_EQ(resolvedInteger("linformer", "k", 10), 10);
    EXPECT_EQ(resolvedInteger("linformer", "k", 64), 64);
    EXPECT_EQ(resolvedInteger("linformer", "k", 1000), 64);
    EXPECT_EQ(prepare("linformer", shapeFor(10)).choice("proj"), "gaussian");
    EXPECT_EQ(resolvedInteger("linformer", "seed", 10), 0);
    EXPECT_EQ(prepare("relu2", shapeFor(10)).choice("scale"), "ns");
    EXPECT_EQ(resolvedInteger("mixed_chunk", "chunk", 10), 10);
    EXPECT_EQ(resolvedInteger("mixed_chunk", "chunk", 1000), 64);
}

TEST(ParamDefaults, LshAndBigBird) {
    const std::vector<std::pair<std::int64_t, std::int64_t>> buckets = {{1, 2},   {63, 2},   {64, 2},  {127, 2},
                                                                        {128, 4}, {200, 6}, {4096, 128}};
    for (const auto& [n, b] : buckets) EXPECT_EQ(resolvedInteger("lsh", "buckets", n), b) << n;
    EXPECT_EQ(resolvedInteger("lsh", "rounds", 10), 1);
    EXPECT_EQ(resolvedInteger("lsh", "seed", 10), 0);
    EXPECT_TRUE(prepare("lsh", shapeFor(10)).flag("shared_qk"));
    EXPECT_EQ(resolvedInteger("bigbird", "window", 100), 6);
    EXPECT_EQ(resolvedInteger("bigbird", "globals", 100), 2);
    EXPECT_EQ(resolvedInteger("bigbird", "random", 100), 3);
    EXPECT_EQ(resolvedInteger("bigbird", "seed", 100), 0);
}

TEST(ParamRanges, InRangeValuesAreKeptAsGivenNotClamped) {
    EXPECT_EQ(resolvedInteger("strided", "stride", 10, {{"stride", "1000"}}), 1000);
    EXPECT_EQ(resolvedInteger("chunk", "chunk", 10, {{"chunk", "500"}}), 500);
    EXPECT_EQ(resolvedInteger("longformer", "window", 10, {{"window", "0"}}), 0);
    EXPECT_EQ(resolvedInteger("xl", "memory", 10, {{"memory", "300"}}), 300);
    EXPECT_EQ(resolvedInteger("linformer", "k", 10, {{"k", "40"}}), 40); // gaussian: k > n is fine
    EXPECT_EQ(resolvedInteger("linformer", "k", 10, {{"k", "10"}, {"proj", "pool"}}), 10);
    EXPECT_EQ(resolvedInteger("lsh", "buckets", 10, {{"buckets", "2"}}), 2);
    EXPECT_EQ(resolvedInteger("lsh", "buckets", 10, {{"buckets", "1000"}}), 1000);
    EXPECT_EQ(resolvedInteger("bigbird", "random", 10, {{"random", "50"}}), 50);
    EXPECT_EQ(resolvedInteger("performer", "seed", 10, {{"seed", "123456789"}}), 123456789);
    EXPECT_EQ(prepare("longformer", shapeFor(10), {{"globals", "9,0,3"}}).indices("globals"),
              (std::vector<std::int64_t>{0, 3, 9}));
    EXPECT_EQ(prepare("xl", shapeFor(10, 7, true), {{"relpos", "none"}}).choice("relpos"), "none"); // odd d
}

TEST(ParamRanges, BigBirdGlobalsAreClampedToN) {
    // The one clamp the contract allows: g beyond n means every token is global.
    EXPECT_NO_THROW(prepare("bigbird", shapeFor(5), {{"globals", "50"}}));
    const auto pattern = buildPattern(requireVariant("bigbird"), shapeFor(5), prepare("bigbird", shapeFor(5), {{"globals", "50"}}));
    EXPECT_EQ(pattern->nnz(), 25);
}

TEST(ParamRanges, OutOfRangeIntegersAreRejected) {
    const ProblemShape shape = shapeFor(16);
    for (const std::string value : {"0", "-1"}) {
        expectRejected("strided", shape, {{"stride", value}}, "stride");
        expectRejected("fixed", shape, {{"block", value}}, "block");
        expectRejected("fixed", shape, {{"summary", value}}, "summary");
        expectRejected("longformer", shape, {{"dilation", value}}, "dilation");
        expectRejected("chunk", shape, {{"chunk", value}}, "chunk");
        expectRejected("xl", shapeFor(16, 8, true), {{"segment", value}}, "segment");
        expectRejected("performer", shape, {{"features", value}}, "features");
        expectRejected("linformer", shape, {{"k", value}}, "k");
        expectRejected("lsh", shape, {{"buckets", value}}, "buckets");
        expectRejected("lsh", shape, {{"rounds", value}}, "rounds");
        expectRejected("mixed_chunk", shape, {{"chunk", value}}, "chunk");
    }
    expectRejected("longformer", shape, {{"window", "-1"}}, "window");
    expectRejected("xl", shapeFor(16, 8, true), {{"memory", "-1"}}, "memory");
    expectRejected("bigbird", shape, {{"window", "-1"}}, "window");
    expectRejected("bigbird", shape, {{"globals", "-1"}}, "globals");
    expectRejected("bigbird", shape, {{"random", "-1"}}, "random");
    for (const std::string id : {"performer", "linformer", "lsh", "bigbird"}) expectRejected(id, shape, {{"seed", "-1"}}, "seed");
}

TEST(ParamRanges, CrossParameterRules) {
    // n = 16: default block 4.
    expectRejected("fixed", shapeFor(16), {{"summary", "5"}}, "summary");
    expectRejected("fixed", shapeFor(100), {{"block", "6"}, {"summary", "7"}}, "summary");
    for (const std::string odd : {"1", "3", "5", "65"}) expectRejected("lsh", shapeFor(100), {{"buckets", odd}}, "buckets");
    expectRejected("xl", shapeFor(16, 7, true), {}, "d");
    expectRejected("xl", shapeFor(16, 7, true), {{"relpos", "sinusoid"}}, "d");
    expectRejected("linformer", shapeFor(16), {{"proj", "pool"}, {"k", "17"}}, "k");
    expectRejected("linformer", shapeFor(16), {{"proj", "pool"}, {"k", "64"}}, "k");
    for (const std::string globals : {"16", "-1", "0,16", "3,100"})
        expectRejected("longformer", shapeFor(16), {{"globals", globals}}, "globals");
}

TEST(ParamRanges, ValuesOfTheWrongTypeAndUnknownKeysAreRejected) {
    const ProblemShape shape = shapeFor(16);
    for (const std::string value : {"", "abc", "1.5", "2x", " 3", "1e3", "99999999999999999999"})
        expectRejected("strided", shape, {{"stride", value}}, "stride");
    expectRejected("longformer", shape, {{"globals", "1,a"}}, "globals");
    expectRejected("full", shape, {{"impl", "sparse"}}, "impl");
    expectRejected("linear", shape, {{"kernel", "softmax"}}, "kernel");
    expectRejected("performer", shape, {{"orthogonal", "yes"}}, "orthogonal");
    expectRejected("linformer", shape, {{"proj", "random"}}, "proj");
    expectRejected("lsh", shape, {{"shared_qk", "1"}}, "shared_qk");
    expectRejected("relu2", shape, {{"scale", "n"}}, "scale");
    expectRejected("xl", shapeFor(16, 8, true), {{"relpos", "learned"}}, "relpos");
    expectRejected("strided", shape, {{"window", "3"}}, "window");
    expectRejected("full", shape, {{"stride", "3"}}, "stride");
}

TEST(ParamRanges, CausalSupportIsEnforced) {
    expectRejected("xl", shapeFor(16, 8, false), {}, "causal");
    expectRejected("linformer", shapeFor(16, 8, true), {}, "causal");
    for (const auto& variant : allVariants()) {
        const bool causalOk = variant.causalSupport != CausalSupport::BidirectionalOnly;
        const bool bidirectionalOk = variant.causalSupport != CausalSupport::CausalOnly;
        EXPECT_EQ(variant.id != "linformer", causalOk) << variant.id;
        EXPECT_EQ(variant.id != "xl", bidirectionalOk) << variant.id;
    }
}

TEST(ParamRanges, NonPositiveSizesAreRejected) {
    for (const auto& variant : allVariants()) {
        const bool causal = variant.causalSupport == CausalSupport::CausalOnly;
        EXPECT_THROW(prepare(variant.id, shapeFor(0, 8, causal)), InputError) << variant.id;
        EXPECT_THROW(prepare(variant.id, shapeFor(-3, 8, causal)), InputError) << variant.id;
    }
}

TEST(ParamRanges, ResolveParamsFillsEveryKeyInSchemaOrder) {
    const VariantInfo& fixed = requireVariant("fixed");
    const ParamSet params = resolveParams("fixed", fixed.params, {{"block", "24"}}, {100, 8});
    EXPECT_EQ(params.integer("block"), 24);
    EXPECT_EQ(params.integer("summary"), 3);
    EXPECT_THROW(resolveParams("fixed", fixed.params, {{"nope", "1"}}, {100, 8}), InputError);
    for (const auto& variant : allVariants()) {
        const ParamSet all = resolveParams(variant.id, variant.params, {}, {100, 8});
        EXPECT_EQ(all.values().size(), variant.params.size()) << variant.id;
        for (const auto& spec : variant.params) EXPECT_TRUE(all.contains(spec.key)) << variant.id << " " << spec.key;
    }
}

} // namespace
} // namespace attnlab
