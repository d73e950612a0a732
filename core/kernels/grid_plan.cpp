// Query blocks as tiles of grid cells (grid_plan.h).
#include "core/kernels/grid_plan.h"
#include "core/kernels/band_plan.h"
#include "core/kernels/tile_math.h"

#include <algorithm>
#include <limits>
#include <utility>

namespace attnlab {

namespace {

// t × y × x wanted, clipped to the grid, x then widened to fill kPlanQueryBlock cells.
GridTile clippedTile(const TokenGrid& grid, std::int64_t t, std::int64_t y) {
    const std::int64_t tt = std::min(grid.frames(), t), ty = std::min(grid.height(), y);
    return {tt, ty, std::min(grid.width(), kPlanQueryBlock / (tt * ty))};
}

} // namespace

std::vector<GridTile> gridTileCandidates(const TokenGrid& grid) {
    std::vector<GridTile> tiles = {clippedTile(grid, 1, 8), clippedTile(grid, 1, 16)};
    if (grid.dims() == 3) {
        tiles.push_back(clippedTile(grid, 4, 4));
        tiles.push_back(clippedTile(grid, 2, 4));
    }
    std::sort(tiles.begin(), tiles.end());
    tiles.erase(std::unique(tiles.begin(), tiles.end()), tiles.end());
    return tiles;
}

PlanRowOrder gridTileOrder(const TokenGrid& grid, const GridTile& tile, const std::vector<bool>& skip,
                           bool columnsFirst) {
    PlanRowOrder order;
    order.rows.reserve(static_cast<std::size_t>(grid.cells()));
    auto appendTile = [&](std::int64_t t0, std::int64_t y0, std::int64_t x0) {
        for (std::int64_t t = t0; t < std::min(grid.frames(), t0 + tile[0]); ++t)
            for (std::int64_t y = y0; y < std::min(grid.height(), y0 + tile[1]); ++y)
                for (std::int64_t x = x0; x < std::min(grid.width(), x0 + tile[2]); ++x) {
                    const std::int64_t p = grid.positionOf({t, y, x});
                    if (skip.empty() || !skip[static_cast<std::size_t>(p)]) order.rows.push_back(p);
                }
        const auto end = static_cast<std::int64_t>(order.rows.size());
        if (order.segmentEnds.empty() ? end > 0 : end > order.segmentEnds.back())
            order.segmentEnds.push_back(end);
    };
    if (columnsFirst)
        for (std::int64_t x0 = 0; x0 < grid.width(); x0 += tile[2])
            for (std::int64_t t0 = 0; t0 < grid.frames(); t0 += tile[0])
                for (std::int64_t y0 = 0; y0 < grid.height(); y0 += tile[1])
                    appendTile(t0, y0, x0);
    else
        for (std::int64_t t0 = 0; t0 < grid.frames(); t0 += tile[0])
            for (std::int64_t y0 = 0; y0 < grid.height(); y0 += tile[1])
                for (std::int64_t x0 = 0; x0 < grid.width(); x0 += tile[2])
                    appendTile(t0, y0, x0);
    if (order.segmentEnds.empty()) order.segmentEnds.push_back(0);
    return order;
}

namespace {

// One block's computed cells: per column its rows' 16-row vectors from the first row that sees it to
// the last, over the elementary segments between the block's range ends.
std::int64_t blockComputedCells(const std::vector<std::pair<ColumnRange, std::int64_t>>& ranges,
                                std::vector<std::int64_t>& ends,
                                std::vector<std::pair<std::int64_t, std::int64_t>>& rowSpan) {
    ends.clear();
    for (const auto& [range, row] : ranges) {
        ends.push_back(range.begin);
        ends.push_back(range.end);
    }
    std::sort(ends.begin(), ends.end());
    ends.erase(std::unique(ends.begin(), ends.end()), ends.end());
    rowSpan.assign(ends.size(), {std::numeric_limits<std::int64_t>::max(), -1});
    for (const auto& [range, row] : ranges)
        for (auto at = std::lower_bound(ends.begin(), ends.end(), range.begin); *at < range.end; ++at) {
            auto& span = rowSpan[static_cast<std::size_t>(at - ends.begin())];
            span = {std::min(span.first, row), std::max(span.second, row)};
        }
    std::int64_t cells = 0;
    for (std::size_t s = 0; s + 1 < ends.size(); ++s)
        if (rowSpan[s].second >= 0)
            cells += (ends[s + 1] - ends[s]) *
                     (rowSpan[s].second / tile::kLanes - rowSpan[s].first / tile::kLanes + 1) * tile::kLanes;
    return cells;
}

} // namespace

std::int64_t orderComputedCells(const Pattern& pattern, const PlanRowOrder& order, std::int64_t blockRows) {
    std::int64_t cells = 0, segmentBegin = 0;
    std::vector<ColumnRange> row;
    std::vector<std::pair<ColumnRange, std::int64_t>> ranges;
    std::vector<std::int64_t> ends;
    std::vector<std::pair<std::int64_t, std::int64_t>> rowSpan;
    for (const std::int64_t segmentEnd : order.segmentEnds) {
        for (std::int64_t offset = segmentBegin; offset < segmentEnd; offset += blockRows) {
            ranges.clear();
            for (std::int64_t r = 0; r < std::min(blockRows, segmentEnd - offset); ++r) {
                row.clear();
                pattern.rowRanges(order.rows[static_cast<std::size_t>(offset + r)], row);
                for (const ColumnRange& range : row)
                    if (range.size() > 0) ranges.push_back({range, r});
            }
            cells += blockComputedCells(ranges, ends, rowSpan);
        }
        segmentBegin = segmentEnd;
    }
    return cells;
}

std::shared_ptr<const BlockPlan> gridAwareBlockPlan(const Pattern& pattern, const TokenGrid* grid) {
    if (!grid || grid->cells() != pattern.size()) return genericBlockPlan(pattern);
    const std::vector<std::int64_t> counts = rowCounts(pattern);
    const double meanKeys = meanRowKeys(counts);
    const std::vector<bool> heavy = heavyRowFlags(counts, meanKeys);
    PlanRowOrder natural;
    std::vector<std::int64_t> heavyRows;
    for (std::int64_t i = 0; i < pattern.size(); ++i)
        (heavy[static_cast<std::size_t>(i)] ? heavyRows : natural.rows).push_back(i);
    natural.segmentEnds.push_back(static_cast<std::int64_t>(natural.rows.size()));
    const std::int64_t naturalRows = blockRowsForRowKeys(meanKeys);
    std::int64_t best = orderComputedCells(pattern, natural, naturalRows);
    PlanRowOrder chosen;
    bool tiled = false;
    for (const GridTile& tile : gridTileCandidates(*grid)) {
        PlanRowOrder tiles = gridTileOrder(*grid, tile, heavy);
        const std::int64_t cells = orderComputedCells(pattern, tiles, kPlanQueryBlock);
        if (cells < best) {
            best = cells;
            chosen = std::move(tiles);
            tiled = true;
        }
    }
    const std::shared_ptr<const BlockPlan> generic =
        tiled ? orderedBlockPlan(pattern, chosen, heavyRows, kPlanQueryBlock, false,
                                 RowWiseColumns::WholeBlocksOnly)
              : orderedBlockPlan(pattern, natural, heavyRows, naturalRows);
    const auto banded = bandBlockPlan(pattern, *grid);
    // The band plan only where it clearly computes less: a 1-D band on a grid costs about the same either
    // way, and its generic plan is the measured one.
    return planComputedCells(*banded, true) < 0.9 * planComputedCells(*generic) ? banded : generic;
}

} // namespace attnlab
