#pragma once

// Plans for patterns on a token grid (docs/execution_plans.md, "Tiles of cells"): query blocks are
// tiles of cells (8 × 8 on an image) whatever the token order, so that a neighbourhood's rows share
// most of their keys, (8 + k − 1)² per block against k² per row, where a block of consecutive raster
// positions spans part of an image row and gathers k rows of keys as wide as the block.

#include "core/kernels/block_plan.h"
#include "core/patterns/token_grid.h"

#include <array>
#include <cstdint>
#include <vector>

namespace attnlab {

// Tile sizes along t, y, x of a query block (product at most kPlanQueryBlock).
using GridTile = std::array<std::int64_t, 3>;

// The tile shapes the grid plan weighs on `grid`: 8 × 8 and 16 × 4 cells on an image (a 16 × 4 tile's
// 16-row vectors are 4 × 4 squares of cells), clipped to the grid and widened along x to 64 cells
// (1 × 64 on a 1 × n grid); on a video also 4 × 4 × 4 and 2 × 4 × 8.
std::vector<GridTile> gridTileCandidates(const TokenGrid& grid);

// The positions of the grid's cells tile by tile (tiles in raster order over the grid of tiles, or with
// `columnsFirst` column of tiles by column of tiles, top to bottom; cells in raster order within a tile),
// each tile a segment, leaving out positions p with skip[p] (skip may be empty).
PlanRowOrder gridTileOrder(const TokenGrid& grid, const GridTile& tile, const std::vector<bool>& skip = {},
                           bool columnsFirst = false);

// Cells the block kernel computes for `order` (blockRows rows per block within each segment) in shared
// pieces: for each column of a block, the 16-row vectors from the first of its rows that sees the column
// to the last (block_attention.cpp). From the row ranges, O(ranges · segments a range spans) per block.
std::int64_t orderComputedCells(const Pattern& pattern, const PlanRowOrder& order, std::int64_t blockRows);

// genericBlockPlan, or, when `grid` (may be null) is the pattern's grid and one of its tile orders
// computes fewer cells than natural order (orderComputedCells), the generic plan's pass over that tile
// order in blocks of one tile, with row-wise pieces only for whole blocks (RowWiseColumns::WholeBlocksOnly);
// then the band plan (band_plan.h) instead when its cells, weighed by kBandCellCost, are fewer still.
std::shared_ptr<const BlockPlan> gridAwareBlockPlan(const Pattern& pattern, const TokenGrid* grid);

} // namespace attnlab
