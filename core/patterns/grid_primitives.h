#pragma once

// The grid primitives of the pattern expressions (docs/grids.md): sets of (query cell, key cell) pairs
// on a token grid. Each one is, for a query cell, a product over the axes t, y, x of an arithmetic
// progression of key coordinates, so a row is built from the keys' positions without an n × n buffer:
// in raster order one range per (t, y) pair (or per key when the x progression has a step), in the
// other orders ranges from the cells' positions, sorted and merged.

#include "core/patterns/pattern_expression.h"
#include "core/patterns/range_algebra.h"
#include "core/patterns/token_grid.h"

#include <array>

namespace attnlab {

bool isGridPrimitive(Primitive primitive);

// The key coordinates of one axis for one query coordinate: start, start + step, … (count of them).
struct AxisKeys {
    std::int64_t start = 0;
    std::int64_t step = 1;
    std::int64_t count = 1;
};

// A grid primitive checked against its grid; sizes per axis t, y, x (an image's t axis uses 1).
struct GridPrimitive {
    Primitive kind = Primitive::SameFrame;
    std::array<std::int64_t, 3> size{1, 1, 1};     // neighborhood: kernel; window, shifted_window: m; tiles: a, b, c
    std::array<std::int64_t, 3> dilation{1, 1, 1}; // neighborhood only
    std::array<std::int64_t, 3> tileKernel{1, 1, 1}; // tile_neighborhood: K on the tile grid
};

// Checks a grid primitive's node against the grid (null: there is none): the arity for the grid's
// dimension, k·δ within each axis, tiles dividing the grid and 1 ≤ K ≤ tiles. Throws ExpressionError at
// the node's position.
GridPrimitive compileGridPrimitive(const ExpressionNode& node, const TokenGrid* grid);

// Key coordinates along `axis` (0 = t, 1 = y, 2 = x) for a query at coordinate a.
AxisKeys axisKeys(const GridPrimitive& primitive, const TokenGrid& grid, int axis, std::int64_t a);

// Row i's columns within [lo, hi) (0 ≤ lo < hi ≤ cells) into `out` (cleared first), sorted and merged.
void gridPrimitiveRow(const GridPrimitive& primitive, const TokenGrid& grid, std::int64_t i, std::int64_t lo,
                      std::int64_t hi, RangeList& out);

} // namespace attnlab
