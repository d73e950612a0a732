// bigbird's block mode (block = b > 1): the token rule applied on the grid of ⌈n/b⌉ blocks, every cell
// taking its block's value (∧ j ≤ i if causal); its components, cost and decoding row follow the pattern.
#include "core/decode/decode.h"
#include "core/patterns/pattern_components.h"
#include "support/variant_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <string>

namespace attnlab::testing {
namespace {

std::int64_t integerOr(const ParamOverrides& set, const std::string& key, std::int64_t fallback) {
    const auto it = set.find(key);
    return it == set.end() ? fallback : std::stoll(it->second);
}

struct BlockCase {
    ParamOverrides set; // includes "block"
    std::int64_t n;
    bool causal;
    std::string name() const {
        std::string text = causal ? "causal" : "bidirectional";
        for (const auto& [key, value] : set) text += " " + key + "=" + value;
        return text + " n=" + std::to_string(n);
    }
};

std::vector<BlockCase> blockCases() {
    const std::vector<ParamOverrides> sets = {
        {{"block", "2"}},
        {{"block", "3"}, {"window", "3"}, {"globals", "1"}, {"random", "3"}},
        {{"block", "8"}, {"window", "0"}, {"globals", "0"}, {"random", "2"}, {"seed", "9"}},
        {{"block", "5"}, {"window", "1"}, {"globals", "2"}, {"random", "60"}},
        {{"block", "4"}, {"globals", "100"}},
        {{"block", "7"}, {"random", "0"}},
        {{"block", "200"}},
    };
    std::vector<BlockCase> cases;
    for (const auto& set : sets)
        for (const std::int64_t n : {1, 6, 37, 70, 129})
            for (const bool causal : {false, true}) cases.push_back({set, n, causal});
    return cases;
}

// The window and globals of the token rule on a grid of `units` (before the random draw).
bool baseAllowed(std::int64_t I, std::int64_t J, const ParamOverrides& set) {
    const std::int64_t radius = integerOr(set, "window", 6) / 2, globals = integerOr(set, "globals", 2);
    return std::abs(I - J) <= radius || I < globals || J < globals;
}

TEST(BigBirdBlockMode, EveryBlockIsAllOrNothingAndTheBlockGridFollowsTheTokenRule) {
    for (const BlockCase& c : blockCases()) {
        SCOPED_TRACE(c.name());
        const auto pattern = patternOfShape({"bigbird", c.causal, c.set}, c.n);
        const Mask mask = maskOf(*pattern);
        EXPECT_EQ(denseMask(*pattern), mask) << "rowRanges and allowed disagree";
        const std::int64_t b = integerOr(c.set, "block", 1), units = (c.n + b - 1) / b;
        const std::int64_t r = integerOr(c.set, "random", 3);
        for (std::int64_t I = 0; I < units; ++I) {
            std::int64_t extra = 0, base = 0;
            for (std::int64_t J = 0; J < units; ++J) {
                // The block's value: its top-left cell, or for the causal diagonal its first row's diagonal.
                const bool allowed = mask[static_cast<std::size_t>(I * b * c.n + J * b)] != 0;
                for (std::int64_t i = I * b; i < std::min(c.n, (I + 1) * b); ++i)
                    for (std::int64_t j = J * b; j < std::min(c.n, (J + 1) * b); ++j) {
                        const bool inside = !c.causal || j <= i;
                        ASSERT_EQ(mask[static_cast<std::size_t>(i * c.n + j)] != 0, allowed && inside)
                            << "cell (" << i << ", " << j << ") of block (" << I << ", " << J << ")";
                    }
                if (c.causal && J > I) continue;
                const bool inBase = baseAllowed(I, J, c.set);
                base += inBase ? 1 : 0;
                if (inBase) {
                    EXPECT_TRUE(allowed) << "block row " << I << " lost base block " << J;
                } else {
                    extra += allowed ? 1 : 0;
                }
            }
            const std::int64_t available = (c.causal ? I + 1 : units) - base;
            EXPECT_EQ(extra, std::min(r, available)) << "random blocks of block row " << I;
        }
    }
}

TEST(BigBirdBlockMode, BlockOneIsThePerTokenPattern) {
    for (const bool causal : {false, true})
        for (const std::int64_t n : {1, 37, 200}) {
            const Call token{"bigbird", causal, {{"seed", "4"}}};
            const Call block{"bigbird", causal, {{"seed", "4"}, {"block", "1"}}};
            EXPECT_EQ(maskOf(*patternOfShape(block, n)), maskOf(*patternOfShape(token, n)));
        }
}

TEST(BigBirdBlockMode, ComponentsLabelWindowGlobalsAndRandomBlocks) {
    for (const BlockCase& c : blockCases()) {
        SCOPED_TRACE(c.name());
        ProblemShape shape{1, c.n, 4, 4, c.causal};
        const ParamSet params = resolve({"bigbird", c.causal, c.set}, shape);
        PatternRequest request{shape, &params};
        const auto components = requireVariant("bigbird").components(request);
        const Mask mask = maskOf(*patternOfShape({"bigbird", c.causal, c.set}, c.n));
        const std::vector<std::uint8_t> labels = denseComponents(*components);
        const std::int64_t b = integerOr(c.set, "block", 1);
        const std::int64_t radius = integerOr(c.set, "window", 6) / 2, globals = integerOr(c.set, "globals", 2);
        for (std::int64_t i = 0; i < c.n; ++i)
            for (std::int64_t j = 0; j < c.n; ++j) {
                const auto cell = static_cast<std::size_t>(i * c.n + j);
                const std::int64_t I = i / b, J = j / b;
                std::uint8_t expected = 0;
                if (mask[cell]) expected = std::abs(I - J) <= radius ? 1 : (I < globals || J < globals) ? 2 : 3;
                ASSERT_EQ(labels[cell], expected) << "cell (" << i << ", " << j << ")";
            }
    }
}

TEST(BigBirdBlockMode, CostAndDecodingRowCountTheDrawnBlocks) {
    for (const BlockCase& c : blockCases()) {
        SCOPED_TRACE(c.name());
        const Call call{"bigbird", c.causal, c.set};
        const ProblemShape shape{2, c.n, 6, 3, c.causal};
        const Mask mask = maskOf(*patternOfShape(call, c.n));
        const auto nnz = static_cast<double>(std::count(mask.begin(), mask.end(), std::uint8_t{1}));
        const CoreCost cost = requireVariant("bigbird").cost(shape, resolve(call, shape));
        EXPECT_DOUBLE_EQ(cost.terms.at("scores"), nnz * 6 * 2);
        EXPECT_DOUBLE_EQ(cost.terms.at("weights_v"), nnz * 3 * 2);
        if (!c.causal) continue;
        // One decoding step is the causal pattern's last row: the blocks its block row allows, up to n − 1.
        ProblemShape decodeShape = shape;
        const DecodeCost step = decodeCost(requireVariant("bigbird"), decodeShape, resolve(call, decodeShape));
        const auto lastRow = static_cast<double>(
            std::count(mask.end() - c.n, mask.end(), std::uint8_t{1}));
        EXPECT_DOUBLE_EQ(step.core.terms.at("scores"), lastRow * 6 * 2);
        EXPECT_EQ(step.retainedKeys, c.n);
    }
}

TEST(BigBirdBlockMode, BlockBelowOneIsBadInput) {
    ProblemShape shape{1, 64, 4, 4, false};
    for (const std::string value : {"0", "-3", "x"})
        EXPECT_THROW(resolve({"bigbird", false, {{"block", value}}}, shape), InputError) << value;
}

} // namespace
} // namespace attnlab::testing
