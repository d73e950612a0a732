#pragma once

// Band pieces (docs/execution_plans.md, "Diagonals: band pieces"): a block whose 16-row vectors are strips
// of 16 cells consecutive in raster index scores its rows along diagonals. Lane l of a diagonal is row
// 16g + l against the key at raster index base + l, so a 2-D neighbourhood's k keys of one key row are k
// diagonals whose every lane is an allowed cell (the mask only clears the lanes at the grid's edges), and
// the kernel computes each cell once instead of the (tile + k − 1)-wide squares that shared pieces compute.

#include "core/kernels/block_plan.h"
#include "core/patterns/token_grid.h"

#include <array>
#include <cstdint>

namespace attnlab {

// The query tile of the band plan on `grid`: 4 × 16 cells where the image is at least 16 wide (each of its
// rows one 16-row vector), else whole image rows, or whole frames, up to kPlanQueryBlock cells: every
// 16 rows of a block are then consecutive cells in raster order.
std::array<std::int64_t, 3> bandTile(const TokenGrid& grid);

// One band cell costs about this many shared ones (measured at 128 × 128: docs/execution_plans.md,
// "Diagonals: band pieces"): the plans weigh band pieces' cells by it.
inline constexpr double kBandCellCost = 1.6;

// Cells the block kernel computes for block `block` of `plan`: shared pieces the 16-row vectors their
// mask reaches per 6-key tile (all of them unmasked), row-wise pieces their cells times the cost of a
// row-wise cell against a shared one, band pieces 16 cells per vector a diagonal reaches.
double blockComputedCells(const BlockPlan& plan, const PlanBlock& block);

// `plan` (the generic plan's pass over the bandTile order of `grid`) with every block whose rows form strips
// of consecutive cells, and whose band pieces' cells times kBandCellCost are fewer than its shared and
// row-wise pieces' (blockComputedCells; or, with `always`, whatever they compute), turned into band pieces;
// the other blocks are kept as they are.
std::shared_ptr<const BlockPlan> withBandPieces(const BlockPlan& plan, const Pattern& pattern,
                                                const TokenGrid& grid, bool always = false);

// The band plan of `pattern` on `grid`: the generic plan's pass over the bandTile order, a column of tiles
// after another (the next block down shares all but 4 of its key rows), heavy rows split along their keys
// as the generic plan splits them, then withBandPieces.
std::shared_ptr<const BlockPlan> bandBlockPlan(const Pattern& pattern, const TokenGrid& grid,
                                               bool always = false);

// Cells of the whole plan (Σ blockComputedCells), band cells times kBandCellCost when `weighted`.
double planComputedCells(const BlockPlan& plan, bool weighted = false);

} // namespace attnlab
