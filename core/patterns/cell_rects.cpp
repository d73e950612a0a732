#include "core/patterns/cell_rects.h"

#include <algorithm>
#include <map>
#include <tuple>

namespace attnlab {

std::vector<CellRect> mergeRowRuns(std::int64_t row0, std::int64_t row1, const RowRuns& rowRuns) {
    using Key = std::tuple<std::int64_t, std::int64_t, std::uint32_t>;
    std::vector<CellRect> rects;
    std::map<Key, std::size_t> open; // runs of the previous row → index of the rectangle they extend
    std::map<Key, std::size_t> next;
    std::vector<CellRun> runs;
    for (std::int64_t i = row0; i < row1; ++i) {
        runs.clear();
        rowRuns(i, runs);
        next.clear();
        for (const CellRun& run : runs) {
            if (run.col1 <= run.col0) continue;
            const Key key{run.col0, run.col1, run.colour};
            if (const auto above = open.find(key); above != open.end()) {
                rects[above->second].row1 = i + 1;
                next.emplace(key, above->second);
            } else {
                next.emplace(key, rects.size());
                rects.push_back({i, i + 1, run.col0, run.col1, run.colour});
            }
        }
        std::swap(open, next);
    }
    return rects;
}

RowRuns allowedRuns(const Pattern& pattern, std::int64_t col0, std::int64_t col1, std::uint32_t colour) {
    return [&pattern, col0, col1, colour, ranges = std::vector<ColumnRange>()](std::int64_t i, std::vector<CellRun>& out) mutable {
        ranges.clear();
        pattern.rowRanges(i, ranges);
        for (const ColumnRange& range : ranges) {
            const std::int64_t begin = std::max(range.begin, col0);
            const std::int64_t end = std::min(range.end, col1);
            if (begin < end) out.push_back({begin, end, colour});
        }
    };
}

} // namespace attnlab
