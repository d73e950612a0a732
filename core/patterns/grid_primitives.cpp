#include "core/patterns/grid_primitives.h"

#include <algorithm>

namespace attnlab {

namespace {

const char* primitiveName(Primitive kind) {
    switch (kind) {
    case Primitive::Neighborhood: return "neighborhood";
    case Primitive::Window: return "window";
    case Primitive::ShiftedWindow: return "shifted_window";
    case Primitive::TileNeighborhood: return "tile_neighborhood";
    case Primitive::SameRow: return "same_row";
    case Primitive::SameCol: return "same_col";
    case Primitive::SameFrame: return "same_frame";
    default: return "same_pixel";
    }
}

// The argument lists each grid primitive takes on an image and on a video.
std::string arityText(Primitive kind, int dims) {
    const bool image = dims == 2;
    switch (kind) {
    case Primitive::Neighborhood:
        return image ? "1, 2 or 4 arguments: (k), (kh, kw) or (kh, kw, dh, dw)"
                     : "1, 3 or 6 arguments: (k), (kt, kh, kw) or (kt, kh, kw, dt, dh, dw)";
    case Primitive::Window:
    case Primitive::ShiftedWindow: return image ? "1 or 2 arguments: (m) or (mh, mw)" : "1 or 3 arguments: (m) or (mt, mh, mw)";
    case Primitive::TileNeighborhood: return image ? "4 arguments: (a, b, Ka, Kb)" : "6 arguments: (a, b, c, Ka, Kb, Kc)";
    default: return "no arguments";
    }
}

bool arityFits(Primitive kind, std::size_t count, std::size_t dims) {
    switch (kind) {
    case Primitive::Neighborhood: return count == 1 || count == dims || count == 2 * dims;
    case Primitive::Window:
    case Primitive::ShiftedWindow: return count == 1 || count == dims;
    case Primitive::TileNeighborhood: return count == 2 * dims;
    default: return count == 0;
    }
}

const char* axisName(int axis) { return axis == 0 ? "frames T" : axis == 1 ? "height H" : "width W"; }

// NATTEN's neighbourhood on one axis: the k keys c − left … c + right of the query's dilation group,
// the window sliding along the edge instead of shrinking.
AxisKeys nattenKeys(std::int64_t length, std::int64_t kernel, std::int64_t dilation, std::int64_t a) {
    const std::int64_t group = a % dilation, u = a / dilation;
    const std::int64_t groupLength = (length - group + dilation - 1) / dilation;
    const std::int64_t left = kernel / 2, right = kernel / 2 + kernel % 2 - 1;
    const std::int64_t centre = std::min(std::max(u, left), groupLength - 1 - right);
    return {(centre - left) * dilation + group, dilation, kernel};
}

AxisKeys spanKeys(std::int64_t start, std::int64_t end) { return {start, 1, end - start}; }

// start + size clipped to `limit` without overflow (start < limit, size ≥ 0).
std::int64_t endWithin(std::int64_t start, std::int64_t size, std::int64_t limit) {
    return size >= limit - start ? limit : start + size;
}

// Sorts unsorted, disjoint runs, merges those that touch and keeps their parts within [lo, hi).
void mergeRuns(RangeList& runs, std::int64_t lo, std::int64_t hi, RangeList& out) {
    std::sort(runs.begin(), runs.end(), [](const ColumnRange& a, const ColumnRange& b) { return a.begin < b.begin; });
    for (const ColumnRange& run : runs) {
        const std::int64_t begin = std::max(run.begin, lo), end = std::min(run.end, hi);
        if (begin >= end) continue;
        if (!out.empty() && begin <= out.back().end)
            out.back().end = std::max(out.back().end, end);
        else
            out.push_back({begin, end});
    }
}

thread_local RangeList t_runs;

} // namespace

bool isGridPrimitive(Primitive primitive) {
    switch (primitive) {
    case Primitive::Neighborhood:
    case Primitive::Window:
    case Primitive::ShiftedWindow:
    case Primitive::TileNeighborhood:
    case Primitive::SameRow:
    case Primitive::SameCol:
    case Primitive::SameFrame:
    case Primitive::SamePixel: return true;
    default: return false;
    }
}

GridPrimitive compileGridPrimitive(const ExpressionNode& node, const TokenGrid* grid) {
    const std::string name = primitiveName(node.primitive);
    if (!grid) throw ExpressionError("'" + name + "' needs a token grid (--grid H,W or --grid T,H,W)", node.position);
    const auto dims = static_cast<std::size_t>(grid->dims());
    const auto& args = node.args;
    if (!arityFits(node.primitive, args.size(), dims))
        throw ExpressionError("'" + name + "' on " + (dims == 2 ? "an image" : "a video") + " takes " +
                                  arityText(node.primitive, grid->dims()) + ", got " + std::to_string(args.size()),
                              node.position);
    GridPrimitive p;
    p.kind = node.primitive;
    if (args.empty()) return p;
    const std::size_t firstAxis = 3 - dims;
    for (std::size_t k = 0; k < dims; ++k) {
        const std::size_t axis = firstAxis + k;
        p.size[axis] = args.size() == 1 ? args[0] : args[k];
        if (args.size() == 2 * dims) (node.primitive == Primitive::Neighborhood ? p.dilation : p.tileKernel)[axis] = args[dims + k];
    }
    for (int axis = static_cast<int>(firstAxis); axis < 3; ++axis) {
        const auto a = static_cast<std::size_t>(axis);
        const std::int64_t length = grid->axisLength(axis);
        const std::string where = "the grid's " + std::string(axisName(axis)) + " = " + std::to_string(length);
        if (p.kind == Primitive::Neighborhood && p.size[a] > length / p.dilation[a])
            throw ExpressionError("'" + name + "': kernel " + std::to_string(p.size[a]) + " x dilation " +
                                      std::to_string(p.dilation[a]) + " exceeds " + where,
                                  node.position);
        if (p.kind != Primitive::TileNeighborhood) continue;
        if (length % p.size[a] != 0)
            throw ExpressionError("'" + name + "': tile size " + std::to_string(p.size[a]) + " does not divide " + where,
                                  node.position);
        if (p.tileKernel[a] > length / p.size[a])
            throw ExpressionError("'" + name + "': kernel " + std::to_string(p.tileKernel[a]) + " exceeds the " +
                                      std::to_string(length / p.size[a]) + " tiles along " + axisName(axis),
                                  node.position);
    }
    return p;
}

AxisKeys axisKeys(const GridPrimitive& p, const TokenGrid& grid, int axis, std::int64_t a) {
    const auto k = static_cast<std::size_t>(axis);
    const std::int64_t length = grid.axisLength(axis);
    const AxisKeys whole = spanKeys(0, length), own = spanKeys(a, a + 1);
    switch (p.kind) {
    case Primitive::Neighborhood: return nattenKeys(length, p.size[k], p.dilation[k], a);
    case Primitive::Window: {
        const std::int64_t start = (a / p.size[k]) * p.size[k];
        return spanKeys(start, endWithin(start, p.size[k], length));
    }
    case Primitive::ShiftedWindow: { // window boundaries where (a + σ) mod m = 0, i.e. at ⌊m/2⌋ + multiples of m
        const std::int64_t first = p.size[k] / 2;
        if (a < first) return spanKeys(0, std::min(first, length));
        const std::int64_t start = first + ((a - first) / p.size[k]) * p.size[k];
        return spanKeys(start, endWithin(start, p.size[k], length));
    }
    case Primitive::TileNeighborhood: {
        const AxisKeys tiles = nattenKeys(length / p.size[k], p.tileKernel[k], 1, a / p.size[k]);
        return spanKeys(tiles.start * p.size[k], (tiles.start + tiles.count) * p.size[k]);
    }
    case Primitive::SameRow: return axis == 2 ? whole : own;
    case Primitive::SameCol: return axis == 1 ? whole : own;
    case Primitive::SameFrame: return axis == 0 ? own : whole;
    default: return axis == 0 ? whole : own; // same_pixel
    }
}

namespace {

// Appends [begin, end) to sorted runs, merging it with the last one when they touch.
void appendSorted(RangeList& runs, std::int64_t begin, std::int64_t end) {
    if (!runs.empty() && runs.back().end == begin)
        runs.back().end = end;
    else
        runs.push_back({begin, end});
}

// Keeps the parts of sorted runs within [lo, hi).
void clipSorted(RangeList& runs, std::int64_t lo, std::int64_t hi) {
    std::size_t kept = 0;
    for (const ColumnRange& run : runs) {
        const std::int64_t begin = std::max(run.begin, lo), end = std::min(run.end, hi);
        if (begin < end) runs[kept++] = {begin, end};
    }
    runs.resize(kept);
}

using Box = std::array<AxisKeys, 3>; // contiguous spans (step 1) along t, y, x

// Morton order with contiguous spans: an aligned block of side 2^level holds one interval of codes, so
// the grid's cells inside it have consecutive positions. A block whose cells all lie in the box is one
// run starting at its lowest corner; a block partly in it is split into its 2^3 children in code order,
// so the runs come out sorted. Runs: O(the box's surface · levels) instead of one per cell.
void mortonRuns(const TokenGrid& grid, const Box& box, const std::array<std::int64_t, 3>& origin, int level, RangeList& runs) {
    const std::int64_t side = std::int64_t{1} << level;
    std::array<std::int64_t, 3> first{}, last{}; // the block's cells on the grid: [first, last)
    bool inside = true;
    for (std::size_t a = 0; a < 3; ++a) {
        first[a] = origin[a];
        last[a] = std::min(origin[a] + side, grid.axisLength(static_cast<int>(a)));
        const std::int64_t boxEnd = box[a].start + box[a].count;
        if (first[a] >= last[a] || last[a] <= box[a].start || first[a] >= boxEnd) return; // nothing of it in the box
        inside = inside && box[a].start <= first[a] && last[a] <= boxEnd;
    }
    if (inside) {
        const std::int64_t begin = grid.positionOf({first[0], first[1], first[2]});
        appendSorted(runs, begin, begin + (last[0] - first[0]) * (last[1] - first[1]) * (last[2] - first[2]));
        return;
    }
    const std::int64_t half = side / 2;
    for (int child = 0; child < 8; ++child) // bit 0: x, bit 1: y, bit 2: t, as in the code
        mortonRuns(grid, box, {origin[0] + ((child >> 2) & 1) * half, origin[1] + ((child >> 1) & 1) * half, origin[2] + (child & 1) * half},
                   level - 1, runs);
}

int mortonLevels(const TokenGrid& grid) {
    const std::int64_t longest = std::max({grid.frames(), grid.height(), grid.width()});
    int level = 0;
    while ((std::int64_t{1} << level) < longest) ++level;
    return level;
}

// Raster and tile orders: one run per x span of a (t, y) pair, split at tile boundaries; Morton with a
// dilated x axis: one run per cell. Unsorted outside raster order.
void spanRuns(const TokenGrid& grid, const AxisKeys& t, const AxisKeys& y, const AxisKeys& x, std::int64_t lo,
              std::int64_t hi, RangeList& runs) {
    const TokenOrderKind order = grid.order().kind;
    const std::int64_t tileWidth = order == TokenOrderKind::Tiles ? grid.tileLength(2) : 1;
    for (std::int64_t a = 0, tc = t.start; a < t.count; ++a, tc += t.step)
        for (std::int64_t b = 0, yc = y.start; b < y.count; ++b, yc += y.step) {
            if (order == TokenOrderKind::Raster) { // rows wholly outside [lo, hi) are skipped
                const std::int64_t base = (tc * grid.height() + yc) * grid.width();
                if (base + x.start + (x.count - 1) * x.step < lo || base + x.start >= hi) continue;
            }
            if (x.step == 1 && order != TokenOrderKind::Morton) { // consecutive x within a tile: consecutive positions
                for (std::int64_t xc = x.start, xEnd = x.start + x.count; xc < xEnd;) {
                    const std::int64_t pieceEnd =
                        order == TokenOrderKind::Raster ? xEnd : std::min(xEnd, (xc / tileWidth + 1) * tileWidth);
                    const std::int64_t position = grid.positionOf({tc, yc, xc});
                    appendSorted(runs, position, position + (pieceEnd - xc));
                    xc = pieceEnd;
                }
                continue;
            }
            for (std::int64_t c = 0, xc = x.start; c < x.count; ++c, xc += x.step) {
                const std::int64_t position = grid.positionOf({tc, yc, xc});
                appendSorted(runs, position, position + 1);
            }
        }
}

} // namespace

void gridPrimitiveRow(const GridPrimitive& p, const TokenGrid& grid, std::int64_t i, std::int64_t lo, std::int64_t hi,
                      RangeList& out) {
    out.clear();
    const GridCell query = grid.cellAt(i);
    const AxisKeys t = axisKeys(p, grid, 0, query.t), y = axisKeys(p, grid, 1, query.y), x = axisKeys(p, grid, 2, query.x);
    if (t.count == grid.frames() && y.count == grid.height() && x.count == grid.width()) {
        out.push_back({lo, hi});
        return;
    }
    const TokenOrderKind order = grid.order().kind;
    // Morton blocks pay off for boxes at least 2 wide on every axis the grid has; a thinner box (a row, a
    // column, one frame of a video) meets no whole block bigger than a cell.
    bool blocky = t.step == 1 && y.step == 1 && x.step == 1;
    for (int axis = 0; axis < 3; ++axis)
        blocky = blocky && (grid.axisLength(axis) == 1 || (axis == 0 ? t : axis == 1 ? y : x).count >= 2);
    if (order == TokenOrderKind::Raster || (order == TokenOrderKind::Morton && blocky)) { // runs come out sorted
        if (order == TokenOrderKind::Raster)
            spanRuns(grid, t, y, x, lo, hi, out);
        else
            mortonRuns(grid, {t, y, x}, {0, 0, 0}, mortonLevels(grid), out);
        clipSorted(out, lo, hi);
        return;
    }
    RangeList& runs = t_runs;
    runs.clear();
    spanRuns(grid, t, y, x, lo, hi, runs);
    mergeRuns(runs, lo, hi, out);
}

} // namespace attnlab
