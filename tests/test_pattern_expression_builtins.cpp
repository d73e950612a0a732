// Components of the built-in patterns, checked cell by cell against their definitions, and the printed
// expressions: `custom` with a variant's printed expression gives exactly its pattern and components
// (for every variant that prints one, through the registry).
#include "core/errors.h"
#include "core/registry.h"
#include "core/tensor.h"
#include "support/variant_checks.h"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>
#include <vector>

namespace attnlab {
namespace {

__extension__ typedef __int128 Wide; // r·δ without overflow

struct Case {
    std::string variant;
    std::int64_t n;
    bool causal;
    ParamOverrides overrides;
};

std::string describe(const Case& c) {
    std::string text = c.variant + " n=" + std::to_string(c.n) + (c.causal ? " causal" : "");
    for (const auto& [key, value] : c.overrides) text += " " + key + "=" + value;
    return text;
}

ProblemShape shapeOf(const Case& c) {
    ProblemShape shape;
    shape.n = c.n;
    shape.d = 8;
    shape.dv = 8;
    shape.causal = c.causal;
    return shape;
}

struct Built {
    std::vector<std::uint8_t> mask;
    std::vector<std::uint8_t> components;
    std::string expression;
};

Built build(const std::string& id, const ProblemShape& shape, const ParamOverrides& overrides) {
    const VariantInfo& variant = requireVariant(id);
    const ParamSet params = prepareParams(variant, shape, overrides);
    Built built;
    built.mask = denseMask(*buildPattern(variant, shape, params));
    built.components = denseComponents(*buildComponents(variant, shape, params));
    if (variant.printExpr) {
        PatternRequest request;
        request.shape = shape;
        request.params = &params;
        built.expression = variant.printExpr(request);
    }
    return built;
}

std::int64_t integerOf(const Case& c, const std::string& key, std::int64_t fallback) {
    const auto it = c.overrides.find(key);
    return it == c.overrides.end() ? fallback : std::stoll(it->second);
}

// The component of (i, j) from the definitions: 0 when not allowed.
using Labeller = std::function<int(std::int64_t i, std::int64_t j)>;

Labeller expectedLabels(const Case& c) {
    const bool causal = c.causal;
    const std::int64_t root = [&] {
        std::int64_t r = 0;
        while (r * r < c.n) ++r;
        return r;
    }();
    auto distance = [](std::int64_t i, std::int64_t j) { return i > j ? i - j : j - i; };
    if (c.variant == "full") return [=](std::int64_t i, std::int64_t j) { return causal && j > i ? 0 : 1; };
    if (c.variant == "strided") {
        const std::int64_t l = integerOf(c, "stride", root);
        return [=](std::int64_t i, std::int64_t j) {
            if (causal && j > i) return 0;
            return distance(i, j) <= l ? 1 : distance(i, j) % l == 0 ? 2 : 0;
        };
    }
    if (c.variant == "fixed") {
        const std::int64_t l = integerOf(c, "block", root), s = integerOf(c, "summary", std::max<std::int64_t>(1, l / 8));
        return [=](std::int64_t i, std::int64_t j) {
            if (causal && j > i) return 0;
            return i / l == j / l ? 1 : j % l >= l - s ? 2 : 0;
        };
    }
    if (c.variant == "longformer") {
        const std::int64_t r = integerOf(c, "window", 2 * root) / 2, delta = integerOf(c, "dilation", 1);
        std::vector<std::int64_t> globals;
        if (const auto it = c.overrides.find("globals"); it != c.overrides.end())
            for (std::size_t at = 0; at < it->second.size();) {
                const auto comma = std::min(it->second.find(',', at), it->second.size());
                globals.push_back(std::stoll(it->second.substr(at, comma - at)));
                at = comma + 1;
            }
        return [=](std::int64_t i, std::int64_t j) {
            if (causal && j > i) return 0;
            if (static_cast<Wide>(distance(i, j)) <= static_cast<Wide>(r) * delta && distance(i, j) % delta == 0) return 1;
            const bool global = std::count(globals.begin(), globals.end(), i) || std::count(globals.begin(), globals.end(), j);
            return global ? 2 : 0;
        };
    }
    if (c.variant == "chunk") {
        const std::int64_t chunk = integerOf(c, "chunk", root);
        return [=](std::int64_t i, std::int64_t j) { return (causal && j > i) || i / chunk != j / chunk ? 0 : 1; };
    }
    if (c.variant == "xl") {
        const std::int64_t segment = integerOf(c, "segment", std::min<std::int64_t>(c.n, 64));
        const std::int64_t memory = integerOf(c, "memory", segment);
        return [=](std::int64_t i, std::int64_t j) {
            const std::int64_t start = (i / segment) * segment;
            if (j > i || j < start - memory) return 0;
            return j >= start ? 1 : 2;
        };
    }
    throw std::logic_error("no definition for " + c.variant);
}

std::vector<Case> printableCases() {
    std::vector<Case> cases;
    for (const std::int64_t n : {1, 2, 7, 16, 33}) {
        for (const bool causal : {false, true}) {
            cases.push_back({"full", n, causal, {}});
            cases.push_back({"strided", n, causal, {}});
            cases.push_back({"fixed", n, causal, {}});
            cases.push_back({"longformer", n, causal, {}});
            cases.push_back({"chunk", n, causal, {}});
            for (const std::string l : {"1", "2", "3", "5", "9223372036854775807"}) {
                cases.push_back({"strided", n, causal, {{"stride", l}}});
                cases.push_back({"chunk", n, causal, {{"chunk", l}}});
                cases.push_back({"fixed", n, causal, {{"block", l}, {"summary", "1"}}});
                cases.push_back({"fixed", n, causal, {{"block", l}, {"summary", l}}});
            }
            cases.push_back({"fixed", n, causal, {{"block", "8"}, {"summary", "3"}}});
            for (const std::string w : {"0", "1", "4", "7", "9223372036854775807"})
                for (const std::string delta : {"1", "2", "3", "9223372036854775807"}) {
                    cases.push_back({"longformer", n, causal, {{"window", w}, {"dilation", delta}}});
                    cases.push_back({"longformer", n, causal, {{"window", w}, {"dilation", delta}, {"globals", "0"}}});
                    if (n > 5)
                        cases.push_back({"longformer", n, causal, {{"window", w}, {"dilation", delta}, {"globals", "5,1,3"}}});
                }
        }
        cases.push_back({"xl", n, true, {}});
        for (const std::string segment : {"1", "3", "4", "9223372036854775807"})
            for (const std::string memory : {"0", "1", "2", "5", "9223372036854775807"})
                cases.push_back({"xl", n, true, {{"segment", segment}, {"memory", memory}}});
    }
    return cases;
}

TEST(BuiltinComponents, MatchTheirDefinitionsCellByCell) {
    for (const Case& c : printableCases()) {
        SCOPED_TRACE(describe(c));
        const Built built = build(c.variant, shapeOf(c), c.overrides);
        const Labeller label = expectedLabels(c);
        for (std::int64_t i = 0; i < c.n; ++i)
            for (std::int64_t j = 0; j < c.n; ++j) {
                const int expected = label(i, j);
                ASSERT_EQ(built.components[i * c.n + j], expected) << "(" << i << ", " << j << ")";
                ASSERT_EQ(built.mask[i * c.n + j], expected != 0 ? 1 : 0) << "(" << i << ", " << j << ")";
            }
    }
}

TEST(BuiltinComponents, PrintedExpressionGivesTheSamePatternAndComponents) {
    for (const Case& c : printableCases()) {
        SCOPED_TRACE(describe(c));
        const Built built = build(c.variant, shapeOf(c), c.overrides);
        ASSERT_FALSE(built.expression.empty());
        SCOPED_TRACE(built.expression);
        // The printed expression holds whether `custom` runs causally or not.
        for (const bool causal : {c.causal, false}) {
            ProblemShape shape = shapeOf(c);
            shape.causal = causal;
            const Built custom = build("custom", shape, {{"expr", built.expression}});
            EXPECT_EQ(custom.mask, built.mask);
            EXPECT_EQ(custom.components, built.components);
        }
    }
}

TEST(BuiltinComponents, BigBirdWindowGlobalsAndRandom) {
    for (const bool causal : {false, true})
        for (const std::int64_t n : {1, 5, 24}) {
            ProblemShape shape;
            shape.n = n;
            shape.d = 4;
            shape.dv = 4;
            shape.causal = causal;
            const Built built = build("bigbird", shape, {{"window", "4"}, {"globals", "2"}, {"random", "3"}, {"seed", "7"}});
            for (std::int64_t i = 0; i < n; ++i) {
                int randomKeys = 0, free = 0;
                for (std::int64_t j = 0; j < n; ++j) {
                    const auto label = built.components[i * n + j];
                    SCOPED_TRACE("(" + std::to_string(i) + ", " + std::to_string(j) + ")");
                    ASSERT_EQ(label != 0, built.mask[i * n + j] == 1);
                    if (causal && j > i) continue;
                    const bool window = (i > j ? i - j : j - i) <= 2, global = i < 2 || j < 2;
                    const int expected = window ? 1 : global ? 2 : 3;
                    if (expected < 3) {
                        EXPECT_EQ(label, expected);
                        continue;
                    }
                    ++free;
                    EXPECT_TRUE(label == 0 || label == 3);
                    randomKeys += label == 3;
                }
                EXPECT_EQ(randomKeys, std::min(3, free));
            }
        }
}

// Every variant that declares a printed expression, found through the registry: `custom` with it gives the
// variant's pattern and components at every setting of its schema.
TEST(PrintedExpressions, EveryVariantThatPrintsOneIsReproducedByCustom) {
    int printing = 0;
    for (const VariantInfo& variant : allVariants()) {
        if (!variant.printExpr) continue;
        ++printing;
        EXPECT_GT(testing::expectCustomReproducesPrintedExpression(variant), 0) << variant.id;
    }
    EXPECT_GT(printing, 0);
}

TEST(BuiltinComponents, MaskFreeVariantsAreOneComponentAndPrintNothing) {
    for (const VariantInfo& variant : allVariants()) {
        SCOPED_TRACE(variant.id);
        EXPECT_TRUE(static_cast<bool>(variant.components));
        if (variant.hasMask) continue;
        EXPECT_FALSE(static_cast<bool>(variant.printExpr));
        ProblemShape shape;
        shape.n = 9;
        shape.d = 4;
        shape.dv = 4;
        shape.causal = hasCausalForm(variant, true);
        const Built built = build(variant.id, shape, {});
        EXPECT_EQ(built.components, built.mask);
    }
}

TEST(BuiltinComponents, LshLabelsTheFirstMatchingRound) {
    const std::int64_t n = 32, d = 4;
    Tensor3 q(1, n, d), k(1, n, d);
    for (std::int64_t x = 0; x < n * d; ++x) {
        q.values[x] = static_cast<float>(std::sin(0.7 * static_cast<double>(x) + 0.3));
        k.values[x] = static_cast<float>(std::cos(1.3 * static_cast<double>(x)));
    }
    const AttentionInputs inputs{&q, &k, nullptr};
    const VariantInfo& lsh = requireVariant("lsh");
    ProblemShape shape = inputs.shape(false);
    for (const std::string rounds : {"1", "3"}) {
        SCOPED_TRACE(rounds);
        const ParamSet params = prepareParams(lsh, shape, {{"buckets", "4"}, {"rounds", rounds}, {"shared_qk", "false"}});
        const auto mask = denseMask(*buildPattern(lsh, shape, params, &inputs));
        const auto labels = denseComponents(*buildComponents(lsh, shape, params, &inputs));
        // The first r rounds alone allow exactly the off-diagonal cells labelled 1 … r.
        std::vector<std::uint8_t> covered(static_cast<std::size_t>(n * n), 0);
        for (std::int64_t r = 1; r <= std::stoll(rounds); ++r) {
            const ParamSet first = prepareParams(lsh, shape, {{"buckets", "4"}, {"rounds", std::to_string(r)}, {"shared_qk", "false"}});
            const auto upTo = denseMask(*buildPattern(lsh, shape, first, &inputs));
            for (std::int64_t c = 0; c < n * n; ++c) {
                covered[c] |= labels[c] != 0;
                if (c / n == c % n) continue; // a diagonal may be added to a row that no round fills
                EXPECT_EQ(labels[c] != 0 && labels[c] <= r, upTo[c] == 1) << c;
            }
        }
        for (std::int64_t c = 0; c < n * n; ++c) EXPECT_EQ(covered[c], mask[c]);
    }
}

} // namespace
} // namespace attnlab
