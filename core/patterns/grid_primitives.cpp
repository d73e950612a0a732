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
    RangeList& runs = order == TokenOrderKind::Raster ? out : t_runs;
    runs.clear();
    // In raster order the runs come out sorted; a run may touch the one before it (whole rows).
    const auto add = [&](std::int64_t begin, std::int64_t end) {
        if (order == TokenOrderKind::Raster && !runs.empty() && runs.back().end == begin)
            runs.back().end = end;
        else
            runs.push_back({begin, end});
    };
    const std::int64_t tileWidth = order == TokenOrderKind::Tiles ? grid.tileLength(2) : 1;
    for (std::int64_t a = 0, tc = t.start; a < t.count; ++a, tc += t.step)
        for (std::int64_t b = 0, yc = y.start; b < y.count; ++b, yc += y.step) {
            if (order == TokenOrderKind::Raster) {
                const std::int64_t base = (tc * grid.height() + yc) * grid.width();
                if (base + x.start + (x.count - 1) * x.step < lo) continue;
                if (base + x.start >= hi) break;
            }
            if (x.step == 1 && order != TokenOrderKind::Morton) { // consecutive x within one tile are consecutive positions
                for (std::int64_t xc = x.start, xEnd = x.start + x.count; xc < xEnd;) {
                    const std::int64_t pieceEnd = order == TokenOrderKind::Raster ? xEnd : std::min(xEnd, (xc / tileWidth + 1) * tileWidth);
                    const std::int64_t position = grid.positionOf({tc, yc, xc});
                    add(position, position + (pieceEnd - xc));
                    xc = pieceEnd;
                }
                continue;
            }
            for (std::int64_t c = 0, xc = x.start; c < x.count; ++c, xc += x.step) {
                const std::int64_t position = grid.positionOf({tc, yc, xc});
                add(position, position + 1);
            }
        }
    if (order != TokenOrderKind::Raster) {
        mergeRuns(runs, lo, hi, out);
        return;
    }
    // Raster: clip the sorted runs to [lo, hi).
    std::size_t kept = 0;
    for (const ColumnRange& run : out) {
        const std::int64_t begin = std::max(run.begin, lo), end = std::min(run.end, hi);
        if (begin < end) out[kept++] = {begin, end};
    }
    out.resize(kept);
}

} // namespace attnlab
