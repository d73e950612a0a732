// Rows as strided ranges (Pattern::rowStrides) for expressions of one term j ≡ i (mod s) within primitives
// of one range: their columns against rowRanges, their count runs, block counts and density images against
// counting every cell, and their costs at n = 2^31 − 1 against closed forms counted by distance.
#include "core/patterns/block_counts.h"
#include "core/patterns/count_runs.h"
#include "core/patterns/expression_pattern.h"
#include "core/patterns/query_rows.h"
#include "core/patterns/range_work.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace attnlab {
namespace {

std::unique_ptr<ExpressionPattern> expressionOf(const std::string& text, std::int64_t n, bool causal) {
    return std::make_unique<ExpressionPattern>(parseExpression(text), n, causal);
}

// The columns of a row listed one by one.
std::vector<std::int64_t> columnsOf(const std::vector<ColumnRange>& ranges) {
    std::vector<std::int64_t> columns;
    for (const ColumnRange& r : ranges)
        for (std::int64_t j = r.begin; j < r.end; ++j) columns.push_back(j);
    return columns;
}

std::vector<std::int64_t> columnsOf(const std::vector<StridedRange>& ranges) {
    std::vector<std::int64_t> columns;
    for (const StridedRange& r : ranges)
        for (std::int64_t j = r.begin; j < r.end; j += r.step) columns.push_back(j);
    return columns;
}

// Random expressions of the one-term form: a stride or a dilation met by up to two primitives of one range.
std::string randomCongruentExpression(std::mt19937& random) {
    const auto arg = [&](int most) { return std::to_string(1 + random() % static_cast<unsigned>(most)); };
    const std::vector<std::string> congruent = {"stride(" + arg(7) + ")", "dilated(" + arg(5) + ", " + std::to_string(1 + random() % 4 + 1) + ")"};
    const std::vector<std::string> windows = {"band(" + arg(9) + ")", "block(" + arg(12) + ")", "causal", "prefix(" + arg(30) + ")",
                                              "segment(" + arg(10) + ", " + arg(6) + ")", "sink(" + arg(9) + ")", "rows(" + arg(20) + ", 3)",
                                              "docs(" + arg(15) + ", " + arg(15) + ")", "dilated(" + arg(6) + ", 1)", "diag", "all"};
    std::string text = congruent[random() % congruent.size()];
    for (unsigned k = random() % 3; k > 0; --k) text += " & " + windows[random() % windows.size()];
    return text;
}

// A pattern's rows without its strides or runs: what the counts read before strided rows.
class RangesOnly : public Pattern {
public:
    explicit RangesOnly(const Pattern& pattern) : Pattern(pattern.size()), m_pattern(pattern) {}
    bool allowed(std::int64_t i, std::int64_t j) const override { return m_pattern.allowed(i, j); }
    void rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const override { m_pattern.rowRanges(i, out); }

private:
    const Pattern& m_pattern;
};

TEST(StridedRows, StridedRangesCountTheirColumnsInAWindow) {
    const StridedRange range{3, 40, 5}; // 3, 8, …, 38
    for (std::int64_t lo = 0; lo < 45; ++lo)
        for (std::int64_t hi = lo; hi < 45; ++hi) {
            std::int64_t expected = 0;
            for (std::int64_t j = 3; j < 40; j += 5) expected += j >= lo && j < hi ? 1 : 0;
            EXPECT_EQ(range.countIn(lo, hi), expected) << lo << ", " << hi;
        }
    const StridedRange huge{5, INT64_MAX, INT64_MAX - 7}; // 5 and 2^63 − 3
    EXPECT_EQ(huge.columns(), 2);
    EXPECT_EQ(huge.countIn(6, INT64_MAX - 2), 0) << "no step past the end";
    EXPECT_EQ(huge.countIn(6, INT64_MAX), 1);
    EXPECT_EQ(huge.countIn(0, 6), 1);
}

TEST(StridedRows, OneTermExpressionsGiveTheColumnsOfTheirRanges) {
    std::mt19937 random(35);
    for (int trial = 0; trial < 300; ++trial) {
        const std::string text = randomCongruentExpression(random);
        const std::int64_t n = 1 + static_cast<std::int64_t>(random() % 60);
        const bool causal = random() % 2 == 0;
        const auto pattern = expressionOf(text, n, causal);
        for (std::int64_t i = 0; i < n; ++i) {
            std::vector<ColumnRange> ranges;
            std::vector<StridedRange> strides;
            pattern->rowRanges(i, ranges);
            ASSERT_TRUE(pattern->rowStrides(i, strides)) << text;
            EXPECT_EQ(columnsOf(strides), columnsOf(ranges)) << text << " n=" << n << " causal=" << causal << " row " << i;
            EXPECT_EQ(pattern->rowCount(i), static_cast<std::int64_t>(columnsOf(ranges).size())) << text << " row " << i;
        }
    }
}

// The last m rows of a pattern (queries over a cache) and the leading rows of a causal one (a context so far)
// keep the whole pattern's strided rows.
TEST(StridedRows, CutsOfAPatternKeepItsStrides) {
    std::mt19937 random(36);
    for (int trial = 0; trial < 100; ++trial) {
        const std::string text = randomCongruentExpression(random);
        const std::int64_t n = 2 + static_cast<std::int64_t>(random() % 60), m = 1 + static_cast<std::int64_t>(random() % n);
        const std::shared_ptr<const Pattern> whole = expressionOf(text, n, true);
        const QueryRowsPattern last(whole, m);
        const LeadingPattern leading(whole, m);
        for (std::int64_t r = 0; r < m; ++r) {
            std::vector<ColumnRange> lastRanges, leadingRanges;
            std::vector<StridedRange> lastStrides, leadingStrides;
            last.rowRanges(r, lastRanges);
            leading.rowRanges(r, leadingRanges);
            ASSERT_TRUE(last.rowStrides(r, lastStrides)) << text;
            ASSERT_TRUE(leading.rowStrides(r, leadingStrides)) << text;
            EXPECT_EQ(columnsOf(lastStrides), columnsOf(lastRanges)) << text << " n=" << n << " m=" << m << " row " << r;
            EXPECT_EQ(columnsOf(leadingStrides), columnsOf(leadingRanges)) << text << " n=" << n << " m=" << m << " row " << r;
        }
    }
    std::vector<StridedRange> strides;
    EXPECT_FALSE(QueryRowsPattern(expressionOf("stride(2) | band(1)", 20, true), 5).rowStrides(2, strides));
    EXPECT_TRUE(strides.empty());
}

TEST(StridedRows, OtherExpressionsGiveRangesOnly) {
    std::vector<StridedRange> strides;
    for (const std::string text : {"band(3)", "stride(2) | band(1)", "stride(2) & stride(3)", "stride(2) & !band(1)",
                                   "random(3, 1) & band(4)", "dilated(2, 1)", "stride(4) & cols(1, 5)"}) {
        EXPECT_FALSE(expressionOf(text, 50, false)->rowStrides(7, strides)) << text;
        EXPECT_TRUE(strides.empty()) << text;
    }
}

TEST(StridedRows, RunsHoldEachRowOnceWithItsCount) {
    std::mt19937 random(36);
    // Random cases, then arguments near 2^63 (steps and reaches past every row).
    const std::vector<std::string> extremes = {"stride(9223372036854775807)", "dilated(4611686018427387904, 3) & causal",
                                               "dilated(9223372036854775807, 9223372036854775807)",
                                               "stride(4611686018427387905) & band(9223372036854775807)"};
    for (std::size_t trial = 0; trial < 400 + extremes.size(); ++trial) {
        const std::string text = trial < 400 ? randomCongruentExpression(random) : extremes[trial - 400];
        const std::int64_t n = 1 + static_cast<std::int64_t>(random() % 90);
        const bool causal = random() % 2 == 0;
        const auto pattern = expressionOf(text, n, causal);
        std::vector<int> seen(static_cast<std::size_t>(n), 0);
        const bool described = pattern->countRuns([&](const CountRun& run) {
            for (std::int64_t k = 0; k < run.repeats; ++k)
                for (std::int64_t t = 0; t < run.length; ++t) {
                    const std::int64_t row = run.row(k, t);
                    ASSERT_GE(row, 0);
                    ASSERT_LT(row, n);
                    ++seen[static_cast<std::size_t>(row)];
                    std::vector<ColumnRange> ranges;
                    pattern->rowRanges(row, ranges);
                    EXPECT_EQ(run.count(k, t), static_cast<std::int64_t>(columnsOf(ranges).size()))
                        << text << " n=" << n << " causal=" << causal << " row " << row;
                }
        });
        ASSERT_TRUE(described) << text << " n=" << n;
        for (std::int64_t row = 0; row < n; ++row) EXPECT_EQ(seen[static_cast<std::size_t>(row)], 1) << text << " row " << row;
    }
}

// Every block's allowed cells counted cell by cell: the block classes, computed and allowed cells.
BlockCounts bruteForceBlocks(const Pattern& pattern, std::int64_t block) {
    const std::int64_t n = pattern.size(), blocks = (n + block - 1) / block;
    BlockCounts counts;
    counts.size = block;
    for (std::int64_t r = 0; r < blocks; ++r)
        for (std::int64_t c = 0; c < blocks; ++c) {
            std::int64_t cells = 0, area = 0;
            for (std::int64_t i = r * block; i < std::min(n, r * block + block); ++i)
                for (std::int64_t j = c * block; j < std::min(n, c * block + block); ++j) {
                    ++area;
                    cells += pattern.allowed(i, j) ? 1 : 0;
                }
            (cells == 0 ? counts.empty : cells == area ? counts.full : counts.partial) += 1;
            counts.computedCells += cells > 0 ? area : 0;
            counts.allowedCells += cells;
        }
    return counts;
}

TEST(StridedRows, BlockCountsEqualCountingEveryCell) {
    std::mt19937 random(37);
    for (int trial = 0; trial < 200; ++trial) {
        const std::string text = randomCongruentExpression(random);
        const std::int64_t n = 1 + static_cast<std::int64_t>(random() % 80), block = 1 + static_cast<std::int64_t>(random() % 12);
        const auto pattern = expressionOf(text, n, random() % 2 == 0);
        const BlockCounts got = countBlocks(*pattern, block), expected = bruteForceBlocks(*pattern, block);
        EXPECT_EQ(got.full, expected.full) << text << " n=" << n << " B=" << block;
        EXPECT_EQ(got.partial, expected.partial) << text << " n=" << n << " B=" << block;
        EXPECT_EQ(got.empty, expected.empty) << text << " n=" << n << " B=" << block;
        EXPECT_EQ(got.computedCells, expected.computedCells) << text << " n=" << n << " B=" << block;
        EXPECT_EQ(got.allowedCells, expected.allowedCells) << text << " n=" << n << " B=" << block;
    }
}

TEST(StridedRows, DensityImagesEqualThoseOfTheRanges) {
    std::mt19937 random(38);
    for (int trial = 0; trial < 200; ++trial) {
        const std::string text = randomCongruentExpression(random);
        const std::int64_t n = 2 + static_cast<std::int64_t>(random() % 300);
        const auto pattern = expressionOf(text, n, random() % 2 == 0);
        const RangesOnly ranges(*pattern);
        const int width = 1 + static_cast<int>(random() % 40), height = 1 + static_cast<int>(random() % 40);
        const std::int64_t col0 = static_cast<std::int64_t>(random() % static_cast<unsigned>(n / 2)), block = 1 + static_cast<std::int64_t>(random() % 9);
        EXPECT_EQ(densityImageRegion(*pattern, 0, n, col0, n, width, height).density,
                  densityImageRegion(ranges, 0, n, col0, n, width, height).density)
            << text << " n=" << n;
        EXPECT_EQ(densityImageBlocks(*pattern, 1, n, col0, n, block).density, densityImageBlocks(ranges, 1, n, col0, n, block).density)
            << text << " n=" << n;
    }
}

// Allowed pairs of the custom variant's `expr` at n (scores of one head of d = 2, halved), and the range
// work counting them took.
std::pair<double, std::int64_t> pairsOf(const std::string& expr, std::int64_t n, bool causal) {
    ProblemShape shape;
    shape.n = n;
    shape.d = shape.dv = 2;
    shape.heads = 1;
    shape.causal = causal;
    const VariantInfo& variant = requireVariant("custom");
    const std::int64_t before = rangeWorkDone().ranges;
    const double scores = variant.cost(shape, prepareParams(variant, shape, {{"expr", expr}})).terms.at("scores");
    return {scores / 2, rangeWorkDone().ranges - before};
}

TEST(StridedRows, CostsAtTheLargestNAreTheClosedForms) {
    const std::int64_t n = 2147483647, m = n / 2; // n = 2m + 1
    // stride(2): rows of even i see the m + 1 even columns, rows of odd i the m odd ones; causal, row i sees ⌊i/2⌋ + 1.
    const auto [strided, work] = pairsOf("stride(2)", n, false);
    EXPECT_EQ(strided, static_cast<double>(static_cast<long double>(m + 1) * (m + 1) + static_cast<long double>(m) * m));
    EXPECT_LT(work, 1000) << "counted by runs, not row by row";
    EXPECT_EQ(pairsOf("stride(2)", n, true).first, static_cast<double>(static_cast<long double>(m + 1) * (m + 1)));
    // Counted by distance: n − δ pairs at each distance δ ≥ 0 allowed below the diagonal, twice that above.
    const auto byDistance = [n](const std::vector<std::int64_t>& distances, bool causal) {
        long double pairs = 0;
        for (const std::int64_t d : distances) pairs += static_cast<long double>(n - d) * (d == 0 || causal ? 1 : 2);
        return static_cast<double>(pairs);
    };
    for (const bool causal : {false, true}) {
        EXPECT_EQ(pairsOf("stride(3) & band(7)", n, causal).first, byDistance({0, 3, 6}, causal)) << causal;
        EXPECT_EQ(pairsOf("dilated(4, 5)", n, causal).first, byDistance({0, 5, 10, 15, 20}, causal)) << causal;
        EXPECT_EQ(pairsOf("dilated(3, 50000)", n, causal).first, byDistance({0, 50000, 100000, 150000}, causal)) << causal;
    }
}

} // namespace
} // namespace attnlab
