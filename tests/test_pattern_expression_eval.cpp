// The range-algebra evaluator against a cell-by-cell evaluation written here from the definitions of
// docs/pattern_expressions.md: hundreds of random expressions (huge arguments included), many n,
// causal and not, the pattern and its components.
#include "core/patterns/expression_pattern.h"
#include "core/random/random.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace attnlab {
namespace {

__extension__ typedef __int128 Wide; // exact i − j, r·δ and segment bounds for any int64 arguments

const char* const kNames[] = {"all",     "causal", "diag", "band",   "dilated", "stride", "block", "summary",
                              "segment", "sink",   "prefix", "rows", "cols",    "global", "docs",  "random"};

struct Tree {
    enum Kind { Leaf, Or, And, Not } kind = Leaf;
    std::string name;
    std::vector<std::int64_t> args;
    std::vector<Tree> kids;
};

std::string print(const Tree& t) {
    if (t.kind == Tree::Not) return "!" + print(t.kids[0]);
    if (t.kind != Tree::Leaf) {
        std::string text = "(";
        for (std::size_t k = 0; k < t.kids.size(); ++k) text += (k ? (t.kind == Tree::Or ? " | " : " & ") : "") + print(t.kids[k]);
        return text + ")";
    }
    std::string text = t.name;
    for (std::size_t a = 0; a < t.args.size(); ++a) text += (a ? ", " : "(") + std::to_string(t.args[a]);
    return t.args.empty() ? text : text + ")";
}

// Row i's random columns by the documented procedure: Floyd's algorithm over t = n − r … n − 1 with
// SeededRandom::stream(seed, ExpressionRandomColumns, i).
std::set<std::int64_t> randomRow(std::int64_t r, std::int64_t seed, std::int64_t i, std::int64_t n) {
    std::set<std::int64_t> chosen;
    if (r >= n) {
        for (std::int64_t j = 0; j < n; ++j) chosen.insert(j);
        return chosen;
    }
    SeededRandom random = SeededRandom::stream(static_cast<std::uint64_t>(seed), ExpressionRandomColumns,
                                               static_cast<std::uint64_t>(i));
    for (std::int64_t t = n - r; t < n; ++t) {
        const auto pick = static_cast<std::int64_t>(random.below(static_cast<std::uint64_t>(t + 1)));
        chosen.insert(chosen.count(pick) ? t : pick);
    }
    return chosen;
}

std::int64_t documentOf(const std::vector<std::int64_t>& lengths, std::int64_t x) {
    Wide end = 0;
    for (std::size_t k = 0; k < lengths.size(); ++k) {
        end += lengths[k];
        if (x < end) return static_cast<std::int64_t>(k);
    }
    return static_cast<std::int64_t>(lengths.size());
}

bool leafContains(const Tree& t, std::int64_t i, std::int64_t j, std::int64_t n) {
    const auto& a = t.args;
    const Wide d = Wide(i) - j, distance = d < 0 ? -d : d;
    const auto in = [&](std::int64_t x) { return std::find(a.begin(), a.end(), x) != a.end(); };
    if (t.name == "all") return true;
    if (t.name == "causal") return j <= i;
    if (t.name == "diag") return j == i;
    if (t.name == "band") return distance <= a[0];
    if (t.name == "dilated") return distance <= Wide(a[0]) * a[1] && d % a[1] == 0;
    if (t.name == "stride") return d % a[0] == 0;
    if (t.name == "block") return i / a[0] == j / a[0];
    if (t.name == "summary") return j % a[0] >= a[0] - a[1];
    if (t.name == "segment") return Wide(i / a[0]) * a[0] - a[1] <= j && j < Wide(i / a[0] + 1) * a[0];
    if (t.name == "sink") return j < a[0];
    if (t.name == "prefix") return i < a[0] && j < a[0];
    if (t.name == "rows") return in(i);
    if (t.name == "cols") return in(j);
    if (t.name == "global") return in(i) || in(j);
    if (t.name == "docs") return documentOf(a, i) == documentOf(a, j);
    if (t.name == "random") return randomRow(a[0], a[1], i, n).count(j) != 0;
    throw std::logic_error("no such primitive " + t.name);
}

bool contains(const Tree& t, std::int64_t i, std::int64_t j, std::int64_t n) {
    switch (t.kind) {
    case Tree::Leaf: return leafContains(t, i, j, n);
    case Tree::Not: return !contains(t.kids[0], i, j, n);
    case Tree::Or: return std::any_of(t.kids.begin(), t.kids.end(), [&](const Tree& k) { return contains(k, i, j, n); });
    case Tree::And: return std::all_of(t.kids.begin(), t.kids.end(), [&](const Tree& k) { return contains(k, i, j, n); });
    }
    return false;
}

// Expected labels: the first top-level term containing the cell (∧ j ≤ i when causal), 255 for the
// diagonal of an empty row, 0 elsewhere.
std::vector<std::uint8_t> expectedComponents(const std::vector<Tree>& terms, std::int64_t n, bool causal) {
    std::vector<std::uint8_t> labels(static_cast<std::size_t>(n * n), 0);
    for (std::int64_t i = 0; i < n; ++i) {
        bool any = false;
        for (std::int64_t j = 0; j < n && !(causal && j > i); ++j)
            for (std::size_t k = 0; k < terms.size(); ++k)
                if (contains(terms[k], i, j, n)) {
                    labels[i * n + j] = static_cast<std::uint8_t>(k + 1);
                    any = true;
                    break;
                }
        if (!any) labels[i * n + i] = 255;
    }
    return labels;
}

class TreeMaker {
public:
    explicit TreeMaker(std::uint64_t seed) : m_rng(seed) {}

    std::vector<Tree> terms(std::int64_t n) {
        std::vector<Tree> result(1 + pick(3));
        for (auto& t : result) t = tree(n, 2);
        return result;
    }

private:
    Tree tree(std::int64_t n, int depth) {
        const int roll = depth == 0 ? 0 : pick(7);
        if (roll < 4) return leaf(n);
        Tree t;
        if (roll == 4) {
            t.kind = Tree::Not;
            t.kids.push_back(tree(n, depth - 1));
            return t;
        }
        t.kind = roll == 5 ? Tree::Or : Tree::And;
        for (int k = 0, count = 2 + pick(2); k < count; ++k) t.kids.push_back(tree(n, depth - 1));
        return t;
    }

    // A value that matters at this n, an edge (0, n − 1, n), or a huge one.
    std::int64_t value(std::int64_t n, std::int64_t minimum) {
        static const std::int64_t huge[] = {INT64_MAX, INT64_MAX - 1, std::int64_t{1} << 62, std::int64_t{1} << 32};
        std::int64_t v;
        switch (pick(8)) {
        case 0: v = huge[pick(4)]; break;
        case 1: v = n; break;
        case 2: v = n - 1; break;
        case 3: v = 0; break;
        default: v = pick(static_cast<int>(n) + 3); break;
        }
        return std::max(v, minimum);
    }

    Tree leaf(std::int64_t n) {
        Tree t;
        t.name = kNames[pick(16)];
        const std::string& s = t.name;
        if (s == "band" || s == "sink" || s == "prefix") t.args = {value(n, 0)};
        if (s == "stride" || s == "block") t.args = {value(n, 1)};
        if (s == "dilated") t.args = {value(n, 0), value(n, 1)};
        if (s == "segment") t.args = {value(n, 1), value(n, 0)};
        if (s == "summary") {
            const std::int64_t l = value(n, 1);
            t.args = {l, l > n + 3 ? l - pick(3) : 1 + pick(static_cast<int>(l))};
        }
        if (s == "random") t.args = {pick(3) == 0 ? value(n, 0) : pick(4), static_cast<std::int64_t>(pick(1000))};
        if (s == "rows" || s == "cols" || s == "global" || s == "docs")
            for (int k = 0, count = 1 + pick(4); k < count; ++k) t.args.push_back(value(n, s == "docs" ? 1 : 0));
        return t;
    }

    int pick(int bound) { return static_cast<int>(m_rng() % static_cast<std::uint64_t>(bound)); }
    std::mt19937_64 m_rng;
};

void expectWellFormed(const std::vector<ColumnRange>& row, std::int64_t n) {
    for (std::size_t k = 0; k < row.size(); ++k) {
        EXPECT_LT(row[k].begin, row[k].end);
        EXPECT_GE(row[k].begin, 0);
        EXPECT_LE(row[k].end, n);
        if (k) {
            EXPECT_LT(row[k - 1].end, row[k].begin); // sorted, disjoint, not touching
        }
    }
}

void checkAgainstCells(const std::vector<Tree>& terms, std::int64_t n, bool causal) {
    std::string text;
    for (const auto& t : terms) text += (text.empty() ? "" : " | ") + print(t);
    SCOPED_TRACE(text + " at n = " + std::to_string(n) + (causal ? " causal" : ""));
    const auto components = expressionComponents(text, n, causal);
    const auto expected = expectedComponents(terms, n, causal);
    const auto labels = denseComponents(*components);
    ASSERT_EQ(labels, expected);
    const Pattern& pattern = components->pattern();
    std::vector<ColumnRange> row;
    for (std::int64_t i = 0; i < n; ++i) {
        row.clear();
        pattern.rowRanges(i, row);
        expectWellFormed(row, n);
        std::int64_t count = 0;
        for (std::int64_t j = 0; j < n; ++j) {
            const bool on = expected[i * n + j] != 0;
            count += on;
            if (pattern.allowed(i, j) != on) ADD_FAILURE() << "allowed(" << i << ", " << j << ")";
        }
        EXPECT_EQ(pattern.rowCount(i), count);
    }
}

TEST(ExpressionEvaluation, MatchesCellByCellOnRandomExpressions) {
    const std::int64_t sizes[] = {1, 2, 3, 5, 8, 13, 16, 31, 40};
    TreeMaker maker(20261124);
    for (int round = 0; round < 1000; ++round) {
        const std::int64_t n = sizes[round % 9];
        const auto terms = maker.terms(n);
        checkAgainstCells(terms, n, round % 2 == 1);
        if (::testing::Test::HasFailure()) return;
    }
}

TEST(ExpressionEvaluation, ChainsOfComplementsAlternate) {
    // An even chain of ! is the term itself, an odd one its complement, inside intersections too.
    for (const bool causal : {false, true})
        for (const std::string inner : {"band(2)", "stride(3) & block(8)", "(sink(2) | diag)"}) {
            const auto once = expressionComponents("!" + inner, 24, causal);
            const auto plain = expressionComponents(inner + " | global(5)", 24, causal);
            for (int bangs = 2; bangs <= 9; ++bangs) {
                SCOPED_TRACE(std::to_string(bangs) + " × ! before " + inner);
                const std::string chain = std::string(static_cast<std::size_t>(bangs), '!') + inner;
                const auto chained = expressionComponents(bangs % 2 ? chain : chain + " | global(5)", 24, causal);
                EXPECT_EQ(denseComponents(*chained), denseComponents(bangs % 2 ? *once : *plain));
            }
        }
}

TEST(ExpressionEvaluation, EveryPrimitiveAloneWithHugeArguments) {
    const std::vector<std::string> texts = {
        "band(9223372036854775807)", "dilated(9223372036854775807, 9223372036854775807)",
        "dilated(4611686018427387904, 3)", "stride(9223372036854775807)", "block(9223372036854775807)",
        "summary(9223372036854775807, 9223372036854775807)", "summary(9223372036854775807, 1)",
        "segment(9223372036854775807, 9223372036854775807)", "segment(3, 9223372036854775807)",
        "sink(9223372036854775807)", "prefix(9223372036854775807)", "rows(9223372036854775807, 2)",
        "cols(9223372036854775807)", "global(9223372036854775807, 0)",
        "docs(9223372036854775807, 9223372036854775807)", "docs(2, 9223372036854775807, 1)",
        "random(9223372036854775807, 9223372036854775807)", "random(2, 9223372036854775807)"};
    for (const auto& text : texts)
        for (const std::int64_t n : {1, 7, 20})
            for (const bool causal : {false, true}) {
                SCOPED_TRACE(text);
                const auto expression = parseExpression(text);
                Tree leaf;
                leaf.name = text.substr(0, text.find('('));
                leaf.args = expression.terms[0].args;
                checkAgainstCells({leaf}, n, causal);
            }
}

TEST(ExpressionEvaluation, EmptyRowsGetTheirDiagonalAsComponent255) {
    const auto components = expressionComponents("sink(2) & !causal", 4, true); // j < 2 and j > i, then j <= i
    const auto labels = denseComponents(*components);
    const std::vector<std::uint8_t> expected = {255, 0, 0, 0, 0, 255, 0, 0, 0, 0, 255, 0, 0, 0, 0, 255};
    EXPECT_EQ(labels, expected);
    const auto bidirectional = denseComponents(*expressionComponents("sink(2) & !causal", 3, false));
    EXPECT_EQ(bidirectional, (std::vector<std::uint8_t>{0, 1, 0, 0, 255, 0, 0, 0, 255}));
}

TEST(ExpressionEvaluation, RandomRowsAreDistinctDeterministicAndDependOnTheSeed) {
    const std::int64_t n = 200;
    const ExpressionPattern a(parseExpression("random(5, 11)"), n, false);
    const ExpressionPattern again(parseExpression("random(5, 11)"), n, false);
    const ExpressionPattern other(parseExpression("random(5, 12)"), n, false);
    int differentRows = 0, differentFromPrevious = 0;
    std::vector<ColumnRange> previous;
    for (std::int64_t i = 0; i < n; ++i) {
        std::vector<ColumnRange> row, rowAgain, rowOther;
        a.rowRanges(i, row);
        again.rowRanges(i, rowAgain);
        other.rowRanges(i, rowOther);
        EXPECT_EQ(a.rowCount(i), 5);
        EXPECT_EQ(row, rowAgain);
        differentRows += row != rowOther;
        differentFromPrevious += row != previous;
        previous = row;
    }
    EXPECT_GT(differentRows, n * 9 / 10);
    EXPECT_GT(differentFromPrevious, n * 9 / 10);
}

TEST(ExpressionEvaluation, RandomColumnsAreUniform) {
    // Every column is drawn with probability r/n in every row: over 250 seeds × 16 rows each column's
    // count stays within 6 standard deviations of rows·r/n, so the test fails only for a real bias.
    const std::int64_t n = 16, r = 4;
    std::vector<int> hits(n, 0);
    int rows = 0;
    for (int seed = 0; seed < 250; ++seed) {
        const ExpressionPattern pattern(parseExpression("random(4, " + std::to_string(seed) + ")"), n, false);
        for (std::int64_t i = 0; i < n; ++i, ++rows) {
            std::vector<ColumnRange> row;
            pattern.rowRanges(i, row);
            for (const auto& range : row)
                for (std::int64_t j = range.begin; j < range.end; ++j) ++hits[j];
        }
    }
    const double p = static_cast<double>(r) / n, expected = rows * p, sigma = std::sqrt(rows * p * (1 - p));
    for (std::int64_t j = 0; j < n; ++j) EXPECT_NEAR(hits[j], expected, 6 * sigma) << "column " << j;
}

} // namespace
} // namespace attnlab
