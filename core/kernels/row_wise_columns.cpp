// Which columns of a generic plan's blocks run row-wise (row_wise_columns.h).
#include "core/kernels/row_wise_columns.h"
#include "core/kernels/row_math.h"
#include "core/kernels/tile_math.h"

#include <algorithm>
#include <utility>

namespace attnlab {

namespace {

// Columns that at most kScatteredCover rows of a block see (random keys, a lone diagonal, a band of radius
// 3 or less) would each cost a shared piece a 16-row vector of scores for a few cells; a block with at
// least kScatteredColumns of them runs those as row-wise pieces instead (docs/execution_plans.md, "The
// plans", Generic). Wider bands stay shared here (their columns' 17 or more rows each), and the threshold
// count keeps a band's or a causal triangle's thin edges in their pieces; blocks of narrow rows go row-wise
// whole (below).
constexpr int kScatteredCover = 8;
constexpr std::int64_t kScatteredColumns = 32;

// The columns of a block's rows that at most kScatteredCover of them see, as sorted ranges: a sweep over
// the rows' range ends, O(ranges · log ranges).
RangeList scatteredColumns(const Pattern& pattern, const std::int64_t* rows, std::int64_t count) {
    std::vector<std::pair<std::int64_t, int>> ends;
    RangeList ranges, scattered;
    for (std::int64_t r = 0; r < count; ++r) {
        ranges.clear();
        pattern.rowRanges(rows[r], ranges);
        for (const ColumnRange& range : ranges) {
            ends.push_back({range.begin, +1});
            ends.push_back({range.end, -1});
        }
    }
    std::sort(ends.begin(), ends.end()); // at one position a range's end before another's begin
    int cover = 0;
    std::int64_t at = 0;
    for (const auto& [position, step] : ends) {
        if (position > at && cover > 0 && cover <= kScatteredCover) {
            if (!scattered.empty() && scattered.back().end == at)
                scattered.back().end = position;
            else
                scattered.push_back({at, position});
        }
        cover += step;
        at = position;
    }
    std::int64_t columns = 0;
    for (const ColumnRange& range : scattered) columns += range.size();
    if (columns < kScatteredColumns) scattered.clear();
    return scattered;
}

// A block whose rows hold at most kRowWiseRowKeys keys on average, and whose shared pieces would compute
// kRowWiseCellCost times its cells or more, runs all its columns row-wise: as one streamed row-wise
// piece, a cell costs about kRowWiseCellCost shared ones (measured: docs/execution_plans.md, "The plans",
// Generic). A shared piece computes, for each column, the 16-row
// vectors between its first and last row that see it (block_attention.cpp); a chunk's dense blocks stay
// shared.
constexpr double kRowWiseCellCost = 1.6;

// The block's columns when it should run them all row-wise (see above), else empty: O(cells · log cells).
RangeList wholeRowWiseColumns(const Pattern& pattern, const std::int64_t* rows, std::int64_t count) {
    std::vector<std::pair<std::int64_t, std::int64_t>> cells; // (column, row of the block)
    RangeList ranges;
    for (std::int64_t r = 0; r < count; ++r) {
        ranges.clear();
        pattern.rowRanges(rows[r], ranges);
        for (const ColumnRange& range : ranges) {
            if (static_cast<double>(cells.size()) + static_cast<double>(range.size()) >
                kRowWiseRowKeys * static_cast<double>(count))
                return {};
            for (std::int64_t j = range.begin; j < range.end; ++j) cells.push_back({j, r});
        }
    }
    std::sort(cells.begin(), cells.end());
    RangeList columns;
    double sharedCells = 0;
    for (std::size_t c = 0; c < cells.size();) {
        std::size_t next = c;
        while (next < cells.size() && cells[next].first == cells[c].first) ++next;
        const std::int64_t first = cells[c].second / tile::kLanes * tile::kLanes;
        const std::int64_t end = (cells[next - 1].second / tile::kLanes + 1) * tile::kLanes;
        sharedCells += static_cast<double>(end - first);
        if (!columns.empty() && columns.back().end == cells[c].first)
            ++columns.back().end;
        else
            columns.push_back({cells[c].first, cells[c].first + 1});
        c = next;
    }
    if (sharedCells < kRowWiseCellCost * static_cast<double>(cells.size())) return {};
    return columns;
}

} // namespace

void findRowWiseColumns(const Pattern& pattern, const PlanRowOrder& order, std::int64_t blockRows, bool scattered,
                        std::vector<RangeList>& columns, std::vector<std::int64_t>& blockOf) {
    blockOf.assign(static_cast<std::size_t>(pattern.rows()), -1);
    std::int64_t segmentBegin = 0;
    for (const std::int64_t segmentEnd : order.segmentEnds) {
        for (std::int64_t offset = segmentBegin; offset < segmentEnd; offset += blockRows) {
            const std::int64_t count = std::min(blockRows, segmentEnd - offset);
            const std::int64_t* rows = order.rows.data() + offset;
            if (count <= tile::kSharedLoadRows) continue;
            RangeList rowWise = wholeRowWiseColumns(pattern, rows, count);
            if (rowWise.empty() && scattered) rowWise = scatteredColumns(pattern, rows, count);
            if (rowWise.empty()) continue;
            for (std::int64_t r = 0; r < count; ++r)
                blockOf[static_cast<std::size_t>(rows[r])] = static_cast<std::int64_t>(columns.size());
            columns.push_back(std::move(rowWise));
        }
        segmentBegin = segmentEnd;
    }
}

} // namespace attnlab
