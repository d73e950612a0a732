// The `custom` variant and pattern components at the command line: masks and components as files,
// printed expressions fed back, run and cost through the registry, and bad expressions rejected with
// one line and no output file.
#include "test_cli_harness.h"

#include <algorithm>
#include <cmath>

namespace attnlab {
namespace {

class CustomCliTest : public clitest::CliTest {
protected:
    std::vector<std::uint8_t> patternFile(std::vector<std::string> args) const {
        args.insert(args.begin(), "pattern");
        args.insert(args.end(), {"--out", "m.npy"});
        succeed(args);
        const auto npy = clitest::readNpyFile(file("m.npy"));
        EXPECT_EQ(npy.descr, "|u1");
        return npy.bytes();
    }

    void expectRejected(const std::vector<std::string>& args, const std::vector<std::string>& mentions) const {
        const std::string sentinel = "existing output, must survive";
        clitest::writeBytes(file("m.npy"), sentinel);
        const auto before = listing();
        const auto outcome = run(args);
        EXPECT_TRUE(outcome.exited) << clitest::describe(args);
        EXPECT_NE(outcome.exitCode, 0) << clitest::describe(args);
        EXPECT_EQ(outcome.errLines(), 1u) << outcome.err;
        for (const auto& word : mentions) EXPECT_NE(outcome.err.find(word), std::string::npos) << outcome.err;
        EXPECT_EQ(clitest::readBytes(file("m.npy")), sentinel);
        EXPECT_EQ(listing(), before);
    }
};

TEST_F(CustomCliTest, PatternAndComponentsOfAnExpression) {
    const std::int64_t n = 7;
    const std::vector<std::string> args = {"--variant", "custom", "--n", "7", "--causal", "--set",
                                           "expr=band(1) | sink(2) | !(causal)"};
    const auto mask = patternFile(args);
    auto withComponents = args;
    withComponents.push_back("--components");
    const auto labels = patternFile(withComponents);
    ASSERT_EQ(mask.size(), static_cast<std::size_t>(n * n));
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const int expected = j > i ? 0 : (i - j <= 1 ? 1 : (j < 2 ? 2 : 0));
            EXPECT_EQ(labels[i * n + j], expected) << i << ", " << j;
            EXPECT_EQ(mask[i * n + j], expected != 0) << i << ", " << j;
        }
}

TEST_F(CustomCliTest, EmptyRowsGetTheirDiagonalMarked255) {
    const auto labels = patternFile({"--variant", "custom", "--n", "3", "--set", "expr=rows(0)", "--components"});
    EXPECT_EQ(labels, (std::vector<std::uint8_t>{1, 1, 1, 0, 255, 0, 0, 0, 255}));
}

TEST_F(CustomCliTest, PrintedExpressionsRoundTrip) {
    struct Builtin {
        std::vector<std::string> args;
        std::string expression;
    };
    const std::vector<Builtin> builtins = {
        {{"--variant", "strided", "--n", "16", "--causal"}, "band(4) & causal | stride(4) & causal"},
        {{"--variant", "fixed", "--n", "20", "--set", "block=6", "--set", "summary=2"}, "block(6) | summary(6, 2)"},
        {{"--variant", "longformer", "--n", "12", "--set", "window=5", "--set", "dilation=2", "--set", "globals=3,0"},
         "dilated(2, 2) | global(0,3)"},
        {{"--variant", "xl", "--n", "10", "--causal", "--set", "segment=4", "--set", "memory=3"},
         "block(4) & causal | segment(4, 3) & causal"},
        {{"--variant", "chunk", "--n", "9"}, "block(3)"},
        {{"--variant", "full", "--n", "5", "--causal"}, "all & causal"},
    };
    for (const auto& builtin : builtins) {
        auto print = builtin.args;
        print.insert(print.begin(), "pattern");
        print.push_back("--print-expr");
        const auto outcome = succeed(print);
        EXPECT_EQ(outcome.out, builtin.expression + "\n");
        const bool causal = std::count(builtin.args.begin(), builtin.args.end(), "--causal") != 0;
        std::vector<std::string> custom = {"--variant", "custom", "--n", builtin.args[3], "--set", "expr=" + builtin.expression};
        if (causal) custom.push_back("--causal");
        for (const bool components : {false, true}) {
            auto original = builtin.args, again = custom;
            if (components) {
                original.push_back("--components");
                again.push_back("--components");
            }
            EXPECT_EQ(patternFile(again), patternFile(original)) << clitest::describe(original);
        }
    }
}

TEST_F(CustomCliTest, RunGoesThroughTheMaskedKernels) {
    constexpr std::int64_t heads = 2, n = 9, d = 4;
    writeArray("q.npy", {heads, n, d}, clitest::gaussianValues(heads * n * d, 1));
    writeArray("k.npy", {heads, n, d}, clitest::gaussianValues(heads * n * d, 2));
    const auto v = clitest::gaussianValues(heads * n * d, 3);
    writeArray("v.npy", {heads, n, d}, v);
    const std::vector<std::string> io = {"--q", "q.npy", "--k", "k.npy", "--v", "v.npy"};
    auto runWith = [&](std::vector<std::string> args, const std::string& out) {
        args.insert(args.begin(), "run");
        args.insert(args.end(), io.begin(), io.end());
        args.insert(args.end(), {"--out", out});
        succeed(args);
        return clitest::readNpyFile(file(out)).floats();
    };
    // A single allowed key per row: softmax weight 1, so out = V exactly.
    EXPECT_EQ(runWith({"--variant", "custom", "--set", "expr=diag"}, "diag.npy"), v);
    // The same pattern as a built-in gives the same numbers.
    const auto strided = runWith({"--variant", "strided", "--causal", "--set", "stride=3"}, "strided.npy");
    const auto custom = runWith({"--variant", "custom", "--causal", "--set", "expr=band(3) | stride(3)"}, "custom.npy");
    ASSERT_EQ(custom.size(), strided.size());
    for (std::size_t x = 0; x < custom.size(); ++x) EXPECT_NEAR(custom[x], strided[x], 1e-6f) << x;
}

TEST_F(CustomCliTest, CostCountsTheExpressionsPairs) {
    // causal band(1): 1 + 2·(n − 1) pairs = 15 at n = 8; scores = 15 · d · heads.
    const auto outcome = succeed({"cost", "--variant", "custom", "--n", "8", "--d", "4", "--heads", "2", "--causal",
                                  "--set", "expr=band(1)", "--json"});
    const auto json = clitest::parseJson(outcome.out);
    EXPECT_EQ(json["terms"]["scores"].get<double>(), 15.0 * 4 * 2);
    EXPECT_EQ(json["terms"]["weights_v"].get<double>(), 15.0 * 4 * 2);
}

TEST_F(CustomCliTest, CostAtTheLargestNCountsOrRefusesInOneLine) {
    // The default band(8) | global(0): row 0 sees all n, rows 1 … 8 the columns 0 … i + 8, rows 9 … n − 9
    // their band of 17 and column 0, row n − k (k ≤ 8) its band's last k + 8 columns and column 0.
    const double n = 2147483647;
    double pairs = n + 18 * (n - 17);
    for (int k = 1; k <= 8; ++k) pairs += 2 * (k + 9);
    const auto outcome = succeed({"cost", "--variant", "custom", "--n", "2147483647", "--d", "1", "--heads", "1", "--json"});
    EXPECT_EQ(clitest::parseJson(outcome.out)["terms"]["scores"].get<double>(), pairs);
    // Many ranges per row have no runs: the range limit refuses at once.
    expectRejected({"cost", "--variant", "custom", "--n", "2147483647", "--d", "1", "--heads", "1", "--set", "expr=band(8) | stride(1000)"},
                   {"range limit"});
    // A million blocks have no runs either; their two ranges per row and the rows themselves pass the limit.
    expectRejected({"cost", "--variant", "custom", "--n", "2147483647", "--d", "1", "--heads", "1", "--set", "expr=block(2048) | band(3)"},
                   {"range limit"});
}

TEST_F(CustomCliTest, CostCountsTheBlocksOfTheExpression) {
    // band(1) at n = 10 in blocks of 4 (the last row and column of blocks 2 wide), counted cell by cell here.
    const std::int64_t n = 10, b = 4;
    double full = 0, partial = 0, empty = 0, computed = 0, allowed = 0;
    for (std::int64_t r0 = 0; r0 < n; r0 += b)
        for (std::int64_t c0 = 0; c0 < n; c0 += b) {
            double cells = 0, area = 0;
            for (std::int64_t i = r0; i < std::min(n, r0 + b); ++i)
                for (std::int64_t j = c0; j < std::min(n, c0 + b); ++j) {
                    area += 1;
                    cells += std::abs(i - j) <= 1 ? 1 : 0;
                }
            allowed += cells;
            (cells == 0 ? empty : cells == area ? full : partial) += 1;
            computed += cells > 0 ? area : 0;
        }
    const auto json = clitest::parseJson(succeed({"cost", "--variant", "custom", "--n", "10", "--d", "4", "--heads", "2",
                                                  "--set", "expr=band(1)", "--block-size", "4", "--json"})
                                             .out);
    const auto& blocks = json["blocks"];
    EXPECT_EQ(blocks["size"].get<double>(), 4);
    EXPECT_EQ(blocks["full"].get<double>(), full);
    EXPECT_EQ(blocks["partial"].get<double>(), partial);
    EXPECT_EQ(blocks["empty"].get<double>(), empty);
    EXPECT_EQ(blocks["computed_cells"].get<double>(), computed);
    EXPECT_EQ(blocks["allowed_cells"].get<double>(), allowed);
    EXPECT_EQ(json["terms"]["scores"].get<double>(), allowed * 4 * 2);
    // Without --block-size there is no "blocks"; a block larger than n is one block.
    EXPECT_FALSE(clitest::parseJson(succeed({"cost", "--variant", "custom", "--n", "10", "--d", "4", "--heads", "1", "--json"}).out)
                     .contains("blocks"));
    const auto whole = clitest::parseJson(succeed({"cost", "--variant", "full", "--n", "10", "--d", "4", "--heads", "1",
                                                   "--causal", "--block-size", "64", "--json"})
                                              .out)["blocks"];
    EXPECT_EQ(whole["partial"].get<double>(), 1);
    EXPECT_EQ(whole["computed_cells"].get<double>(), 100);
    EXPECT_EQ(whole["allowed_cells"].get<double>(), 55);
}

TEST_F(CustomCliTest, VariantsListTheExpressionAsAString) {
    const auto json = clitest::parseJson(succeed({"variants", "--json"}).out);
    bool found = false;
    for (const auto& variant : json["variants"]) {
        if (variant["id"] != "custom") continue;
        found = true;
        ASSERT_EQ(variant["params"].size(), 1u);
        const auto& param = variant["params"][0];
        EXPECT_EQ(param["key"], "expr");
        EXPECT_EQ(param["type"], "string");
        EXPECT_EQ(param["default"], "band(8) | global(0)");
    }
    EXPECT_TRUE(found);
}

TEST_F(CustomCliTest, BadExpressionsAreOneLineAndNoFile) {
    const std::vector<std::string> base = {"pattern", "--variant", "custom", "--n", "8", "--out", "m.npy", "--set"};
    auto with = [&](const std::string& expression) {
        auto args = base;
        args.push_back("expr=" + expression);
        return args;
    };
    expectRejected(with("band(2) | bnd(3)"), {"unknown primitive 'bnd'", "position 11"});
    expectRejected(with("band(2"), {"position 7"});
    expectRejected(with("band(2) & (sink(1)"), {"expected ')'", "position 19"});
    expectRejected(with("stride(0)"), {"stride(l)", "position 8"});
    expectRejected(with("summary(2, 3)"), {"c <= l"});
    expectRejected(with("band(1, 2)"), {"'band' takes 1 argument"});
    expectRejected(with("sink(99999999999999999999)"), {"2^63 - 1", "position 6"});
    expectRejected(with(std::string(65, '(') + "all" + std::string(65, ')')), {"nested deeper than 64"});
    expectRejected(with("all" + std::string(1000, ' ')), {"longer than 1000 characters"});
    expectRejected(with(""), {"expression ends", "position 1"});
    auto components = with("band(");
    components.push_back("--components");
    expectRejected(components, {"position 6"});
    expectRejected({"pattern", "--variant", "bigbird", "--n", "8", "--print-expr"}, {"bigbird", "no equivalent"});
    expectRejected({"pattern", "--variant", "custom", "--n", "8", "--print-expr"}, {"custom", "no equivalent"});
    expectRejected({"pattern", "--variant", "strided", "--n", "8", "--print-expr", "--out", "m.npy"}, {"--print-expr"});
    writeArray("q.npy", {4, 2}, clitest::gaussianValues(8, 1));
    expectRejected({"run", "--variant", "custom", "--set", "expr=nope", "--q", "q.npy", "--k", "q.npy", "--v", "q.npy",
                    "--out", "m.npy"},
                   {"unknown primitive 'nope'"});
}

// Cells of an H × W image in Morton order, by sorting the interleaved codes (x in the even bits).
std::vector<std::pair<std::int64_t, std::int64_t>> mortonCells(std::int64_t H, std::int64_t W) {
    std::vector<std::pair<std::int64_t, std::int64_t>> cells; // (y, x)
    for (std::int64_t y = 0; y < H; ++y)
        for (std::int64_t x = 0; x < W; ++x) cells.emplace_back(y, x);
    const auto code = [](const std::pair<std::int64_t, std::int64_t>& c) {
        std::uint64_t value = 0;
        for (int bit = 0; bit < 16; ++bit)
            value |= static_cast<std::uint64_t>(((c.second >> bit) & 1) << (2 * bit)) |
                     static_cast<std::uint64_t>(((c.first >> bit) & 1) << (2 * bit + 1));
        return value;
    };
    std::sort(cells.begin(), cells.end(), [&](const auto& a, const auto& b) { return code(a) < code(b); });
    return cells;
}

TEST_F(CustomCliTest, GridPatternsAndCostsFollowTheCells) {
    const std::int64_t H = 5, W = 4, n = H * W;
    const auto cells = mortonCells(H, W);
    const std::vector<std::string> args = {"--variant", "custom", "--grid", "5,4", "--order", "morton", "--set",
                                           "expr=same_col | neighborhood(1, 3)"};
    auto withComponents = args;
    withComponents.push_back("--components");
    const auto labels = patternFile(withComponents);
    ASSERT_EQ(labels.size(), static_cast<std::size_t>(n * n));
    std::int64_t allowed = 0;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const auto [yi, xi] = cells[static_cast<std::size_t>(i)];
            const auto [yj, xj] = cells[static_cast<std::size_t>(j)];
            // NATTEN with k = 3 along x: the keys c − 1 … c + 1 with c = min(max(x, 1), W − 2).
            const std::int64_t left = std::min<std::int64_t>(std::max<std::int64_t>(xi, 1), W - 2) - 1;
            const int expected = xj == xi ? 1 : (yj == yi && xj >= left && xj <= left + 2) ? 2 : 0;
            EXPECT_EQ(labels[static_cast<std::size_t>(i * n + j)], expected) << i << ", " << j;
            allowed += expected != 0;
        }
    EXPECT_EQ(allowed, n * (H + 2)); // the column, plus two more cells of the row
    auto withN = args;
    withN.insert(withN.end(), {"--n", "20"});
    EXPECT_EQ(patternFile(withN), patternFile(args));
    const auto json = clitest::parseJson(succeed({"cost", "--variant", "custom", "--grid", "5,4", "--order", "morton", "--d", "4",
                                                  "--heads", "3", "--set", "expr=same_col", "--json"}).out);
    EXPECT_EQ(json["n"].get<double>(), 20.0);
    EXPECT_EQ(json["terms"]["scores"].get<double>(), static_cast<double>(n * H * 4 * 3));
    EXPECT_EQ(json["grid"], "5,4");
    EXPECT_EQ(json["order"], "morton");
    EXPECT_FALSE(json.contains("crossovers"));
}

TEST_F(CustomCliTest, RunOnAGridReadsTheCells) {
    constexpr std::int64_t n = 12, d = 3;
    writeArray("q.npy", {n, d}, clitest::gaussianValues(n * d, 1));
    const auto v = clitest::gaussianValues(n * d, 3);
    writeArray("v.npy", {n, d}, v);
    // same_pixel on a video of 3 frames of 2 × 2: the key is the query's pixel in any frame; causal and
    // in raster order, the first frame sees only itself, so out = V there.
    succeed({"run", "--variant", "custom", "--grid", "3,2,2", "--causal", "--set", "expr=same_pixel", "--q", "q.npy",
             "--k", "q.npy", "--v", "v.npy", "--out", "o.npy"});
    const auto out = clitest::readNpyFile(file("o.npy")).floats();
    for (std::size_t x = 0; x < 4 * d; ++x) EXPECT_EQ(out[x], v[x]) << x;
    bool mixed = false;
    for (std::size_t x = 4 * d; x < out.size(); ++x) mixed = mixed || out[x] != v[x];
    EXPECT_TRUE(mixed);
    expectRejected({"run", "--variant", "custom", "--grid", "3,5", "--set", "expr=same_row", "--q", "q.npy", "--k", "q.npy",
                    "--v", "v.npy", "--out", "m.npy"},
                   {"--grid 3,5", "n = 12"});
}

TEST_F(CustomCliTest, BadGridsOrdersAndGridPrimitivesAreOneLineAndNoFile) {
    const auto pattern = [](std::vector<std::string> extra) {
        std::vector<std::string> args = {"pattern", "--variant", "custom", "--out", "m.npy"};
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    };
    expectRejected(pattern({"--n", "16", "--set", "expr=band(1) | neighborhood(3)"}), {"needs a token grid", "position 11"});
    expectRejected(pattern({"--n", "16", "--set", "expr=same_frame"}), {"needs a token grid"});
    expectRejected(pattern({"--grid", "4,6", "--set", "expr=neighborhood(5)"}), {"kernel 5", "height H = 4"});
    expectRejected(pattern({"--grid", "4,6", "--set", "expr=neighborhood(3, 3, 1, 3)"}), {"dilation 3", "width W = 6"});
    expectRejected(pattern({"--grid", "4,6", "--set", "expr=tile_neighborhood(3, 2, 1, 1)"}), {"does not divide"});
    expectRejected(pattern({"--grid", "4,6", "--set", "expr=tile_neighborhood(2, 2, 1, 4)"}), {"exceeds the 3 tiles"});
    expectRejected(pattern({"--grid", "4,6", "--set", "expr=tile_neighborhood(2, 2, 0, 1)"}), {">= 1"});
    expectRejected(pattern({"--grid", "4,6", "--set", "expr=neighborhood(3, 3, 3)"}), {"on an image takes 1, 2 or 4"});
    expectRejected(pattern({"--grid", "2,4,6", "--set", "expr=window(2, 2)"}), {"on a video takes 1 or 3"});
    expectRejected(pattern({"--grid", "2,4,6", "--set", "expr=tile_neighborhood(1, 2, 1, 1)"}), {"takes 6 arguments"});
    expectRejected(pattern({"--grid", "65536,65536"}), {"more than 2147483647 cells"});
    expectRejected(pattern({"--grid", "99999999999,99999999999,9"}), {"--grid"});
    for (const std::string grid : {"4", "4,4,4,4", "0,4", "4,x", "4,,4", "", "4,4,"})
        expectRejected(pattern({"--grid", grid}), {"--grid"});
    for (const std::string order : {"rowmajor", "tiles:", "tiles:2", "tiles:3,2", "tiles:2,2,2", "tiles:0,2", ""})
        expectRejected(pattern({"--grid", "4,6", "--order", order}), {"--order"});
    expectRejected(pattern({"--grid", "4,6", "--n", "25"}), {"--n 25", "24 cells"});
    expectRejected(pattern({"--n", "16", "--order", "morton"}), {"--order needs --grid"});
    expectRejected({"cost", "--variant", "custom", "--grid", "4,4,0", "--d", "4", "--heads", "1"}, {"--grid"});
    expectRejected({"bench", "--variant", "full", "--grid", "4,4", "--n", "17"}, {"--n 17"});
    expectRejected({"bench", "--layer", "--grid", "4,4"}, {"--layer does not take --grid"});
}

} // namespace
} // namespace attnlab
