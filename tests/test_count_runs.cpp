// Row counts as runs (core/patterns/count_runs.h): the primitives against rows listed one by one, every
// built-in pattern's runs against its rows, costs from runs against the per-row sum, and costs at
// n = 2^31 − 1 against closed forms derived here by counting pairs by distance or by block.
#include "core/errors.h"
#include "core/patterns/count_runs.h"
#include "core/patterns/query_rows.h"
#include "core/patterns/range_work.h"
#include "core/registry.h"
#include "core/variants/variant_support.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

namespace attnlab {
namespace {

// (row, count) of every row a run holds, in the run's order.
std::vector<std::pair<std::int64_t, std::int64_t>> rowsOf(const CountRun& run) {
    std::vector<std::pair<std::int64_t, std::int64_t>> rows;
    for (std::int64_t k = 0; k < run.repeats; ++k)
        for (std::int64_t t = 0; t < run.length; ++t) rows.emplace_back(run.row(k, t), run.count(k, t));
    return rows;
}

TEST(CountRuns, TotalAndLongestAreThoseOfTheRowsListed) {
    for (const CountRun& run : {consecutiveRun(3, 5, 2, 1), consecutiveRun(0, 4, 9, -2), CountRun{10, 3, 7, 4, 5, -1, 3},
                                CountRun{0, 2, 2, 5, 8, 0, -1}}) {
        long double total = 0;
        std::int64_t longest = 0;
        for (const auto& [row, count] : rowsOf(run)) {
            total += count;
            longest = std::max(longest, count);
        }
        EXPECT_EQ(run.total(), total);
        EXPECT_EQ(run.longest(), longest);
    }
}

TEST(CountRuns, ClippingKeepsExactlyTheRowsInTheWindowShifted) {
    std::mt19937 random(7);
    for (int trial = 0; trial < 2000; ++trial) {
        CountRun run;
        run.period = 1 + static_cast<std::int64_t>(random() % 6);
        run.length = 1 + static_cast<std::int64_t>(random() % run.period);
        run.repeats = 1 + static_cast<std::int64_t>(random() % 5);
        run.first = static_cast<std::int64_t>(random() % 8);
        run.start = 20;
        run.perRow = static_cast<std::int64_t>(random() % 5) - 2;
        run.perRepeat = static_cast<std::int64_t>(random() % 5) - 2;
        const std::int64_t lo = static_cast<std::int64_t>(random() % 40), hi = lo + static_cast<std::int64_t>(random() % 40);
        std::map<std::int64_t, std::int64_t> expected, got;
        for (const auto& [row, count] : rowsOf(run))
            if (row >= lo && row < hi) expected[row - lo] = count;
        visitClipped(run, lo, hi, [&](const CountRun& part) {
            for (const auto& [row, count] : rowsOf(part)) EXPECT_TRUE(got.emplace(row, count).second) << "row " << row << " twice";
        });
        EXPECT_EQ(got, expected) << "trial " << trial;
    }
}

TEST(CountRuns, ClippingAnEmptyWindowOrAnEmptyRunVisitsNothing) {
    int visits = 0;
    const CountRunVisitor count = [&](const CountRun&) { ++visits; };
    visitClipped(consecutiveRun(0, 10, 1), 5, 5, count);
    visitClipped(consecutiveRun(0, 10, 1), 6, 2, count);
    visitClipped(consecutiveRun(0, 0, 1), 0, 10, count);
    visitClipped(CountRun{0, 3, 3, 0, 1, 0, 0}, 0, 10, count);
    visitClipped(consecutiveRun(0, 10, 1), 10, 20, count);
    EXPECT_EQ(visits, 0);
}

TEST(CountRuns, AffineRunsCutAtTheBreaksAndIgnoreThoseOutsideTheRows) {
    const auto count = [](std::int64_t i) { return i < 4 ? 1 + i : i < 9 ? 20 : 29 - i; };
    std::map<std::int64_t, std::int64_t> got;
    int runs = 0;
    affineRuns(12, {9, -3, 4, 4, 40, 12}, count, [&](const CountRun& run) {
        ++runs;
        for (const auto& [row, c] : rowsOf(run)) EXPECT_TRUE(got.emplace(row, c).second);
    });
    EXPECT_EQ(runs, 3);
    ASSERT_EQ(got.size(), 12u);
    for (const auto& [row, c] : got) EXPECT_EQ(c, count(row)) << row;
    affineRuns(0, {0, 3}, count, [&](const CountRun&) { ADD_FAILURE() << "no rows, no runs"; });
}

struct Case {
    std::string id;
    ParamOverrides set;
};

const std::vector<Case>& runCases() {
    static const std::vector<Case> cases = {
        {"chunk", {}},
        {"chunk", {{"chunk", "1"}}},
        {"chunk", {{"chunk", "7"}}},
        {"chunk", {{"chunk", "1000"}}},
        {"strided", {}},
        {"strided", {{"stride", "1"}}},
        {"strided", {{"stride", "2"}}},
        {"strided", {{"stride", "5"}}},
        {"strided", {{"stride", "40"}}},
        {"strided", {{"stride", "1000"}}},
        {"fixed", {}},
        {"fixed", {{"block", "5"}, {"summary", "2"}}},
        {"fixed", {{"block", "6"}, {"summary", "6"}}},
        {"fixed", {{"block", "1000"}, {"summary", "1"}}},
        {"xl", {}},
        {"xl", {{"segment", "4"}, {"memory", "0"}}},
        {"xl", {{"segment", "5"}, {"memory", "7"}}},
        {"xl", {{"segment", "3"}, {"memory", "9223372036854775807"}}},
        {"longformer", {}},
        {"longformer", {{"window", "0"}}},
        {"longformer", {{"window", "5"}, {"globals", "0,3,20"}}},
        {"longformer", {{"window", "6"}, {"dilation", "3"}}},
        {"longformer", {{"window", "8"}, {"dilation", "2"}, {"globals", "1,9"}}},
        {"longformer", {{"window", "4000"}, {"globals", "2"}}},
    };
    return cases;
}

bool supports(const VariantInfo& variant, bool causal) {
    return causal ? variant.causalSupport != CausalSupport::BidirectionalOnly : variant.causalSupport != CausalSupport::CausalOnly;
}

ProblemShape shapeOf(std::int64_t n, bool causal, std::int64_t queries = 0) {
    ProblemShape shape;
    shape.n = n;
    shape.d = 4;
    shape.dv = 4;
    shape.heads = 2;
    shape.causal = causal;
    shape.queries = queries;
    return shape;
}

// The parameters, or none where they do not fit the shape (globals past a small n).
std::optional<ParamSet> paramsOrNone(const VariantInfo& variant, const ProblemShape& shape, const ParamOverrides& set) {
    try {
        return prepareParams(variant, shape, set);
    } catch (const InputError&) {
        return std::nullopt;
    }
}

// Each row's count from its ranges, listed one by one.
std::int64_t rangeCount(const Pattern& pattern, std::int64_t i) {
    std::vector<ColumnRange> ranges;
    pattern.rowRanges(i, ranges);
    std::int64_t count = 0;
    for (const ColumnRange& range : ranges) count += range.size();
    return count;
}

TEST(CountRuns, EveryBuiltInPatternsRunsHoldEachRowOnceWithItsCount) {
    for (const Case& c : runCases())
        for (const bool causal : {false, true})
            for (const std::int64_t n : {1, 2, 3, 5, 16, 17, 41, 64, 97, 130}) {
                const VariantInfo& variant = requireVariant(c.id);
                if (!supports(variant, causal)) continue;
                const ProblemShape shape = shapeOf(n, causal);
                const auto params = paramsOrNone(variant, shape, c.set);
                if (!params) continue;
                PatternRequest request;
                request.shape = shape;
                request.params = &*params;
                const std::shared_ptr<const Pattern> whole = variant.pattern(request);
                for (const std::int64_t queries : {n, (n + 1) / 2, std::int64_t{1}}) {
                    const auto pattern = lastQueryRows(std::make_unique<QueryRowsPattern>(whole, n), queries);
                    std::vector<int> seen(static_cast<std::size_t>(queries), 0);
                    const bool described = pattern->countRuns([&](const CountRun& run) {
                        for (const auto& [row, count] : rowsOf(run)) {
                            ASSERT_GE(row, 0);
                            ASSERT_LT(row, queries);
                            ++seen[static_cast<std::size_t>(row)];
                            EXPECT_EQ(count, rangeCount(*pattern, row)) << c.id << " n=" << n << " causal=" << causal << " row " << row;
                        }
                    });
                    ASSERT_TRUE(described) << c.id;
                    for (std::int64_t row = 0; row < queries; ++row)
                        EXPECT_EQ(seen[static_cast<std::size_t>(row)], 1) << c.id << " n=" << n << " causal=" << causal << " row " << row;
                }
            }
}

TEST(CountRuns, ExpressionRunsHoldEachRowOnceWithItsCount) {
    const std::vector<std::string> expressions = {
        "band(8) | global(0)", "band(3) & !diag", "causal & band(5) | sink(2)", "block(7) | rows(3, 9) & band(2)",
        "segment(5, 3)", "docs(3, 10, 4) & band(4) | cols(0, 5)", "prefix(6) | diag", "!band(2)", "band(0) & !diag",
        "summary(10, 2) | band(1)", "all & !(band(3) | global(4))", "dilated(3, 1) | causal", "band(2) & !band(1) | rows(0)",
        "block(4) & !causal | segment(3, 1) & band(1)", "!(prefix(9) & band(40))"};
    const VariantInfo& variant = requireVariant("custom");
    for (const std::string& expr : expressions)
        for (const bool causal : {false, true})
            for (const std::int64_t n : {1, 2, 5, 17, 64, 100}) {
                const ProblemShape shape = shapeOf(n, causal);
                const ParamSet params = prepareParams(variant, shape, {{"expr", expr}});
                PatternRequest request;
                request.shape = shape;
                request.params = &params;
                const auto pattern = variant.pattern(request);
                std::vector<int> seen(static_cast<std::size_t>(n), 0);
                const bool described = pattern->countRuns([&](const CountRun& run) {
                    for (const auto& [row, count] : rowsOf(run)) {
                        ASSERT_GE(row, 0);
                        ASSERT_LT(row, n);
                        ++seen[static_cast<std::size_t>(row)];
                        EXPECT_EQ(count, rangeCount(*pattern, row)) << expr << " n=" << n << " causal=" << causal << " row " << row;
                    }
                });
                ASSERT_TRUE(described) << expr;
                for (std::int64_t row = 0; row < n; ++row) EXPECT_EQ(seen[static_cast<std::size_t>(row)], 1) << expr << " row " << row;
            }
}

TEST(CountRuns, ExpressionsOfManyRangesPerRowHaveNoRuns) {
    const VariantInfo& variant = requireVariant("custom");
    const ProblemShape shape = shapeOf(200, false);
    for (const std::string expr : {"stride(3) | band(1)", "band(2) | random(2, 1)", "dilated(2, 3) | diag",
                                   "cols(0,2,4,6,8,10,12,14,16,18,20,22,24,26,28,30,32)", "summary(4, 1)"}) {
        const ParamSet params = prepareParams(variant, shape, {{"expr", expr}});
        PatternRequest request;
        request.shape = shape;
        request.params = &params;
        EXPECT_FALSE(variant.pattern(request)->countRuns([](const CountRun&) { ADD_FAILURE() << "no run expected"; })) << expr;
    }
}

// A pattern's rows without its runs: what softmaxPatternCost counts row by row.
class RowsOnly : public Pattern {
public:
    explicit RowsOnly(std::unique_ptr<Pattern> pattern) : Pattern(pattern->size()), m_pattern(std::move(pattern)) {}
    bool allowed(std::int64_t i, std::int64_t j) const override { return m_pattern->allowed(i, j); }
    void rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const override { m_pattern->rowRanges(i, out); }

private:
    std::unique_ptr<Pattern> m_pattern;
};

TEST(CountRuns, CostsFromRunsEqualThePerRowSum) {
    for (const Case& c : runCases()) {
        for (const bool causal : {false, true})
            for (const std::int64_t n : {3, 17, 97, 700})
                for (const std::int64_t queries : {std::int64_t{0}, (n + 1) / 2}) {
                    const VariantInfo& variant = requireVariant(c.id);
                    if (!supports(variant, causal)) continue;
                    const ProblemShape shape = shapeOf(n, causal, queries);
                    const auto params = paramsOrNone(variant, shape, c.set);
                    if (!params) continue;
                    const auto byRuns = softmaxPatternCost(variant.pattern)(shape, *params);
                    const auto byRows = softmaxPatternCost([&](const PatternRequest& request) -> std::unique_ptr<Pattern> {
                        return std::make_unique<RowsOnly>(variant.pattern(request));
                    })(shape, *params);
                    EXPECT_EQ(byRuns.terms, byRows.terms) << c.id << " n=" << n << " causal=" << causal;
                    EXPECT_EQ(byRuns.workspaceBytes, byRows.workspaceBytes) << c.id << " n=" << n << " causal=" << causal;
                }
    }
}

TEST(CountRuns, BigBirdsTokenCostCountsTheRowsOfItsPattern) {
    for (const ParamOverrides& set : std::vector<ParamOverrides>{{}, {{"window", "0"}, {"globals", "0"}, {"random", "0"}},
                                                                 {{"window", "9"}, {"globals", "5"}, {"random", "40"}},
                                                                 {{"window", "400"}, {"globals", "200"}, {"random", "7"}}})
        for (const bool causal : {false, true})
            for (const std::int64_t n : {1, 2, 7, 33, 150})
                for (const std::int64_t queries : {std::int64_t{0}, (n + 1) / 2}) {
                    const VariantInfo& variant = requireVariant("bigbird");
                    const ProblemShape shape = shapeOf(n, causal, queries);
                    const ParamSet params = prepareParams(variant, shape, set);
                    const auto pattern = buildPattern(variant, shape, params);
                    double pairs = 0;
                    ASSERT_EQ(pattern->rows(), shape.queryRows());
                    for (std::int64_t r = 0; r < pattern->rows(); ++r) pairs += static_cast<double>(rangeCount(*pattern, r));
                    EXPECT_EQ(variant.cost(shape, params).terms.at("scores"), pairs * 4 * 2) << "n=" << n << " causal=" << causal;
                }
}

// Range work a cost does, and the cost.
std::pair<std::int64_t, CoreCost> costWork(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params) {
    const std::int64_t before = rangeWorkDone().ranges;
    CoreCost cost = variant.cost(shape, params);
    return {rangeWorkDone().ranges - before, cost};
}

TEST(CountRuns, APatternCountedRowByRowIsCountedOncePerProblemAndRangeLimit) {
    const VariantInfo& variant = requireVariant("custom");
    const ProblemShape shape = shapeOf(301, false);
    const ParamSet params = prepareParams(variant, shape, {{"expr", "stride(3) | band(2) | global(7)"}});
    const auto [first, counted] = costWork(variant, shape, params);
    EXPECT_GT(first, 301);
    const auto [again, kept] = costWork(variant, shape, params);
    EXPECT_LT(again, 301) << "the same problem's rows are not evaluated again (only the expression compiled)";
    EXPECT_EQ(kept.terms, counted.terms);
    EXPECT_EQ(kept.workspaceBytes, counted.workspaceBytes);
    EXPECT_GT(costWork(variant, shapeOf(301, true), params).first, 301) << "causal is another problem";
    EXPECT_GT(costWork(variant, shapeOf(301, false, 40), params).first, 40) << "so are 40 query rows";
    setJobRangeLimit(std::int64_t{1} << 40);
    const auto [underAnotherLimit, recounted] = costWork(variant, shape, params);
    setJobRangeLimit(std::nullopt);
    EXPECT_EQ(underAnotherLimit, first) << "a count under another limit is made again";
    EXPECT_EQ(recounted.terms, counted.terms);
}

TEST(CountRuns, RowsCountedOneByOneCountTowardsTheRangeEstimate) {
    const VariantInfo& variant = requireVariant("custom");
    const ProblemShape shape = shapeOf(4096, false);
    const ParamSet params = prepareParams(variant, shape, {{"expr", "prefix(0) | stride(4096)"}}); // a range per row, no runs
    PatternRequest request;
    request.shape = shape;
    request.params = &params;
    const auto pattern = variant.pattern(request);
    setJobRangeLimit(6000);
    EXPECT_NO_THROW(requireRangeWork(*pattern));
    EXPECT_THROW(requireRangeWork(*pattern, 1), RangeWorkExceeded) << "4096 ranges and 4096 rows pass 6000";
    EXPECT_THROW(costWork(variant, shape, params), RangeWorkExceeded);
    setJobRangeLimit(3 * 4096);
    EXPECT_NO_THROW(costWork(variant, shape, params)) << "its cost counts each row as two ranges and its one range";
    setJobRangeLimit(std::nullopt);
    EXPECT_THROW(requireRangeWork(*pattern, -1), std::invalid_argument);
}

// Pairs (i, j), j ≤ i, at distance i − j = δ: n − δ of them.
long double pairsAtDistance(std::int64_t n, std::int64_t distance) { return static_cast<long double>(n - distance); }

// The allowed pairs at the largest n: scores of one head of d = 2 (xl's relative positions need an even d).
double pairsAtLimit(const std::string& id, bool causal) {
    ProblemShape shape = shapeOf(2147483647, causal);
    shape.d = shape.dv = 2;
    shape.heads = 1;
    const VariantInfo& variant = requireVariant(id);
    return variant.cost(shape, prepareParams(variant, shape, {})).terms.at("scores") / 2;
}

TEST(CountRuns, CostsAtTheLargestNAreTheClosedForms) {
    const std::int64_t n = 2147483647, root = 46341; // ceil(sqrt(n)), the patterns' default width
    // full causal: the lower triangle with its diagonal.
    EXPECT_EQ(pairsAtLimit("full", true), static_cast<double>(static_cast<long double>(n) * (n + 1) / 2));
    // chunk: whole chunks of c² (causal c(c + 1)/2) pairs, then the last partial one.
    const std::int64_t whole = n / root, tail = n % root;
    EXPECT_EQ(pairsAtLimit("chunk", false), static_cast<double>(static_cast<long double>(whole) * root * root + static_cast<long double>(tail) * tail));
    EXPECT_EQ(pairsAtLimit("chunk", true), static_cast<double>(static_cast<long double>(whole) * root * (root + 1) / 2 +
                                                               static_cast<long double>(tail) * (tail + 1) / 2));
    // strided, causal: distances 0 … l and every multiple of l past it; bidirectional, twice that less the diagonal.
    long double strided = 0;
    for (std::int64_t distance = 0; distance < n; distance += distance < root ? 1 : root) strided += pairsAtDistance(n, distance);
    EXPECT_EQ(pairsAtLimit("strided", true), static_cast<double>(strided));
    EXPECT_EQ(pairsAtLimit("strided", false), static_cast<double>(2 * strided - n));
    // longformer without globals: the band of radius ⌊w/2⌋ = 46341.
    long double band = 0;
    for (std::int64_t distance = 0; distance <= root; ++distance) band += pairsAtDistance(n, distance);
    EXPECT_EQ(pairsAtLimit("longformer", true), static_cast<double>(band));
    EXPECT_EQ(pairsAtLimit("longformer", false), static_cast<double>(2 * band - n));
    // xl (L = m = 64): segments 0 and 1 (σ·L ≤ m) see every earlier key, every later row m + 1 + (i mod L).
    const std::int64_t later = n - 128, laterWhole = later / 64, laterTail = later % 64;
    EXPECT_EQ(pairsAtLimit("xl", true), static_cast<double>(128.0L * 129 / 2 + static_cast<long double>(laterWhole) * (64 * 65 + 64 * 63 / 2) +
                                                            static_cast<long double>(laterTail) * 65 + static_cast<long double>(laterTail) * (laterTail - 1) / 2));
    // fixed causal (l = 46341, c = 5792): block b's rows see b·c summary columns and 1 … l of their own.
    const std::int64_t summary = root / 8;
    long double fixed = 0;
    for (std::int64_t block = 0; block * root < n; ++block) {
        const std::int64_t rows = std::min(root, n - block * root);
        fixed += static_cast<long double>(rows) * block * summary + static_cast<long double>(rows) * (rows + 1) / 2;
    }
    EXPECT_EQ(pairsAtLimit("fixed", true), static_cast<double>(fixed));
    // bigbird (w = 6, g = 2, r = 3), bidirectional: the two global rows see all n; a row from 6 to n − 4 its
    // window of 7, the 2 globals and 3 random keys; rows near either end as their own sets say.
    long double bigbird = 2.0L * n + 12.0L * static_cast<long double>(n - 4 - 6 + 1);
    for (const std::int64_t i : {2, 3, 4, 5}) bigbird += 2 + (std::min<std::int64_t>(i + 3, n - 1) - std::max<std::int64_t>(2, i - 3) + 1) + 3;
    for (const std::int64_t i : {n - 3, n - 2, n - 1}) bigbird += 2 + (n - 1 - (i - 3) + 1) + 3;
    EXPECT_EQ(pairsAtLimit("bigbird", false), static_cast<double>(bigbird));
}

} // namespace
} // namespace attnlab
