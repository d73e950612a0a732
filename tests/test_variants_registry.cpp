// Every registered variant, found through the registry rather than a list kept here: its outputs against
// an independent double-precision reference of its definition, on the fast and the reference path, and
// its pattern's three descriptions (predicate, row ranges, row counts) against each other. Parameter
// settings come from each variant's schema, so a new variant is checked without editing this file; a
// throw-away variant, never registered, shows that these checks apply to one that was just written.
#include "support/variant_checks.h"
#include "support/variant_references.h"

#include "core/variants/variant_support.h"

#include <gtest/gtest-spi.h>
#include <gtest/gtest.h>

#include <set>

namespace attnlab::testing {
namespace {

// Softmax over each head's own pattern, cells tested through Pattern::allowed, with the variant's scores.
std::vector<Matrix> predicateSoftmax(const Call& call, const Inputs& inputs) {
    const ParamSet params = resolve(call, shapeOf(inputs, call.causal));
    std::vector<Matrix> weights;
    for (int h = 0; h < inputs.q.heads; ++h)
        weights.push_back(softmaxWeights(patternScores(call.id, params, inputs, h), maskOf(*patternOf(call, inputs, h))));
    return weights;
}

struct ShapeCase {
    int heads;
    std::int64_t n, d, dv;
};
// n = 1, a prime, one past a power of two; odd dv; d even for xl's sinusoid.
const std::vector<ShapeCase> kShapes = {{1, 1, 4, 4}, {2, 13, 6, 5}, {3, 33, 8, 3}};

class EveryVariant : public ::testing::TestWithParam<std::string> {
protected:
    const VariantInfo& variant() const { return requireVariant(GetParam()); }
};

TEST_P(EveryVariant, MatchesAnIndependentReferenceOfItsDefinition) {
    const VariantInfo& v = variant();
    const WeightsReference* maskFree = v.hasMask ? nullptr : maskFreeReference(v.id);
    ASSERT_TRUE(v.hasMask || maskFree) << "variant '" << v.id
                                       << "' has no mask and the tests know no reference of its definition: add one to "
                                          "maskFreeReference() in tests/support/variant_references.h";
    int checked = 0;
    for (const ShapeCase& s : kShapes) {
        const Inputs inputs = randomInputs(s.heads, s.n, s.d, s.dv, 7 + static_cast<std::uint64_t>(s.n), 0.8);
        for (const Call& call : schemaCalls(v, shapeOf(inputs, false))) {
            SCOPED_TRACE(describe(call) + " n=" + std::to_string(s.n));
            const std::vector<Matrix> weights =
                maskFree ? (*maskFree)(inputs, resolve(call, shapeOf(inputs, call.causal)), call.causal)
                         : predicateSoftmax(call, inputs);
            expectBothPathsMatch(call, inputs, weights);
            ++checked;
        }
    }
    EXPECT_GE(checked, 2 * static_cast<int>(kShapes.size())) << "too few valid settings were generated";
}

// Row i's columns collected from its ranges, checking that they are sorted, disjoint and not touching.
std::vector<std::int64_t> columnsOfRanges(const Pattern& pattern, std::int64_t i) {
    std::vector<ColumnRange> ranges;
    pattern.rowRanges(i, ranges);
    std::vector<std::int64_t> columns;
    for (std::size_t r = 0; r < ranges.size(); ++r) {
        EXPECT_LT(ranges[r].begin, ranges[r].end) << "row " << i << " has an empty range";
        EXPECT_GE(ranges[r].begin, 0) << "row " << i;
        EXPECT_LE(ranges[r].end, pattern.size()) << "row " << i;
        if (r > 0) {
            EXPECT_GT(ranges[r].begin, ranges[r - 1].end) << "row " << i << ": ranges overlap or touch";
        }
        for (std::int64_t j = ranges[r].begin; j < ranges[r].end; ++j) columns.push_back(j);
    }
    return columns;
}

void expectDescriptionsAgree(const Pattern& pattern, const Call& call) {
    const std::int64_t n = pattern.size();
    std::int64_t total = 0;
    for (std::int64_t i = 0; i < n; ++i) {
        std::vector<std::int64_t> byPredicate;
        for (std::int64_t j = 0; j < n; ++j)
            if (pattern.allowed(i, j)) byPredicate.push_back(j);
        ASSERT_EQ(columnsOfRanges(pattern, i), byPredicate) << describe(call) << " n=" << n << " row " << i;
        ASSERT_EQ(pattern.rowCount(i), static_cast<std::int64_t>(byPredicate.size())) << describe(call) << " row " << i;
        ASSERT_FALSE(byPredicate.empty()) << describe(call) << ": row " << i << " is empty";
        if (call.causal) {
            ASSERT_LE(byPredicate.back(), i) << describe(call) << ": row " << i << " sees the future";
        }
        total += pattern.rowCount(i);
    }
    EXPECT_EQ(pattern.nnz(), total) << describe(call);
}

TEST_P(EveryVariant, PredicateRangesAndRowCountsDescribeTheSamePattern) {
    const VariantInfo& v = variant();
    int checked = 0;
    for (const std::int64_t n : {1, 2, 7, 30, 64, 97}) {
        const Inputs inputs = randomInputs(2, n, 6, 6, 500 + static_cast<std::uint64_t>(n));
        for (const Call& call : schemaCalls(v, shapeOf(inputs, false))) {
            for (int head = 0; head < (v.dataDependentPattern ? 2 : 1); ++head)
                expectDescriptionsAgree(*patternOf(call, inputs, head), call);
            ++checked;
        }
    }
    EXPECT_GT(checked, 0);
}

std::vector<std::string> registeredIds() {
    std::vector<std::string> ids;
    for (const auto& variant : allVariants()) ids.push_back(variant.id);
    return ids;
}

INSTANTIATE_TEST_SUITE_P(Registry, EveryVariant, ::testing::ValuesIn(registeredIds()),
                         [](const ::testing::TestParamInfo<std::string>& tested) { return tested.param; });

TEST(VariantReferences, EveryReferenceBelongsToARegisteredMaskFreeVariant) {
    // A renamed or removed variant must not leave its reference unused, nor a pattern variant shadowed.
    for (const auto& [id, reference] : maskFreeReferences()) {
        const VariantInfo* variant = findVariant(id);
        ASSERT_NE(variant, nullptr) << "reference for unregistered variant '" << id << "'";
        EXPECT_FALSE(variant->hasMask) << id;
    }
}

// A throw-away variant built as docs/adding_a_variant.md says (the building blocks of
// core/variants/variant_support.h), never registered: band(w), |i − j| ≤ w, one component, a printed
// expression and a retained-keys rule. The checks the registry-driven tests run on every registered
// variant are run on it, and on broken copies of it to show that they catch a wrong declaration.
std::unique_ptr<Pattern> toyBand(const PatternRequest& request) {
    const std::int64_t n = request.shape.n, w = request.params->integer("width");
    const bool causal = request.shape.causal;
    const auto end = [n, w, causal](std::int64_t i) { return causal ? i + 1 : std::min(n, i + 1 + std::min(w, n)); };
    const auto begin = [w](std::int64_t i) { return std::max<std::int64_t>(0, i - w); };
    return std::make_unique<ClosedFormPattern>(
        n, [w, causal](std::int64_t i, std::int64_t j) { return (i > j ? i - j : j - i) <= w && (!causal || j <= i); },
        [begin, end](std::int64_t i, std::vector<ColumnRange>& out) { out.push_back({begin(i), end(i)}); },
        [begin, end](std::int64_t i) { return end(i) - begin(i); });
}

std::string toyExpression(const PatternRequest& request) {
    return termsExpression({"band(" + std::to_string(request.params->integer("width")) + ")"}, request.shape.causal);
}

VariantInfo toyVariant() {
    VariantInfo v;
    v.id = "toy_band";
    v.displayName = "Toy band";
    v.summary = "Each query attends to the keys within w positions.";
    v.params = {integerParam("width", "Half-width w of the band", "2", [](const ShapeContext&, const ParamSet&) { return 2; }, 0, "w ≥ 0")};
    v.pattern = toyBand;
    v.run = softmaxOverPattern(toyBand);
    v.cost = softmaxPatternCost(toyBand, splitsNoRows);
    v.componentNames = {"band"};
    v.printExpr = toyExpression;
    v.components = componentsFromExpression(toyBand, toyExpression);
    v.decode = decodeKeeping([](const ProblemShape& s, const ParamSet& p) { return std::min(s.n, p.integer("width") + 1); });
    return v;
}

// The failures `check` reports, recorded instead of failing this test.
template <typename Check>
int failuresOf(Check check) {
    ::testing::TestPartResultArray results;
    {
        ::testing::ScopedFakeTestPartResultReporter reporter(::testing::ScopedFakeTestPartResultReporter::INTERCEPT_ONLY_CURRENT_THREAD,
                                                             &results);
        check();
    }
    int failures = 0;
    for (int k = 0; k < results.size(); ++k) failures += results.GetTestPartResult(k).failed() ? 1 : 0;
    return failures;
}

TEST(ThrowAwayVariant, PassesTheChecksEveryRegisteredVariantGets) {
    const VariantInfo toy = toyVariant();
    ASSERT_EQ(findVariant(toy.id), nullptr);
    for (const std::int64_t n : {1, 2, 7, 30})
        for (const Call& call : schemaCalls(toy, smallShape(n, false))) {
            const ProblemShape shape = smallShape(n, call.causal);
            const ParamSet params = prepareParams(toy, shape, call.set);
            expectDescriptionsAgree(*buildPattern(toy, shape, params), call);
        }
    EXPECT_GT(expectCustomReproducesPrintedExpression(toy), 0);
    ASSERT_TRUE(hasRetainedKeysRule(toy));
    EXPECT_GT(expectRetainedKeysAreTheKeysLaterRowsUse(toy), 0);
}

TEST(ThrowAwayVariant, AWrongPrintedExpressionOrRetainedKeysRuleIsCaught) {
    VariantInfo wrongExpression = toyVariant();
    wrongExpression.printExpr = [](const PatternRequest& request) {
        return termsExpression({"band(" + std::to_string(request.params->integer("width") + 1) + ")"}, request.shape.causal);
    };
    EXPECT_GT(failuresOf([&] { expectCustomReproducesPrintedExpression(wrongExpression); }), 0);
    VariantInfo wrongRule = toyVariant();
    wrongRule.decode = decodeKeeping([](const ProblemShape& s, const ParamSet& p) { return std::min(s.n, p.integer("width")); });
    EXPECT_GT(failuresOf([&] { expectRetainedKeysAreTheKeysLaterRowsUse(wrongRule); }), 0);
}

} // namespace
} // namespace attnlab::testing
