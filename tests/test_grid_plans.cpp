// The grid plan (core/kernels/grid_plan.h): query blocks as tiles of grid cells. Every tile shape the
// plan weighs, forced on odd grids in every token order, covers exactly the pattern's cells (the plan
// contract) and runs to the reference path's result, causal or not, for each grid primitive and a mix
// with 1-D primitives; the computed-cell count it chooses by is checked against a count from the dense
// mask, and the choice against the expected one (tiles for a 2-D neighbourhood, natural order for a band).
#include "core/kernels/band_plan.h"
#include "core/kernels/block_attention.h"
#include "core/kernels/grid_plan.h"
#include "core/patterns/expression_pattern.h"
#include "core/registry.h"
#include "core/variants/variant_support.h"
#include "support/plan_contract.h"
#include "support/plan_runs.h"
#include "support/reference_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace attnlab {
namespace {

struct GridCase {
    std::string sizes;
    std::vector<std::string> orders;
    std::vector<std::string> expressions; // neighborhood, dilated, window, shifted, tile_neighborhood, a mix
};

const std::vector<GridCase>& gridCases() {
    static const std::vector<GridCase> cases = {
        {"1,40",
         {"raster", "tiles:1,8", "morton"},
         {"neighborhood(1, 7)", "neighborhood(1, 3, 1, 4)", "window(1, 8)", "shifted_window(1, 8)",
          "tile_neighborhood(1, 8, 1, 3)", "neighborhood(1, 5) | sink(2) | band(1)"}},
        {"7,5",
         {"raster", "tiles:7,1", "morton"},
         {"neighborhood(3)", "neighborhood(3, 2, 2, 2)", "window(2)", "shifted_window(3)",
          "tile_neighborhood(7, 1, 1, 3)", "neighborhood(3) | global(0) | band(2)"}},
        {"3,4,4",
         {"raster", "tiles:1,2,2", "morton"},
         {"neighborhood(3)", "neighborhood(1, 2, 2, 1, 2, 2)", "window(2)", "shifted_window(2)",
          "tile_neighborhood(1, 2, 2, 3, 1, 2)", "neighborhood(3) & !diag | sink(1) | band(2)"}},
        {"16,16",
         {"raster", "tiles:4,4", "morton"},
         {"neighborhood(5)", "neighborhood(3, 3, 2, 2)", "window(4)", "shifted_window(4)",
          "tile_neighborhood(4, 4, 3, 3)", "neighborhood(5) | global(0) | band(1)"}},
    };
    return cases;
}

// The grid plan's pass over one tile shape, heavy rows split as the generic plan splits them.
std::shared_ptr<const BlockPlan> tilePlan(const Pattern& pattern, const TokenGrid& grid,
                                          const GridTile& tile) {
    const std::vector<std::int64_t> counts = rowCounts(pattern);
    const std::vector<bool> heavy = heavyRowFlags(counts, meanRowKeys(counts));
    std::vector<std::int64_t> heavyRows;
    for (std::size_t i = 0; i < heavy.size(); ++i)
        if (heavy[i]) heavyRows.push_back(static_cast<std::int64_t>(i));
    return orderedBlockPlan(pattern, gridTileOrder(grid, tile, heavy), heavyRows, kPlanQueryBlock, false,
                            RowWiseColumns::WholeBlocksOnly);
}

// The band plan with every block whose rows form strips in band pieces, whatever they compute.
std::shared_ptr<const BlockPlan> forcedBandPlan(const Pattern& pattern, const TokenGrid& grid) {
    return bandBlockPlan(pattern, grid, true);
}

std::int64_t bandBlocks(const BlockPlan& plan) {
    return std::count_if(plan.blocks.begin(), plan.blocks.end(),
                         [](const PlanBlock& block) { return block.hasBand(); });
}

RunResult runPlan(const AttentionInputs& inputs, std::shared_ptr<const BlockPlan> plan, bool causal) {
    MaskedScoring scoring;
    scoring.scale = 1.0 / std::sqrt(static_cast<double>(inputs.q->cols));
    RunOptions options;
    options.causal = causal;
    options.threads = 2;
    return runPlannedAttention(inputs, {std::move(plan)}, scoring, options);
}

TEST(GridPlan, EveryTileShapeCoversThePatternAndMatchesTheReference) {
    const VariantInfo& custom = requireVariant("custom");
    for (const GridCase& c : gridCases())
        for (const std::string& orderText : c.orders)
            for (const std::string& text : c.expressions)
                for (const bool causal : {false, true}) {
                    const auto grid = makeTokenGrid(c.sizes, orderText);
                    SCOPED_TRACE(text + " on " + grid->describe() + (causal ? ", causal" : ""));
                    const std::int64_t n = grid->cells();
                    const ExpressionPattern pattern(parseExpression(text), n, causal, grid);
                    const Tensor3 q = testing::randomTensor(2, n, 16, 11),
                                  k = testing::randomTensor(2, n, 16, 12),
                                  v = testing::randomTensor(2, n, 8, 13);
                    const AttentionInputs inputs{&q, &k, &v};
                    RunOptions options;
                    options.causal = causal;
                    options.grid = grid;
                    ProblemShape shape = inputs.shape(causal);
                    shape.grid = grid;
                    options.params = prepareParams(custom, shape, {{"expr", text}});
                    options.threads = 2;
                    options.useReference = true;
                    const RunResult reference = custom.run(inputs, options);
                    for (const GridTile& tile : gridTileCandidates(*grid)) {
                        const auto plan = tilePlan(pattern, *grid, tile);
                        ASSERT_EQ(testing::planViolation(*plan, pattern), "")
                            << "tile " << tile[0] << "×" << tile[1] << "×" << tile[2];
                        EXPECT_LT(testing::maxAbsDifference(runPlan(inputs, plan, causal).out.values,
                                                            reference.out.values),
                                  1e-5);
                    }
                    const auto banded = forcedBandPlan(pattern, *grid);
                    EXPECT_GT(bandBlocks(*banded), 0);
                    ASSERT_EQ(testing::planViolation(*banded, pattern), "") << "band pieces";
                    EXPECT_LT(testing::maxAbsDifference(runPlan(inputs, banded, causal).out.values,
                                                        reference.out.values),
                              1e-5)
                        << "band pieces";
                    const auto chosen = gridAwareBlockPlan(pattern, grid.get());
                    ASSERT_EQ(testing::planViolation(*chosen, pattern), "");
                    options.useReference = false;
                    EXPECT_LT(testing::maxAbsDifference(custom.run(inputs, options).out.values,
                                                        reference.out.values),
                              1e-5);
                }
}

// A random pattern on a grid: per row a few random runs of cells in raster order (neighbourhood-like,
// scattered or long), at least one cell, in the grid's token order.
std::unique_ptr<ExplicitPattern> randomGridPattern(const TokenGrid& grid, std::mt19937_64& random) {
    const std::int64_t n = grid.cells();
    std::vector<std::vector<ColumnRange>> rows(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t own = grid.rasterIndex(grid.cellAt(i));
        std::vector<std::int64_t> columns;
        const int runs = 1 + static_cast<int>(random() % 4);
        for (int run = 0; run < runs; ++run) {
            const std::int64_t start =
                random() % 3 == 0 ? static_cast<std::int64_t>(random() % static_cast<std::uint64_t>(n))
                                  : own + static_cast<std::int64_t>(random() % 21) - 10;
            const std::int64_t length =
                1 + static_cast<std::int64_t>(random() % (random() % 5 == 0 ? 90 : 9));
            for (std::int64_t g = std::max<std::int64_t>(0, start); g < std::min(n, start + length); ++g)
                columns.push_back(grid.positionOf(grid.rasterCell(g)));
        }
        if (columns.empty()) columns.push_back(i);
        std::sort(columns.begin(), columns.end());
        columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
        rows[static_cast<std::size_t>(i)] = rangesOfColumns(columns);
    }
    return std::make_unique<ExplicitPattern>(n, rows);
}

// Band pieces on random patterns over random grids and orders, every d and d_v the kernel's vectors cut
// differently, softmax and relu², with weights: the dense reference's outputs and weights, and W·V = out.
TEST(GridPlan, BandPiecesOfRandomPatternsMatchTheDenseReference) {
    std::mt19937_64 random(30);
    const std::vector<std::string> grids = {"1,150", "9,17", "5,16", "2,7,6", "3,40", "12,33"};
    const std::vector<std::string> orders = {"raster", "morton"};
    for (int trial = 0; trial < 48; ++trial) {
        const auto grid = makeTokenGrid(grids[static_cast<std::size_t>(trial) % grids.size()],
                                        orders[static_cast<std::size_t>(trial / 6) % 2]);
        const std::int64_t n = grid->cells(), d = 1 + static_cast<std::int64_t>(random() % 80),
                           dv = 1 + static_cast<std::int64_t>(random() % 140);
        const bool relu = trial % 5 == 4;
        const int heads = 1 + trial % 2;
        SCOPED_TRACE("trial " + std::to_string(trial) + " on " + grid->describe() +
                     " d=" + std::to_string(d) + " dv=" + std::to_string(dv) + (relu ? " relu2" : ""));
        const auto pattern = randomGridPattern(*grid, random);
        const auto plan = forcedBandPlan(*pattern, *grid);
        EXPECT_GT(bandBlocks(*plan), 0);
        ASSERT_EQ(testing::planViolation(*plan, *pattern), "");
        const Tensor3 q = testing::randomTensor(heads, n, d, 400 + static_cast<std::uint64_t>(trial));
        const Tensor3 k = testing::randomTensor(heads, n, d, 500 + static_cast<std::uint64_t>(trial));
        const Tensor3 v = testing::randomTensor(heads, n, dv, 600 + static_cast<std::uint64_t>(trial));
        const MaskedScoring scoring = testing::testScoring(relu, n, d);
        RunOptions options;
        options.threads = 2;
        options.wantWeights = trial % 3 != 2;
        RunResult garbage = testing::nanResult(heads, n, dv); // must be overwritten everywhere
        options.recycle = &garbage;
        const AttentionInputs inputs{&q, &k, &v};
        const RunResult result = runPlannedAttention(inputs, {plan}, scoring, options);
        const auto mask = denseMask(*pattern);
        for (int h = 0; h < heads; ++h) {
            testing::DenseMatrix weights;
            const auto expected =
                relu ? testing::maskedReluSquared(q, k, v, h, mask, scoring.normalizer, weights)
                     : testing::maskedSoftmax(testing::scaledScores(q, k, h, scoring.scale), mask, v, h,
                                              &weights);
            EXPECT_LT(testing::relativeError(testing::headValues(result.out, h), expected), 2e-5)
                << "head " << h;
            if (result.weights) {
                EXPECT_LT(testing::relativeError(testing::headValues(*result.weights, h), weights), 2e-5)
                    << "weights, head " << h;
            }
        }
        if (result.weights) {
            EXPECT_LT(
                testing::relativeError(result.out.values, testing::weightsTimesValues(*result.weights, v)),
                2e-5);
        }
    }
}

TEST(GridPlan, TileOrdersListEveryCellOnceTileByTile) {
    for (const GridCase& c : gridCases())
        for (const std::string& orderText : c.orders) {
            const auto grid = makeTokenGrid(c.sizes, orderText);
            for (const GridTile& tile : gridTileCandidates(*grid)) {
                EXPECT_LE(tile[0] * tile[1] * tile[2], kPlanQueryBlock);
                const PlanRowOrder order = gridTileOrder(*grid, tile);
                ASSERT_EQ(static_cast<std::int64_t>(order.rows.size()), grid->cells());
                EXPECT_EQ(std::set<std::int64_t>(order.rows.begin(), order.rows.end()).size(),
                          order.rows.size());
                std::int64_t begin = 0;
                for (const std::int64_t end : order.segmentEnds) {
                    // A segment's cells lie in one tile: their coordinates divided by the tile size agree.
                    const GridCell first = grid->cellAt(order.rows[static_cast<std::size_t>(begin)]);
                    for (std::int64_t r = begin; r < end; ++r) {
                        const GridCell cell = grid->cellAt(order.rows[static_cast<std::size_t>(r)]);
                        EXPECT_EQ(cell.t / tile[0], first.t / tile[0]);
                        EXPECT_EQ(cell.y / tile[1], first.y / tile[1]);
                        EXPECT_EQ(cell.x / tile[2], first.x / tile[2]);
                    }
                    begin = end;
                }
            }
        }
}

// Per block and column, the 16-row vectors from the first row that sees the column to the last, from the
// dense mask.
std::int64_t denseComputedCells(const Pattern& pattern, const PlanRowOrder& order, std::int64_t blockRows) {
    std::int64_t cells = 0, begin = 0;
    for (const std::int64_t end : order.segmentEnds) {
        for (std::int64_t offset = begin; offset < end; offset += blockRows) {
            const std::int64_t rows = std::min(blockRows, end - offset);
            for (std::int64_t j = 0; j < pattern.size(); ++j) {
                std::int64_t first = -1, last = -1;
                for (std::int64_t r = 0; r < rows; ++r)
                    if (pattern.allowed(order.rows[static_cast<std::size_t>(offset + r)], j)) {
                        if (first < 0) first = r;
                        last = r;
                    }
                if (first >= 0) cells += 16 * (last / 16 - first / 16 + 1);
            }
        }
        begin = end;
    }
    return cells;
}

TEST(GridPlan, ChoosesTilesForANeighbourhoodAndPositionsForABand) {
    const auto grid = makeTokenGrid("32,32", "raster");
    for (const bool causal : {false, true}) {
        const ExpressionPattern neighbourhood(parseExpression("neighborhood(7)"), grid->cells(), causal,
                                              grid);
        if (!causal) {
            // An 8 × 8 tile in the image's interior, rows by tile row: its vectors are pairs of tile rows. A
            // key o rows below the tile's top is seen by tile rows max(0, o − 3) … min(7, o + 3), o = −3 …
            // 10: 32 vectors over the 14 key rows, for each of its 14 key columns.
            PlanRowOrder interior;
            for (std::int64_t y = 8; y < 16; ++y)
                for (std::int64_t x = 8; x < 16; ++x)
                    interior.rows.push_back(grid->positionOf({0, y, x}));
            interior.segmentEnds = {64};
            EXPECT_EQ(orderComputedCells(neighbourhood, interior, kPlanQueryBlock), 32 * 16 * 14);
        }
        for (const GridTile& tile : gridTileCandidates(*grid)) {
            const PlanRowOrder order = gridTileOrder(*grid, tile);
            EXPECT_EQ(orderComputedCells(neighbourhood, order, kPlanQueryBlock),
                      denseComputedCells(neighbourhood, order, kPlanQueryBlock));
        }
        PlanRowOrder natural;
        for (std::int64_t i = 0; i < grid->cells(); ++i)
            natural.rows.push_back(i);
        natural.segmentEnds = {grid->cells()};
        EXPECT_EQ(orderComputedCells(neighbourhood, natural, 32),
                  denseComputedCells(neighbourhood, natural, 32));
        // A band on the grid keeps the generic plan's consecutive rows.
        const ExpressionPattern band(parseExpression("band(8)"), grid->cells(), causal, grid);
        const auto bandPlan = gridAwareBlockPlan(band, grid.get());
        for (const PlanBlock& b : bandPlan->blocks)
            EXPECT_TRUE(b.consecutiveRows);
        const auto plan = gridAwareBlockPlan(neighbourhood, grid.get());
        ASSERT_FALSE(plan->blocks.empty());
        const PlanBlock& block = plan->blocks.front();
        ASSERT_EQ(block.rowCount, 64);
        std::int64_t top = grid->height(), bottom = 0, left = grid->width(), right = 0;
        for (std::int64_t r = 0; r < block.rowCount; ++r) {
            const GridCell cell = grid->cellAt(plan->rows[static_cast<std::size_t>(block.rowOffset + r)]);
            top = std::min(top, cell.y);
            bottom = std::max(bottom, cell.y);
            left = std::min(left, cell.x);
            right = std::max(right, cell.x);
        }
        EXPECT_EQ((bottom - top + 1) * (right - left + 1), 64);
        // On this small image neither direction takes band pieces (their edge lanes weigh too much):
        // 16 × 4 tiles bidirectionally, with no column row-wise, 2-D tiles causally.
        EXPECT_EQ(bandBlocks(*plan), 0);
        EXPECT_GE(bottom - top + 1, 8);
        if (!causal) {
            EXPECT_EQ(bottom - top + 1, 16);
            for (std::int64_t p = block.pieceBegin; p < block.pieceEnd; ++p)
                EXPECT_FALSE(plan->pieces[static_cast<std::size_t>(p)].rowWise);
        }
    }
}

// On a 128 × 128 image the bidirectional 7 × 7 takes the band plan: 4 × 16 tiles, each tile row a 16-row
// vector, every block in band pieces; an interior strip's 49 diagonals are all lanes wide except where the
// window slides at the image's edge.
TEST(GridPlan, ChoosesBandPiecesForAWideBidirectionalNeighbourhood) {
    const auto grid = makeTokenGrid("128,128", "raster");
    const ExpressionPattern neighbourhood(parseExpression("neighborhood(7)"), grid->cells(), false, grid);
    const auto plan = gridAwareBlockPlan(neighbourhood, grid.get());
    EXPECT_EQ(bandBlocks(*plan), static_cast<std::int64_t>(plan->blocks.size()));
    const PlanBlock& block = plan->blocks[2]; // image rows 8 … 11, x = 0 … 15
    ASSERT_EQ(block.rowCount, 64);
    for (std::int64_t r = 0; r < block.rowCount; ++r) {
        const GridCell cell = grid->cellAt(plan->rows[static_cast<std::size_t>(block.rowOffset + r)]);
        EXPECT_EQ(cell.y, 8 + r / 16);
        EXPECT_EQ(cell.x, r % 16);
    }
    // Strip 1 (image row 9): lanes x < 3 see key offsets −x … 6 − x, so offsets 0 … 3 of each of 7 key rows
    // hold every lane.
    std::int64_t full = 0;
    for (std::int64_t p = block.pieceBegin; p < block.pieceEnd; ++p) {
        const PlanPiece& piece = plan->pieces[static_cast<std::size_t>(p)];
        for (std::int64_t e = 0; e < piece.count; ++e)
            full +=
                ((plan->masks[static_cast<std::size_t>(piece.mask + e)] >> 16) & 0xFFFFu) == 0xFFFFu ? 1 : 0;
    }
    EXPECT_EQ(full, 7 * 4);
}

} // namespace
} // namespace attnlab
