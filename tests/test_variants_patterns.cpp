// The masked softmax variants of the contract (full, strided, fixed, longformer, chunk, xl, bigbird)
// against masks built cell by cell from docs/variants.md's formulas and a double-precision masked softmax.
#include "core/errors.h"
#include "support/variant_references.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <set>
#include <sstream>
#include <string>

namespace attnlab::testing {
namespace {

std::int64_t smallestSquareRootAtLeast(std::int64_t n) {
    std::int64_t r = 0;
    while (r * r < n) ++r;
    return r;
}

std::int64_t integerOr(const ParamOverrides& set, const std::string& key, std::int64_t fallback) {
    const auto it = set.find(key);
    return it == set.end() ? fallback : std::stoll(it->second);
}

std::string choiceOr(const ParamOverrides& set, const std::string& key, const std::string& fallback) {
    const auto it = set.find(key);
    return it == set.end() ? fallback : it->second;
}

std::vector<std::int64_t> indexListOr(const ParamOverrides& set, const std::string& key) {
    std::vector<std::int64_t> indices;
    const auto it = set.find(key);
    if (it == set.end()) return indices;
    std::stringstream stream(it->second);
    for (std::string item; std::getline(stream, item, ',');) indices.push_back(std::stoll(item));
    return indices;
}

std::int64_t distance(std::int64_t i, std::int64_t j) { return i > j ? i - j : j - i; }

// The allowed sets of the contract's data-independent masked variants, transcribed from
// docs/variants.md; parameters missing from `set` take the documented defaults for this n. `exact` is
// false for bigbird, whose rule is only the deterministic part (window and globals) of its mask.
struct SpecEntry {
    std::function<CellRule(const ParamOverrides& set, std::int64_t n)> rule; // before the causal cut
    bool exact = true;
};

const std::map<std::string, SpecEntry>& specTable() {
    static const std::map<std::string, SpecEntry> table = {
        {"full", {[](const ParamOverrides&, std::int64_t) { return CellRule([](std::int64_t, std::int64_t) { return true; }); }}},
        {"strided", {[](const ParamOverrides& set, std::int64_t n) {
             const std::int64_t l = integerOr(set, "stride", smallestSquareRootAtLeast(n));
             return CellRule([l](std::int64_t i, std::int64_t j) { return distance(i, j) <= l || distance(i, j) % l == 0; });
         }}},
        {"fixed", {[](const ParamOverrides& set, std::int64_t n) {
             const std::int64_t l = integerOr(set, "block", smallestSquareRootAtLeast(n));
             const std::int64_t c = integerOr(set, "summary", std::max<std::int64_t>(1, l / 8));
             return CellRule([l, c](std::int64_t i, std::int64_t j) { return i / l == j / l || j % l >= l - c; });
         }}},
        {"longformer", {[](const ParamOverrides& set, std::int64_t n) {
             const std::int64_t r = integerOr(set, "window", 2 * smallestSquareRootAtLeast(n)) / 2;
             const std::int64_t delta = integerOr(set, "dilation", 1);
             const std::vector<std::int64_t> globals = indexListOr(set, "globals");
             auto global = [globals](std::int64_t x) { return std::count(globals.begin(), globals.end(), x) > 0; };
             return CellRule([=](std::int64_t i, std::int64_t j) {
                 return (distance(i, j) <= r * delta && (i - j) % delta == 0) || global(i) || global(j);
             });
         }}},
        {"chunk", {[](const ParamOverrides& set, std::int64_t n) {
             const std::int64_t c = integerOr(set, "chunk", smallestSquareRootAtLeast(n));
             return CellRule([c](std::int64_t i, std::int64_t j) { return i / c == j / c; });
         }}},
        {"xl", {[](const ParamOverrides& set, std::int64_t n) {
             const std::int64_t segment = integerOr(set, "segment", std::min<std::int64_t>(n, 64));
             const std::int64_t memory = integerOr(set, "memory", segment);
             return CellRule([segment, memory](std::int64_t i, std::int64_t j) {
                 return (i / segment) * segment - memory <= j && j <= i;
             });
         }}},
        {"bigbird", {[](const ParamOverrides& set, std::int64_t) {
                         const std::int64_t r = integerOr(set, "window", 6) / 2;
                         const std::int64_t g = integerOr(set, "globals", 2);
                         return CellRule([r, g](std::int64_t i, std::int64_t j) { return distance(i, j) <= r || i < g || j < g; });
                     },
                     false}},
    };
    return table;
}

CellRule specRule(const std::string& id, const ParamOverrides& set, std::int64_t n, bool causal) {
    const CellRule rule = specTable().at(id).rule(set, n);
    return [rule, causal](std::int64_t i, std::int64_t j) { return (!causal || j <= i) && rule(i, j); };
}

// s_ij of one head as docs/variants.md defines it for the variant (xl adds q_i·R_{i−j} unless relpos=none).
Matrix specScores(const std::string& id, const ParamOverrides& set, const Inputs& inputs, int head) {
    const Matrix q = headMatrix(inputs.q, head), k = headMatrix(inputs.k, head);
    const double scale = 1.0 / std::sqrt(static_cast<double>(q.cols));
    Matrix scores = rowProducts(q, k, scale);
    if (id == "xl" && choiceOr(set, "relpos", "sinusoid") == "sinusoid") {
        const Matrix relative = rowProducts(q, sinusoidTable(q.rows, q.cols), scale); // (i, p) = q_i·R_p
        for (std::int64_t i = 0; i < q.rows; ++i)
            for (std::int64_t j = 0; j <= i; ++j) scores(i, j) += relative(i, i - j);
    }
    return scores;
}

std::vector<Matrix> softmaxReference(const Call& call, const Inputs& inputs, const Mask& mask) {
    std::vector<Matrix> weights;
    for (int h = 0; h < inputs.q.heads; ++h) weights.push_back(softmaxWeights(specScores(call.id, call.set, inputs, h), mask));
    return weights;
}

std::int64_t count(const Mask& mask) { return std::count(mask.begin(), mask.end(), std::uint8_t{1}); }

struct Shape {
    std::int64_t n;
    int heads;
    std::int64_t d;
    std::int64_t dv;
};

// One setting of a variant and the shapes it is valid for (each test loops over them).
struct MaskCase {
    Call call;
    std::vector<Shape> shapes;
};

std::string shapeText(const Shape& s) {
    return "n=" + std::to_string(s.n) + " h=" + std::to_string(s.heads) + " d=" + std::to_string(s.d) +
           " dv=" + std::to_string(s.dv);
}

std::string testName(const MaskCase& c) {
    std::string name = c.call.id + (c.call.causal ? "_causal" : "_bidir");
    for (const auto& [key, value] : c.call.set) name += "_" + key + "_" + value;
    for (char& ch : name)
        if (!std::isalnum(static_cast<unsigned char>(ch))) ch = '_';
    return name;
}

// Edge cases of the parameters beyond the single-key settings the schema gives (schemaCalls).
const std::map<std::string, std::vector<ParamOverrides>>& edgeCaseSets() {
    static const std::map<std::string, std::vector<ParamOverrides>> sets = {
        {"strided", {{{"stride", "4"}}, {{"stride", "9"}}, {{"stride", "100"}}}},
        {"fixed",
         {{{"block", "8"}}, {{"block", "8"}, {"summary", "8"}}, {{"block", "5"}, {"summary", "2"}}, {{"block", "1"}},
          {{"block", "100"}, {"summary", "3"}}, {{"summary", "2"}}, {{"block", "16"}}}},
        {"longformer",
         {{{"window", "5"}}, {{"window", "4"}, {"dilation", "3"}}, {{"globals", "0,1"}},
          {{"window", "6"}, {"dilation", "2"}, {"globals", "36,3"}}, {{"window", "200"}}}},
        {"chunk", {{{"chunk", "8"}}, {{"chunk", "100"}}}},
        {"xl",
         {{{"segment", "8"}}, {{"segment", "8"}, {"memory", "0"}}, {{"segment", "8"}, {"memory", "20"}},
          {{"segment", "5"}, {"memory", "3"}, {"relpos", "none"}}, {{"segment", "100"}}, {{"segment", "1"}, {"memory", "2"}}}},
    };
    return sets;
}

// Every registered variant whose rule is transcribed above (found through the registry, so none is left
// out by a list of its own): its schema's settings and the edge cases, crossed with causal/bidirectional
// and shapes that include n = 1, odd n, n not a multiple of the block/chunk/segment, h ∈ {1, 3}, odd d
// and d_v ≠ d. Settings the variant rejects for a shape are left to the parameter tests.
std::vector<MaskCase> maskCases() {
    const std::vector<Shape> shapes = {{1, 1, 4, 4}, {2, 3, 4, 2}, {37, 3, 6, 3}, {45, 1, 5, 2}, {61, 1, 8, 8}, {70, 3, 6, 7}};
    std::vector<MaskCase> cases;
    std::map<std::pair<std::string, std::pair<bool, ParamOverrides>>, std::size_t> caseOf;
    for (const auto& variant : allVariants()) {
        const auto entry = specTable().find(variant.id);
        if (entry == specTable().end() || !entry->second.exact) continue;
        const auto edges = edgeCaseSets().find(variant.id);
        for (const Shape& shape : shapes) {
            const ProblemShape problem{shape.heads, shape.n, shape.d, shape.dv, false};
            std::vector<Call> calls = schemaCalls(variant, problem);
            for (const bool causal : {false, true})
                for (const ParamOverrides& set : edges == edgeCaseSets().end() ? std::vector<ParamOverrides>{} : edges->second)
                    calls.push_back({variant.id, causal, set});
            for (const Call& call : calls) {
                try {
                    prepareParams(variant, {shape.heads, shape.n, shape.d, shape.dv, call.causal}, call.set);
                } catch (const InputError&) {
                    continue;
                }
                const auto [it, added] = caseOf.insert({{call.id, {call.causal, call.set}}, cases.size()});
                if (added) cases.push_back({call, {}});
                std::vector<Shape>& valid = cases[it->second].shapes;
                if (valid.empty() || valid.back().n != shape.n) valid.push_back(shape);
            }
        }
    }
    return cases;
}

TEST(SpecTable, EveryTranscribedVariantIsRegisteredWithADataIndependentMask) {
    for (const auto& [id, entry] : specTable()) {
        const VariantInfo* variant = findVariant(id);
        ASSERT_NE(variant, nullptr) << "the contract's variant '" << id << "' is not registered";
        EXPECT_TRUE(variant->hasMask) << id;
        EXPECT_FALSE(variant->dataDependentPattern) << id;
    }
}

void PrintTo(const MaskCase& c, std::ostream* os) { *os << describe(c.call) << " on " << c.shapes.size() << " shapes"; }

class MaskedVariant : public ::testing::TestWithParam<MaskCase> {};

TEST_P(MaskedVariant, PatternIsTheSpecMaskCellByCell) {
    const MaskCase& c = GetParam();
    for (const Shape& s : c.shapes) {
        SCOPED_TRACE(describe(c.call) + " " + shapeText(s));
        const auto pattern = patternOfShape(c.call, s.n);
        const Mask expected = maskFromRule(s.n, specRule(c.call.id, c.call.set, s.n, c.call.causal));
        ASSERT_EQ(pattern->size(), s.n);
        EXPECT_EQ(maskOf(*pattern), expected);
        EXPECT_EQ(denseMask(*pattern), expected) << "row ranges";
        EXPECT_EQ(pattern->nnz(), count(expected));
    }
}

TEST_P(MaskedVariant, RunMatchesMaskedSoftmaxOnBothPaths) {
    const MaskCase& c = GetParam();
    for (const Shape& s : c.shapes) {
        SCOPED_TRACE(shapeText(s));
        const Inputs inputs = randomInputs(s.heads, s.n, s.d, s.dv, 11 + s.n);
        const Mask mask = maskFromRule(s.n, specRule(c.call.id, c.call.set, s.n, c.call.causal));
        expectBothPathsMatch(c.call, inputs, softmaxReference(c.call, inputs, mask));
    }
}

TEST_P(MaskedVariant, CostCountsTheMaskPairs) {
    const MaskCase& c = GetParam();
    for (const Shape& s : c.shapes) {
        SCOPED_TRACE(describe(c.call) + " " + shapeText(s));
        const ProblemShape shape{s.heads, s.n, s.d, s.dv, c.call.causal};
        const auto nnz = static_cast<double>(count(maskFromRule(s.n, specRule(c.call.id, c.call.set, s.n, c.call.causal))));
        const CoreCost cost = requireVariant(c.call.id).cost(shape, resolve(c.call, shape));
        EXPECT_DOUBLE_EQ(cost.terms.at("scores"), nnz * static_cast<double>(s.d * s.heads));
        EXPECT_DOUBLE_EQ(cost.terms.at("weights_v"), nnz * static_cast<double>(s.dv * s.heads));
        EXPECT_DOUBLE_EQ(cost.exps, nnz * s.heads);
        const bool relpos = c.call.id == "xl" && choiceOr(c.call.set, "relpos", "sinusoid") == "sinusoid";
        const auto term = cost.terms.find("relpos");
        const double relposMacs = term == cost.terms.end() ? 0.0 : term->second;
        EXPECT_DOUBLE_EQ(relposMacs, relpos ? nnz * static_cast<double>(s.d * s.heads) : 0.0);
    }
}

INSTANTIATE_TEST_SUITE_P(SpecTable, MaskedVariant, ::testing::ValuesIn(maskCases()),
                         [](const ::testing::TestParamInfo<MaskCase>& tested) { return testName(tested.param); });

TEST(XlAttention, SinusoidChangesTheScoresAndMemoryBeyondTheSegmentReachesEarlierSegments) {
    // Guards the reference itself: relpos must matter, and memory > L must reach two segments back.
    const Inputs inputs = randomInputs(1, 30, 6, 4, 5);
    Call sinusoid{"xl", true, {{"segment", "7"}, {"memory", "10"}}};
    Call none{"xl", true, {{"segment", "7"}, {"memory", "10"}, {"relpos", "none"}}};
    EXPECT_GT(maxAbsDifference(runCall(sinusoid, inputs).out.values, runCall(none, inputs).out.values), 1e-3);
    const auto pattern = patternOf(sinusoid, inputs);
    EXPECT_TRUE(pattern->allowed(21, 11)); // segment 3 starts at 21; memory reaches 21 − 10
    EXPECT_FALSE(pattern->allowed(21, 10));
    EXPECT_TRUE(pattern->allowed(14, 4));  // segment 2 starts at 14, memory reaches 4 (two segments back)
    EXPECT_FALSE(pattern->allowed(14, 3));
}

// ---- bigbird: the window and globals exactly, the random keys by their rules ----

Mask bigBirdPatternMask(const Call& call, std::int64_t n) { return maskOf(*patternOfShape(call, n)); }

struct BigBirdCase {
    ParamOverrides set;
    std::int64_t n;
    bool causal;
};

std::vector<BigBirdCase> bigBirdCases() {
    std::vector<BigBirdCase> cases;
    const std::vector<ParamOverrides> sets = {{},
                                              {{"seed", "7"}},
                                              {{"window", "0"}, {"globals", "0"}, {"random", "2"}},
                                              {{"window", "9"}, {"globals", "5"}, {"random", "4"}, {"seed", "3"}},
                                              {{"window", "3"}, {"globals", "1"}, {"random", "60"}},
                                              {{"globals", "100"}},
                                              {{"random", "0"}},
                                              {{"window", "1"}, {"globals", "0"}, {"random", "1"}, {"seed", "123"}}};
    for (const auto& set : sets)
        for (const std::int64_t n : {1, 2, 9, 37, 70})
            for (const bool causal : {false, true}) cases.push_back({set, n, causal});
    return cases;
}

std::string bigBirdName(const BigBirdCase& c) {
    std::string name = c.causal ? "causal" : "bidir";
    for (const auto& [key, value] : c.set) name += "_" + key + "_" + value;
    return name + "_n" + std::to_string(c.n);
}

void PrintTo(const BigBirdCase& c, std::ostream* os) { *os << bigBirdName(c); }

class BigBirdPattern : public ::testing::TestWithParam<BigBirdCase> {};

TEST_P(BigBirdPattern, WindowAndGlobalsExactlyPlusDistinctRandomKeysOutsideThem) {
    const BigBirdCase& c = GetParam();
    const std::int64_t n = c.n;
    const Mask base = maskFromRule(n, specRule("bigbird", c.set, n, c.causal));
    const Mask mask = bigBirdPatternMask({"bigbird", c.causal, c.set}, n);
    const std::int64_t r = integerOr(c.set, "random", 3);
    for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t baseCount = 0, extra = 0;
        for (std::int64_t j = 0; j < n; ++j) {
            const auto cell = static_cast<std::size_t>(i * n + j);
            baseCount += base[cell];
            if (base[cell]) {
                EXPECT_TRUE(mask[cell]) << "row " << i << " lost base column " << j;
            } else if (mask[cell]) {
                ++extra;
                EXPECT_TRUE(!c.causal || j <= i) << "row " << i << " drew the future column " << j;
            }
        }
        const std::int64_t available = (c.causal ? i + 1 : n) - baseCount;
        EXPECT_EQ(extra, std::min(r, available)) << "row " << i;
    }
}

TEST_P(BigBirdPattern, RunIsSoftmaxOverTheOneMaskSharedByAllHeads) {
    const BigBirdCase& c = GetParam();
    const Call call{"bigbird", c.causal, c.set};
    const Inputs inputs = randomInputs(3, c.n, 6, 5, 40 + c.n);
    const Mask mask = bigBirdPatternMask(call, c.n);
    for (int head = 0; head < 3; ++head) EXPECT_EQ(maskOf(*patternOf(call, inputs, head)), mask);
    expectBothPathsMatch(call, inputs, softmaxReference(call, inputs, mask));
}

TEST_P(BigBirdPattern, CostCountsItsSeededMask) {
    const BigBirdCase& c = GetParam();
    const Call call{"bigbird", c.causal, c.set};
    const ProblemShape shape{2, c.n, 6, 3, c.causal};
    const auto nnz = static_cast<double>(count(bigBirdPatternMask(call, c.n)));
    const CoreCost cost = requireVariant("bigbird").cost(shape, resolve(call, shape));
    EXPECT_DOUBLE_EQ(cost.terms.at("scores"), nnz * 6 * 2);
    EXPECT_DOUBLE_EQ(cost.terms.at("weights_v"), nnz * 3 * 2);
}

INSTANTIATE_TEST_SUITE_P(Params, BigBirdPattern, ::testing::ValuesIn(bigBirdCases()),
                         [](const ::testing::TestParamInfo<BigBirdCase>& tested) { return bigBirdName(tested.param); });

TEST(BigBirdRandomKeys, SameSeedSameMaskOtherSeedOtherMask) {
    for (const bool causal : {false, true}) {
        const Mask first = bigBirdPatternMask({"bigbird", causal, {{"seed", "5"}}}, 60);
        EXPECT_EQ(bigBirdPatternMask({"bigbird", causal, {{"seed", "5"}}}, 60), first);
        EXPECT_NE(bigBirdPatternMask({"bigbird", causal, {{"seed", "6"}}}, 60), first);
        EXPECT_NE(bigBirdPatternMask({"bigbird", causal, {}}, 60), first);
    }
}

TEST(BigBirdRandomKeys, DrawsAreSpreadUniformlyOverTheFreeColumns) {
    // Row 30 of n = 50 with the default window and globals has 50 − 9 = 41 free columns; over 1000
    // seeds each should be drawn about 1000·3/41 ≈ 73 times. Pearson's χ² with 40 degrees of freedom
    // has mean 40 and standard deviation ~9; a biased draw (e.g. always the lowest free columns) is
    // in the thousands.
    const std::int64_t n = 50, row = 30;
    const Mask base = maskFromRule(n, specRule("bigbird", {}, n, false));
    std::map<std::int64_t, int> hits;
    const int seeds = 1000;
    for (int seed = 0; seed < seeds; ++seed) {
        const auto pattern = patternOfShape({"bigbird", false, {{"seed", std::to_string(seed)}}}, n);
        for (std::int64_t j = 0; j < n; ++j)
            if (!base[row * n + j] && pattern->allowed(row, j)) ++hits[j];
    }
    std::int64_t free = 0;
    for (std::int64_t j = 0; j < n; ++j) free += base[row * n + j] ? 0 : 1;
    ASSERT_EQ(free, 41);
    const double expected = seeds * 3.0 / static_cast<double>(free);
    double chiSquare = 0;
    for (std::int64_t j = 0; j < n; ++j)
        if (!base[row * n + j]) chiSquare += (hits[j] - expected) * (hits[j] - expected) / expected;
    EXPECT_LT(chiSquare, 40 + 6 * 9);
}

TEST(BigBirdRandomKeys, GlobalsAreClampedToN) {
    const Mask all = maskFromRule(6, [](std::int64_t, std::int64_t) { return true; });
    EXPECT_EQ(bigBirdPatternMask({"bigbird", false, {{"globals", "10"}}}, 6), all);
    EXPECT_EQ(bigBirdPatternMask({"bigbird", true, {{"globals", "10"}}}, 6), allPairsMask(6, true));
}

} // namespace
} // namespace attnlab::testing
