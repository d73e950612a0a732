// Token grids: the orders against an enumeration written here, and the grid primitives (mixed with 1-D
// ones, causal and not, in every order) against a cell-by-cell evaluation written from the formulas of
// docs/grids.md; every bad grid, order and grid primitive; the block kernels against the reference path;
// decoding contexts of a grid's first cells against the cell-by-cell evaluation.
#include "core/cost/cost_model.h"
#include "core/decode/decode.h"
#include "core/errors.h"
#include "core/patterns/expression_pattern.h"
#include "core/patterns/token_grid.h"
#include "core/registry.h"
#include "core/variant.h"
#include "support/grid_reference.h"
#include "support/reference_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace attnlab {
namespace {

using namespace grid_reference;

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

// A sweep over image sizes: each size a copy of the grid with the same frames, aspect and order, n about
// doubling from one to the next, the grid itself among them; a tile order keeps the sizes its tiles divide.
TEST(TokenGrid, ScaledCopiesKeepFramesAspectAndOrder) {
    const auto square = makeTokenGrid("8,8", "");
    EXPECT_EQ(scaledGridSizes(*square, 64, 4096), (std::vector<std::int64_t>{64, 144, 256, 576, 1024, 2304, 4096}));
    const auto tiles = makeTokenGrid("128,128", "tiles:8,8");
    EXPECT_EQ(scaledGridSizes(*tiles, 64, 16384), (std::vector<std::int64_t>{64, 256, 576, 1024, 2304, 4096, 9216, 16384}));
    const auto odd = makeTokenGrid("20,20", "morton"); // 20 = 5 · 4: the grid itself is not of the form 2^a or 3 · 2^a
    const auto oddSizes = scaledGridSizes(*odd, 1, 1000);
    EXPECT_NE(std::find(oddSizes.begin(), oddSizes.end(), 400), oddSizes.end());
    for (const auto& [text, order] : std::vector<std::pair<std::string, std::string>>{
             {"12,16", ""}, {"2,8,16", "tiles:1,4,4"}, {"128,128", "tiles:8,8"}, {"20,20", "morton"}, {"1,37", ""}}) {
        const auto grid = makeTokenGrid(text, order);
        const auto sizes = scaledGridSizes(*grid, 1, 1 << 20);
        ASSERT_FALSE(sizes.empty()) << text;
        EXPECT_TRUE(std::is_sorted(sizes.begin(), sizes.end())) << text;
        EXPECT_NE(std::find(sizes.begin(), sizes.end(), grid->cells()), sizes.end()) << text << ": the grid itself";
        for (const std::int64_t cells : sizes) {
            const auto copy = scaledGrid(*grid, cells);
            ASSERT_TRUE(copy) << text << " at " << cells;
            EXPECT_EQ(copy->cells(), cells);
            EXPECT_EQ(copy->frames(), grid->frames());
            EXPECT_EQ(copy->height() * grid->width(), copy->width() * grid->height()) << "the aspect";
            EXPECT_EQ(copy->orderText(), grid->orderText());
        }
        for (std::size_t k = 1; k < sizes.size(); ++k) EXPECT_LE(sizes[k], 4 * sizes[k - 1]) << text;
    }
    EXPECT_FALSE(scaledGrid(*square, 65)) << "no square of 65 cells";
    EXPECT_FALSE(scaledGrid(*tiles, 144)) << "tiles of 8 do not divide 12";
    EXPECT_TRUE(scaledGridSizes(*square, 100, 120).empty());
    EXPECT_TRUE(scaledGridSizes(*square, 5000, 64).empty());
    // A sweep at a length with no scaled copy is a plain sequence.
    ProblemShape shape;
    shape.grid = square;
    shape.n = 64;
    shape.setScaledLength(256);
    ASSERT_TRUE(shape.grid);
    EXPECT_EQ(shape.grid->sizeText(), "16,16");
    shape.setScaledLength(300);
    EXPECT_FALSE(shape.grid);
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

// The context of a causal generation that has produced t of a grid's cells (ProblemShape::setCausalContext):
// its pattern is the whole grid's cut to the first t rows and columns, cell by cell; a decoding step over
// those t tokens is softmax attention of query t − 1 over exactly that row's keys, computed here; its cost
// counts that row. A bidirectional problem of fewer positions than the grid's cells stays refused.
TEST(GridPrimitives, ADecodingContextIsTheGridsFirstCells) {
    const VariantInfo& custom = requireVariant("custom");
    Maker maker(20261202);
    for (const auto& c : gridCases()) {
        const Problem p = problemOf(c);
        const auto grid = std::make_shared<const TokenGrid>(c.grid, parseTokenOrder(orderText(c)));
        const std::int64_t cells = p.n(), d = 4;
        for (int round = 0; round < 4; ++round) {
            const Expression e = maker.expression(p);
            const std::string text = print(e);
            const std::vector<std::uint8_t> labels = expectedComponents(e, p, true);
            for (const std::int64_t t : {std::int64_t{1}, cells / 2 + 1, cells - 1, cells}) {
                if (t < 1) continue;
                SCOPED_TRACE(text + " on " + grid->describe() + ", context " + std::to_string(t));
                ProblemShape shape{1, cells, d, d, false};
                shape.grid = grid;
                shape.setCausalContext(t);
                ASSERT_EQ(shape.grid, grid);
                const ParamSet params = prepareParams(custom, shape, {{"expr", text}});
                const auto pattern = custom.pattern({shape, &params});
                ASSERT_EQ(pattern->size(), t);
                std::int64_t nnz = 0;
                for (std::int64_t i = 0; i < t; ++i)
                    for (std::int64_t j = 0; j < t; ++j) {
                        const bool in = labels[static_cast<std::size_t>(i * cells + j)] != 0;
                        ASSERT_EQ(pattern->allowed(i, j), in) << i << "," << j;
                        nnz += in ? 1 : 0;
                    }
                EXPECT_EQ(pattern->nnz(), nnz);
                const Tensor3 q = testing::randomTensor(1, t, d, 61), k = testing::randomTensor(1, t, d, 62),
                              v = testing::randomTensor(1, t, d, 63);
                DecodeOptions options;
                options.grid = grid;
                std::vector<float> out(static_cast<std::size_t>(d));
                prepareDecodeStep(custom, {&q, &k, &v}, params, options)->run(out.data());
                double best = -1e300, total = 0;
                std::vector<double> expected(static_cast<std::size_t>(d), 0.0), scores(static_cast<std::size_t>(t));
                std::int64_t keys = 0;
                for (std::int64_t j = 0; j < t; ++j) {
                    if (labels[static_cast<std::size_t>((t - 1) * cells + j)] == 0) continue;
                    double s = 0;
                    for (std::int64_t f = 0; f < d; ++f) s += double(q.at(0, t - 1, f)) * k.at(0, j, f);
                    scores[static_cast<std::size_t>(j)] = s / 2.0; // √d = 2
                    best = std::max(best, scores[static_cast<std::size_t>(j)]);
                    ++keys;
                }
                for (std::int64_t j = 0; j < t; ++j) {
                    if (labels[static_cast<std::size_t>((t - 1) * cells + j)] == 0) continue;
                    const double w = std::exp(scores[static_cast<std::size_t>(j)] - best);
                    total += w;
                    for (std::int64_t f = 0; f < d; ++f) expected[static_cast<std::size_t>(f)] += w * v.at(0, j, f);
                }
                for (std::int64_t f = 0; f < d; ++f)
                    EXPECT_NEAR(out[static_cast<std::size_t>(f)], expected[static_cast<std::size_t>(f)] / total, 1e-5) << f;
                const DecodeCost cost = decodeCost(custom, shape, params, KvDtype::F32);
                EXPECT_EQ(cost.core.terms.at("scores"), static_cast<double>(keys * d));
                EXPECT_EQ(cost.retainedKeys, std::optional<std::int64_t>(t));
            }
        }
        if (cells > 1) {
            ProblemShape bidirectional{1, cells - 1, d, d, false};
            bidirectional.grid = grid;
            EXPECT_THROW(prepareParams(custom, bidirectional, {{"expr", "neighborhood(1)"}}), InputError);
        }
    }
}

TEST(TokenGrids, FullWidthCharactersInGridAndOrderAreNamed) {
    for (const auto& [parse, text, named] :
         {std::tuple{std::function<void(const std::string&)>([](const std::string& t) { parseGridSizes(t); }), "4，4",
                     "'，' (U+FF0C, a full-width ',') at position 2"},
          std::tuple{std::function<void(const std::string&)>([](const std::string& t) { parseTokenOrder(t); }), "ｒaster",
                     "'ｒ' (U+FF52, a full-width 'r') at position 1"}}) {
        try {
            parse(text);
            ADD_FAILURE() << text << " was accepted";
        } catch (const InputError& error) {
            EXPECT_NE(std::string(error.what()).find(named), std::string::npos) << error.what();
        }
    }
}

} // namespace
} // namespace attnlab
