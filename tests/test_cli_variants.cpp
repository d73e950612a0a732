// `attnlab variants`, `pattern` and `cost` for every id that `variants --json` lists: the listing against
// the registry, each pattern file against the registry's pattern in-process, each cost object against
// the cost model in-process and against its own sums.
#include "test_cli_harness.h"

#include "core/cost/cost_model.h"
#include "core/registry.h"

namespace attnlab {
namespace {

using clitest::CliVariant;

TEST(VariantsJson, ListsExactlyTheRegistryInItsOrderWithEveryParameter) {
    ASSERT_EQ(clitest::cliVariants().size(), allVariants().size());
    for (std::size_t v = 0; v < allVariants().size(); ++v) {
        const VariantInfo& variant = allVariants()[v];
        const CliVariant& listed = clitest::cliVariants()[v];
        EXPECT_EQ(listed.id, variant.id);
        EXPECT_EQ(listed.causal, variant.causalSupport != CausalSupport::BidirectionalOnly) << variant.id;
        EXPECT_EQ(listed.bidirectional, variant.causalSupport != CausalSupport::CausalOnly) << variant.id;
        EXPECT_EQ(listed.dataDependentPattern, variant.dataDependentPattern) << variant.id;
    }
}

class EveryListedVariant : public clitest::CliTest, public ::testing::WithParamInterface<std::string> {
protected:
    const CliVariant& listed() const { return clitest::cliVariant(GetParam()); }
    bool causal() const { return !listed().bidirectional; }
    std::vector<std::string> causalFlag() const {
        return causal() ? std::vector<std::string>{"--causal"} : std::vector<std::string>{};
    }
};

TEST_P(EveryListedVariant, PatternFileIsTheRegistrysPattern) {
    const int heads = 2;
    const std::int64_t n = 23, d = 6;
    const std::vector<float> q = clitest::gaussianValues(heads * n * d, 3), k = clitest::gaussianValues(heads * n * d, 4);
    std::vector<std::string> args = {"pattern", "--variant", GetParam(), "--n", std::to_string(n), "--d", std::to_string(d),
                                     "--out", "m.npy"};
    const std::vector<std::string> flag = causalFlag();
    args.insert(args.end(), flag.begin(), flag.end());
    Tensor3 qt(heads, n, d), kt(heads, n, d);
    qt.values.assign(q.begin(), q.end());
    kt.values.assign(k.begin(), k.end());
    const AttentionInputs inputs{&qt, &kt, nullptr};
    const int head = listed().dataDependentPattern ? 1 : 0;
    if (listed().dataDependentPattern) {
        writeArray("q.npy", {heads, n, d}, q);
        writeArray("k.npy", {heads, n, d}, k);
        args.insert(args.end(), {"--q", "q.npy", "--k", "k.npy", "--head", "1"});
    }
    succeed(args);
    const clitest::NpyFile mask = clitest::readNpyFile(file("m.npy"));
    EXPECT_EQ(mask.descr, "|u1");
    ASSERT_EQ(mask.shape, (std::vector<std::int64_t>{n, n}));

    const VariantInfo& variant = requireVariant(GetParam());
    ProblemShape shape;
    shape.heads = heads;
    shape.n = n;
    shape.d = d;
    shape.dv = d;
    shape.causal = causal();
    const ParamSet params = prepareParams(variant, shape, {});
    EXPECT_EQ(mask.bytes(), denseMask(*buildPattern(variant, shape, params, &inputs, head)));
}

TEST_P(EveryListedVariant, CostObjectIsTheCostModelsLayer) {
    std::vector<std::string> args = {"cost", "--variant", GetParam(), "--n", "96", "--d", "8", "--heads", "3", "--json"};
    const std::vector<std::string> flag = causalFlag();
    args.insert(args.end(), flag.begin(), flag.end());
    const auto outcome = succeed(args);
    const nlohmann::json cost = clitest::parseJson(outcome.out);
    EXPECT_EQ(cost.at("variant"), GetParam());
    EXPECT_EQ(cost.at("n"), 96);
    EXPECT_EQ(cost.at("d"), 8);
    EXPECT_EQ(cost.at("heads"), 3);
    EXPECT_EQ(cost.at("causal"), causal());
    EXPECT_EQ(cost.at("convention"), "macs; flops = 2*macs");

    const VariantInfo& variant = requireVariant(GetParam());
    ProblemShape shape;
    shape.heads = 3;
    shape.n = 96;
    shape.d = 8;
    shape.dv = 8;
    shape.causal = causal();
    const LayerCost expected = layerCost(variant, shape, prepareParams(variant, shape, {}));
    double total = 0;
    ASSERT_EQ(cost.at("terms").size(), expected.terms.size());
    for (const auto& [name, macs] : expected.terms) {
        EXPECT_DOUBLE_EQ(cost.at("terms").at(name).get<double>(), macs) << name;
        total += cost.at("terms").at(name).get<double>();
    }
    EXPECT_DOUBLE_EQ(cost.at("layer_macs").get<double>(), total);
    EXPECT_DOUBLE_EQ(cost.at("layer_flops").get<double>(), 2 * total);
    const double rest = expected.terms.at("qkv_proj") + expected.terms.at("out_proj") + expected.terms.at("ffn");
    EXPECT_DOUBLE_EQ(cost.at("attention_macs").get<double>(), total - rest);
    EXPECT_DOUBLE_EQ(cost.at("exps").get<double>(), expected.exps);
    EXPECT_DOUBLE_EQ(cost.at("peak_bytes").get<double>(), expected.peakBytes);
    EXPECT_GE(cost.at("peak_bytes").get<double>(), runIoBytes(shape, false));
}

// FLASH's comparison at BERT-base's width: two GAU layers (relu2, e = 2hd, s = 128) against one layer of
// full attention + FFN, the multiply-adds counted by hand.
using CostLayer = clitest::CliTest;

TEST_F(CostLayer, GauIsFlashsLayerBesideAStandardOne) {
    const nlohmann::json gau = clitest::parseJson(
        succeed({"cost", "--layer", "gau", "--variant", "relu2", "--n", "512", "--d", "64", "--heads", "12", "--json"}).out);
    EXPECT_EQ(gau.at("layer"), "gau");
    const double n = 512, hd = 768, e = 1536, s = 128;
    const nlohmann::json& terms = gau.at("terms");
    EXPECT_EQ(terms.size(), 5u);
    EXPECT_EQ(terms.at("uv_proj").get<double>(), 2 * n * hd * e);
    EXPECT_EQ(terms.at("z_proj").get<double>(), n * hd * s);
    EXPECT_EQ(terms.at("scores").get<double>(), n * n * s);
    EXPECT_EQ(terms.at("weights_v").get<double>(), n * n * e);
    EXPECT_EQ(terms.at("out_proj").get<double>(), n * e * hd);
    EXPECT_FALSE(terms.contains("ffn"));
    EXPECT_EQ(gau.at("layer_macs").get<double>(), 2298478592.0);
    EXPECT_EQ(gau.at("gau_comparison").at("two_gau_layers_macs").get<double>(), 4596957184.0);
    EXPECT_EQ(gau.at("gau_comparison").at("attention_ffn_layer_macs").get<double>(), 3 * n * hd * hd + 2 * n * n * hd + n * hd * hd + 8 * n * hd * hd);
    const nlohmann::json standard =
        clitest::parseJson(succeed({"cost", "--variant", "relu2", "--n", "512", "--d", "64", "--heads", "12", "--json"}).out);
    EXPECT_EQ(standard.at("layer"), "standard");
    EXPECT_TRUE(standard.at("terms").contains("ffn"));
    EXPECT_FALSE(standard.contains("gau_comparison"));
    const std::string table = succeed({"cost", "--layer", "gau", "--variant", "relu2", "--n", "512", "--d", "64", "--heads", "12"}).out;
    EXPECT_NE(table.find("two GAU layers"), std::string::npos) << table;
    EXPECT_NE(table.find("4596957184"), std::string::npos) << table;
}

INSTANTIATE_TEST_SUITE_P(Cli, EveryListedVariant, ::testing::ValuesIn(clitest::cliVariantIds()),
                         [](const ::testing::TestParamInfo<std::string>& tested) { return tested.param; });

} // namespace
} // namespace attnlab
