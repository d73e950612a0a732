// Token grids: the orders against an enumeration written here, and the grid primitives (mixed with 1-D
// ones, causal and not, in every order) against a cell-by-cell evaluation written from the formulas of
// docs/grids.md; every bad grid, order and grid primitive; the block kernels against the reference path.
#include "core/patterns/expression_pattern.h"
#include "core/patterns/token_grid.h"
#include "core/registry.h"
#include "support/reference_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <string>
#include <vector>

namespace attnlab {
namespace {

struct Cell {
    std::int64_t t, y, x;
};

// Cells in sequence order, enumerated the way docs/grids.md describes each order.
std::vector<Cell> cellsInOrder(std::int64_t T, std::int64_t H, std::int64_t W, const std::string& order,
                               std::vector<std::int64_t> tile) {
    std::vector<Cell> cells;
    if (order == "tiles") {
        if (tile.size() == 2) tile.insert(tile.begin(), 1);
        for (std::int64_t bt = 0; bt < T / tile[0]; ++bt)
            for (std::int64_t by = 0; by < H / tile[1]; ++by)
                for (std::int64_t bx = 0; bx < W / tile[2]; ++bx)
                    for (std::int64_t t = 0; t < tile[0]; ++t)
                        for (std::int64_t y = 0; y < tile[1]; ++y)
                            for (std::int64_t x = 0; x < tile[2]; ++x)
                                cells.push_back({bt * tile[0] + t, by * tile[1] + y, bx * tile[2] + x});
        return cells;
    }
    for (std::int64_t t = 0; t < T; ++t)
        for (std::int64_t y = 0; y < H; ++y)
            for (std::int64_t x = 0; x < W; ++x) cells.push_back({t, y, x});
    if (order == "morton") {
        const auto code = [](const Cell& c) {
            std::uint64_t value = 0;
            for (int bit = 0; bit < 20; ++bit) {
                value |= static_cast<std::uint64_t>((c.x >> bit) & 1) << (3 * bit);
                value |= static_cast<std::uint64_t>((c.y >> bit) & 1) << (3 * bit + 1);
                value |= static_cast<std::uint64_t>((c.t >> bit) & 1) << (3 * bit + 2);
            }
            return value;
        };
        std::sort(cells.begin(), cells.end(), [&](const Cell& a, const Cell& b) { return code(a) < code(b); });
    }
    return cells;
}

// NATTEN's rule on one axis, as written in the contract.
bool natten(std::int64_t L, std::int64_t k, std::int64_t delta, std::int64_t a, std::int64_t b) {
    if (a % delta != b % delta) return false;
    const std::int64_t g = a % delta, u = a / delta, v = b / delta;
    const std::int64_t Lg = (L - g + delta - 1) / delta, left = k / 2, right = k / 2 + k % 2 - 1;
    const std::int64_t c = std::min(std::max(u, left), Lg - 1 - right);
    return c - left <= v && v <= c + right;
}

struct Problem {
    std::vector<std::int64_t> sizes; // {T, H, W}, T = 1 for an image
    int dims;
    std::vector<Cell> cells;
    std::int64_t n() const { return static_cast<std::int64_t>(cells.size()); }
};

struct Term {
    std::string name;
    std::vector<std::int64_t> args;
    bool negate = false;
};

// Expands a grid primitive's arguments to per-axis values (t, y, x), as its arities define them.
std::vector<std::int64_t> perAxis(const std::vector<std::int64_t>& args, std::size_t from, int dims) {
    std::vector<std::int64_t> values(3, 1);
    for (int k = 0; k < dims; ++k)
        values[static_cast<std::size_t>(3 - dims + k)] = args.size() == 1 ? args[0] : args[from + static_cast<std::size_t>(k)];
    return values;
}

bool leafContains(const Term& term, const Problem& p, std::int64_t i, std::int64_t j) {
    const Cell a = p.cells[static_cast<std::size_t>(i)], b = p.cells[static_cast<std::size_t>(j)];
    const std::int64_t qa[3] = {a.t, a.y, a.x}, kb[3] = {b.t, b.y, b.x};
    const auto& s = term.name;
    const auto& args = term.args;
    const std::size_t dims = static_cast<std::size_t>(p.dims);
    if (s == "band") return std::abs(i - j) <= args[0];
    if (s == "stride") return (i - j) % args[0] == 0;
    if (s == "block") return i / args[0] == j / args[0];
    if (s == "sink") return j < args[0];
    if (s == "diag") return i == j;
    if (s == "causal") return j <= i;
    if (s == "same_row") return a.t == b.t && a.y == b.y;
    if (s == "same_col") return a.t == b.t && a.x == b.x;
    if (s == "same_frame") return a.t == b.t;
    if (s == "same_pixel") return a.y == b.y && a.x == b.x;
    const auto first = perAxis(args, 0, p.dims);
    for (std::size_t axis = 0; axis < 3; ++axis) {
        const std::int64_t L = p.sizes[axis], m = first[axis];
        bool ok = false;
        if (s == "neighborhood") {
            const std::int64_t delta = args.size() == 2 * dims ? perAxis(args, dims, p.dims)[axis] : 1;
            ok = natten(L, m, delta, qa[axis], kb[axis]);
        } else if (s == "window") {
            ok = qa[axis] / m == kb[axis] / m;
        } else if (s == "shifted_window") {
            const std::int64_t sigma = (m - m / 2) % m;
            ok = (qa[axis] + sigma) / m == (kb[axis] + sigma) / m;
        } else if (s == "tile_neighborhood") {
            const std::int64_t K = perAxis(args, dims, p.dims)[axis];
            ok = natten(L / m, K, 1, qa[axis] / m, kb[axis] / m);
        }
        if (!ok) return false;
    }
    return true;
}

// term := leaf ('&' leaf)*, each leaf possibly negated; expression := term ('|' term)*.
using Expression = std::vector<std::vector<Term>>;

std::string print(const Expression& expression) {
    std::string text;
    for (const auto& term : expression) {
        std::string part;
        for (const auto& leaf : term) {
            part += (part.empty() ? "" : " & ") + std::string(leaf.negate ? "!" : "") + leaf.name;
            for (std::size_t a = 0; a < leaf.args.size(); ++a) part += (a ? ", " : "(") + std::to_string(leaf.args[a]);
            if (!leaf.args.empty()) part += ")";
        }
        text += (text.empty() ? "" : " | ") + part;
    }
    return text;
}

std::vector<std::int64_t> divisors(std::int64_t L) {
    std::vector<std::int64_t> result;
    for (std::int64_t d = 1; d <= L; ++d)
        if (L % d == 0) result.push_back(d);
    return result;
}

class Maker {
public:
    explicit Maker(std::uint64_t seed) : m_rng(seed) {}
    std::int64_t pick(std::int64_t bound) { return static_cast<std::int64_t>(m_rng() % static_cast<std::uint64_t>(bound)); }

    Term leaf(const Problem& p) {
        static const char* names[] = {"neighborhood", "window",   "shifted_window", "tile_neighborhood", "same_row", "same_col",
                                      "same_frame",   "same_pixel", "band",         "stride",            "block",    "sink",
                                      "diag",         "neighborhood", "tile_neighborhood", "shifted_window"};
        Term t;
        t.name = names[pick(16)];
        t.negate = pick(6) == 0;
        const auto dims = static_cast<std::size_t>(p.dims);
        const auto axes = [&](auto value) {
            std::vector<std::int64_t> v;
            for (std::size_t k = 3 - dims; k < 3; ++k) v.push_back(value(p.sizes[k]));
            return v;
        };
        if (t.name == "band" || t.name == "sink") t.args = {pick(p.n() + 2)};
        if (t.name == "stride" || t.name == "block") t.args = {1 + pick(p.n() + 1)};
        if (t.name == "window" || t.name == "shifted_window") {
            const std::int64_t shortest = *std::min_element(p.sizes.begin() + static_cast<std::ptrdiff_t>(3 - dims), p.sizes.end());
            t.args = pick(2) ? std::vector<std::int64_t>{1 + pick(shortest + 2)} : axes([&](std::int64_t L) { return 1 + pick(L + 2); });
        }
        if (t.name == "neighborhood") {
            const std::int64_t shortest = *std::min_element(p.sizes.begin() + static_cast<std::ptrdiff_t>(3 - dims), p.sizes.end());
            switch (pick(3)) {
            case 0: t.args = {1 + pick(shortest)}; break;
            case 1: t.args = axes([&](std::int64_t L) { return 1 + pick(L); }); break;
            default: {
                std::vector<std::int64_t> kernels, dilations;
                for (std::size_t k = 3 - dims; k < 3; ++k) {
                    const std::int64_t kernel = 1 + pick(p.sizes[k]);
                    kernels.push_back(kernel);
                    dilations.push_back(1 + pick(p.sizes[k] / kernel));
                }
                t.args = kernels;
                t.args.insert(t.args.end(), dilations.begin(), dilations.end());
            }
            }
        }
        if (t.name == "tile_neighborhood") {
            std::vector<std::int64_t> tiles, kernels;
            for (std::size_t k = 3 - dims; k < 3; ++k) {
                const auto options = divisors(p.sizes[k]);
                const std::int64_t tile = options[static_cast<std::size_t>(pick(static_cast<std::int64_t>(options.size())))];
                tiles.push_back(tile);
                kernels.push_back(1 + pick(p.sizes[k] / tile));
            }
            t.args = tiles;
            t.args.insert(t.args.end(), kernels.begin(), kernels.end());
        }
        return t;
    }

    Expression expression(const Problem& p) {
        Expression e(static_cast<std::size_t>(1 + pick(3)));
        for (auto& term : e)
            for (std::int64_t k = 0, count = 1 + pick(2); k < count; ++k) term.push_back(leaf(p));
        return e;
    }

private:
    std::mt19937_64 m_rng;
};

std::vector<std::uint8_t> expectedComponents(const Expression& e, const Problem& p, bool causal) {
    const std::int64_t n = p.n();
    std::vector<std::uint8_t> labels(static_cast<std::size_t>(n * n), 0);
    for (std::int64_t i = 0; i < n; ++i) {
        bool any = false;
        for (std::int64_t j = 0; j < n && !(causal && j > i); ++j)
            for (std::size_t k = 0; k < e.size(); ++k) {
                const bool in = std::all_of(e[k].begin(), e[k].end(),
                                            [&](const Term& leaf) { return leafContains(leaf, p, i, j) != leaf.negate; });
                if (in) {
                    labels[static_cast<std::size_t>(i * n + j)] = static_cast<std::uint8_t>(k + 1);
                    any = true;
                    break;
                }
            }
        if (!any) labels[static_cast<std::size_t>(i * n + i)] = 255;
    }
    return labels;
}

struct GridCase {
    std::vector<std::int64_t> grid; // as --grid takes it
    std::string order;
    std::vector<std::int64_t> tile;
};

std::string orderText(const GridCase& c) {
    if (c.order != "tiles") return c.order;
    std::string text = "tiles:";
    for (std::size_t k = 0; k < c.tile.size(); ++k) text += (k ? "," : "") + std::to_string(c.tile[k]);
    return text;
}

std::vector<GridCase> gridCases() {
    std::vector<GridCase> cases;
    const std::vector<std::vector<std::int64_t>> grids = {{1, 9}, {7, 5}, {3, 4, 4}, {4, 4}, {6, 4}, {5, 1}, {2, 3, 5}, {4, 8}};
    for (const auto& grid : grids) {
        cases.push_back({grid, "raster", {}});
        cases.push_back({grid, "morton", {}});
        std::vector<std::int64_t> tile;
        for (const std::int64_t L : grid) tile.push_back(divisors(L)[divisors(L).size() > 1 ? 1 : 0]);
        cases.push_back({grid, "tiles", tile});
    }
    cases.push_back({{6, 4}, "tiles", {3, 2}});
    cases.push_back({{3, 4, 4}, "tiles", {3, 2, 4}});
    return cases;
}

Problem problemOf(const GridCase& c) {
    Problem p;
    p.dims = static_cast<int>(c.grid.size());
    p.sizes = c.grid.size() == 2 ? std::vector<std::int64_t>{1, c.grid[0], c.grid[1]} : c.grid;
    p.cells = cellsInOrder(p.sizes[0], p.sizes[1], p.sizes[2], c.order, c.tile);
    return p;
}

TEST(TokenGrid, PositionsAndCellsFollowEachOrder) {
    for (const auto& c : gridCases()) {
        SCOPED_TRACE(orderText(c));
        const TokenGrid grid(c.grid, parseTokenOrder(orderText(c)));
        const Problem p = problemOf(c);
        ASSERT_EQ(grid.cells(), p.n());
        for (std::int64_t pos = 0; pos < p.n(); ++pos) {
            const Cell e = p.cells[static_cast<std::size_t>(pos)];
            EXPECT_EQ(grid.cellAt(pos), (GridCell{e.t, e.y, e.x})) << "position " << pos;
            EXPECT_EQ(grid.positionOf({e.t, e.y, e.x}), pos);
        }
    }
}

TEST(TokenGrid, MortonOnFourByFourStartsAsDocumented) {
    const TokenGrid grid({4, 4}, parseTokenOrder("morton"));
    const std::vector<std::pair<int, int>> yx = {{0, 0}, {0, 1}, {1, 0}, {1, 1}, {0, 2}, {0, 3}, {1, 2}, {1, 3}, {2, 0}};
    for (std::size_t p = 0; p < yx.size(); ++p)
        EXPECT_EQ(grid.cellAt(static_cast<std::int64_t>(p)), (GridCell{0, yx[p].first, yx[p].second})) << p;
    EXPECT_EQ(grid.positionOf({0, 3, 3}), 15);
}

TEST(TokenGrid, DescribesItselfAndAgreesWithN) {
    EXPECT_EQ(makeTokenGrid("128,128", "")->describe(), "128×128 image, raster order");
    EXPECT_EQ(makeTokenGrid("8,16,16", "tiles:2,4,4")->describe(), "8×16×16 video, tiles 2×4×4 order");
    EXPECT_EQ(makeTokenGrid("3,4,4", "morton")->sizeText(), "3,4,4");
    const auto grid = makeTokenGrid("7,5", "raster");
    EXPECT_EQ(problemSize(0, grid.get()), 35);
    EXPECT_EQ(problemSize(35, grid.get()), 35);
    EXPECT_THROW(problemSize(36, grid.get()), InputError);
    EXPECT_EQ(problemSize(12, nullptr), 12);
}

TEST(TokenGrid, RefusesBadGridsAndOrders) {
    for (const std::string text : {"", "4", "4,4,4,4", "0,4", "4,0", "4,x", "4,,4", "4,4,", "-1,4", "4.5,2",
                                   "65536,65536", "9223372036854775807,2", "99999999999999999999,1", "2048,2048,1024"})
        EXPECT_THROW(makeTokenGrid(text, "raster"), InputError) << text;
    for (const std::string order : {"rowmajor", "tiles:", "tiles:2", "tiles:2,2,2", "tiles:3,2", "tiles:0,2", "tiles:2,x",
                                    "Morton", "tiles 2,2", " raster"})
        EXPECT_THROW(makeTokenGrid("4,4", order), InputError) << order;
    EXPECT_THROW(makeTokenGrid("2,4,4", "tiles:2,2"), InputError);
    EXPECT_NO_THROW(makeTokenGrid("2,4,4", "tiles:2,2,4"));
    EXPECT_NO_THROW(makeTokenGrid("46340,46340", "raster")); // just below 2^31 cells
    try {
        makeTokenGrid("65536,65536", "raster");
        ADD_FAILURE() << "2^32 cells accepted";
    } catch (const InputError& error) {
        EXPECT_EQ(std::string(error.what()), "--grid 65536,65536 has more than 2147483647 cells");
    }
}

TEST(GridPrimitives, MatchCellByCellOnRandomGridsOrdersAndExpressions) {
    Maker maker(20261127);
    for (const auto& c : gridCases()) {
        const Problem p = problemOf(c);
        const auto grid = std::make_shared<const TokenGrid>(c.grid, parseTokenOrder(orderText(c)));
        for (int round = 0; round < 24; ++round) {
            const Expression e = maker.expression(p);
            const bool causal = round % 2 == 1;
            const std::string text = print(e);
            SCOPED_TRACE(text + " on " + grid->describe() + (causal ? ", causal" : ""));
            const auto components = expressionComponents(text, p.n(), causal, grid);
            ASSERT_EQ(denseComponents(*components), expectedComponents(e, p, causal));
            std::vector<ColumnRange> row;
            for (std::int64_t i = 0; i < p.n(); ++i) {
                row.clear();
                components->pattern().rowRanges(i, row);
                for (std::size_t k = 1; k < row.size(); ++k) ASSERT_LT(row[k - 1].end, row[k].begin);
            }
        }
    }
}

TEST(GridPrimitives, EveryPrimitiveAtEveryArity) {
    const std::vector<std::pair<std::vector<std::int64_t>, std::vector<std::string>>> cases = {
        {{7, 5}, {"neighborhood(3)", "neighborhood(7, 5)", "neighborhood(2, 2, 3, 2)", "window(2)", "window(3, 2)",
                  "shifted_window(4)", "shifted_window(1, 3)", "shifted_window(9223372036854775807)",
                  "window(9223372036854775807, 2)", "tile_neighborhood(7, 1, 1, 3)", "tile_neighborhood(1, 5, 4, 1)",
                  "same_row", "same_col", "same_frame", "same_pixel"}},
        {{3, 4, 4}, {"neighborhood(3)", "neighborhood(1, 3, 2)", "neighborhood(1, 2, 2, 1, 2, 2)", "window(2)",
                     "window(1, 2, 4)", "shifted_window(2)", "shifted_window(3, 3, 2)", "tile_neighborhood(1, 2, 2, 2, 1, 2)",
                     "same_row", "same_col", "same_frame", "same_pixel"}}};
    for (const auto& [sizes, texts] : cases)
        for (const char* order : {"raster", "morton"})
            for (const auto& text : texts)
                for (const bool causal : {false, true}) {
                    GridCase c{sizes, order, {}};
                    const Problem p = problemOf(c);
                    const auto grid = std::make_shared<const TokenGrid>(sizes, parseTokenOrder(order));
                    SCOPED_TRACE(text + " on " + grid->describe());
                    const auto node = parseExpression(text).terms[0];
                    const Term leaf{text.substr(0, text.find('(')), node.args, false};
                    EXPECT_EQ(denseComponents(*expressionComponents(text, p.n(), causal, grid)),
                              expectedComponents({{leaf}}, p, causal));
                }
}

TEST(GridPrimitives, NeighborhoodSlidesAtTheEdgeWithExactlyKKeysPerAxis) {
    const auto grid = makeTokenGrid("9,11", "raster");
    const ExpressionPattern pattern(parseExpression("neighborhood(5, 3, 1, 2)"), 99, false, grid);
    for (std::int64_t i = 0; i < 99; ++i) EXPECT_EQ(pattern.rowCount(i), 15) << i;
    std::vector<ColumnRange> row;
    pattern.rowRanges(0, row); // corner: rows 0..4, columns 0, 2, 4
    std::vector<ColumnRange> expected;
    for (std::int64_t y = 0; y < 5; ++y)
        for (const std::int64_t x : {0, 2, 4}) expected.push_back({y * 11 + x, y * 11 + x + 1});
    EXPECT_EQ(row, expected);
}

void expectExpressionError(const std::string& text, const TokenGridPtr& grid, const std::string& fragment) {
    const std::int64_t n = grid ? grid->cells() : 16;
    try {
        const ExpressionPattern pattern(parseExpression(text), n, false, grid);
        ADD_FAILURE() << text << " was accepted";
    } catch (const ExpressionError& error) {
        EXPECT_NE(std::string(error.what()).find(fragment), std::string::npos) << error.what();
    }
}

TEST(GridPrimitives, RefuseBadArgumentsForTheirGrid) {
    const auto image = makeTokenGrid("4,6", "raster"), video = makeTokenGrid("2,4,4", "morton");
    expectExpressionError("band(2) | neighborhood(3)", nullptr, "needs a token grid");
    expectExpressionError("same_row", nullptr, "needs a token grid");
    expectExpressionError("neighborhood(5)", image, "exceeds the grid's height H = 4");
    expectExpressionError("neighborhood(3, 3, 1, 3)", image, "exceeds the grid's width W = 6");
    expectExpressionError("neighborhood(3)", video, "exceeds the grid's frames T = 2");
    expectExpressionError("neighborhood(9223372036854775807, 1, 9223372036854775807, 1)", image, "exceeds");
    expectExpressionError("tile_neighborhood(3, 2, 1, 1)", image, "does not divide");
    expectExpressionError("tile_neighborhood(2, 2, 3, 1)", image, "exceeds the 2 tiles");
    expectExpressionError("tile_neighborhood(2, 2, 1, 4)", image, "exceeds the 3 tiles");
    expectExpressionError("neighborhood(3, 3, 3)", image, "takes 1, 2 or 4 arguments");
    expectExpressionError("neighborhood(1, 3)", video, "takes 1, 3 or 6 arguments");
    expectExpressionError("window(2, 2)", video, "takes 1 or 3 arguments");
    expectExpressionError("shifted_window(1, 2, 2)", image, "takes 1 or 2 arguments");
    expectExpressionError("tile_neighborhood(2, 2, 1, 1)", video, "takes 6 arguments");
    for (const std::string text : {"neighborhood(0)", "neighborhood(3, 0)", "neighborhood(3, 3, 0, 1)", "window(0)",
                                   "shifted_window(2, 0)", "tile_neighborhood(2, 2, 0, 1)", "neighborhood(1, 1, 1, 1, 1)",
                                   "neighborhood(1,1,1,1,1,1,1)", "window(1, 1, 1, 1)", "same_row(1)", "same_pixel()",
                                   "tile_neighborhood(2, 2, 1)"})
        EXPECT_THROW(parseExpression(text), ExpressionError) << text;
    EXPECT_THROW(ExpressionPattern(parseExpression("same_row"), 25, false, image), InputError); // 24 cells, not 25
}

TEST(GridPrimitives, BuiltInVariantsActOnPositionsWhateverTheGrid) {
    ProblemShape plain;
    plain.n = 48;
    plain.d = plain.dv = 8;
    ProblemShape onGrid = plain;
    onGrid.grid = makeTokenGrid("6,8", "morton");
    for (const auto& variant : allVariants()) {
        if (variant.dataDependentPattern || !hasCausalForm(variant, false)) continue;
        const ParamSet params = prepareParams(variant, plain, {});
        EXPECT_EQ(denseMask(*buildPattern(variant, onGrid, prepareParams(variant, onGrid, {}))),
                  denseMask(*buildPattern(variant, plain, params)))
            << variant.id;
    }
}

TEST(GridPrimitives, BlockKernelsMatchTheReferencePathOnGrids) {
    const VariantInfo& custom = requireVariant("custom");
    const std::vector<std::pair<std::string, std::string>> grids = {{"7,5", "raster"}, {"8,8", "morton"}, {"6,8", "tiles:2,4"},
                                                                    {"3,4,4", "raster"}, {"1,40", "morton"}};
    const std::vector<std::string> texts = {"neighborhood(3)", "neighborhood(3, 1) | same_col", "window(2) | sink(1)",
                                            "tile_neighborhood(1, 2, 2, 2, 1, 2) | shifted_window(3) & !diag",
                                            "neighborhood(1, 7) | sink(2)"};
    for (std::size_t g = 0; g < grids.size(); ++g)
        for (const bool causal : {false, true}) {
            const auto grid = makeTokenGrid(grids[g].first, grids[g].second);
            const std::string& text = texts[g];
            SCOPED_TRACE(text + " on " + grid->describe());
            const std::int64_t n = grid->cells();
            const Tensor3 q = testing::randomTensor(2, n, 16, 7 + g), k = testing::randomTensor(2, n, 16, 8 + g),
                          v = testing::randomTensor(2, n, 8, 9 + g);
            const AttentionInputs inputs{&q, &k, &v};
            ProblemShape shape = inputs.shape(causal);
            shape.grid = grid;
            RunOptions options;
            options.causal = causal;
            options.grid = grid;
            options.params = prepareParams(custom, shape, {{"expr", text}});
            options.threads = 2;
            const RunResult fast = custom.run(inputs, options);
            options.useReference = true;
            const RunResult reference = custom.run(inputs, options);
            EXPECT_LT(testing::maxAbsDifference(fast.out.values, reference.out.values), 1e-5);
        }
}

} // namespace
} // namespace attnlab
