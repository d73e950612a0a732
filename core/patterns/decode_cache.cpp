#include "core/patterns/decode_cache.h"

#include <algorithm>

namespace attnlab {

namespace {

// Sorts `ranges` and merges overlapping or touching ones in place.
void normalise(std::vector<ColumnRange>& ranges) {
    std::sort(ranges.begin(), ranges.end(),
              [](const ColumnRange& a, const ColumnRange& b) { return a.begin < b.begin; });
    std::size_t kept = 0;
    for (const ColumnRange& range : ranges) {
        if (kept > 0 && range.begin <= ranges[kept - 1].end)
            ranges[kept - 1].end = std::max(ranges[kept - 1].end, range.end);
        else
            ranges[kept++] = range;
    }
    ranges.resize(kept);
}

} // namespace

std::vector<ColumnRange> cachedKeysAt(const Pattern& pattern, std::int64_t step) {
    // Rows are merged in batches, so that a cache that already holds every key ends the scan early.
    constexpr std::int64_t kBatch = 1024;
    const std::int64_t n = pattern.size();
    std::vector<ColumnRange> held, row;
    for (std::int64_t i = step; i < n; ++i) {
        row.clear();
        pattern.rowRanges(i, row);
        for (const ColumnRange& range : row)
            if (range.begin <= step) held.push_back({range.begin, std::min(range.end, step + 1)});
        if ((i - step) % kBatch != kBatch - 1) continue;
        normalise(held);
        if (held.size() == 1 && held.front().begin == 0 && held.front().end == step + 1) return held;
    }
    normalise(held);
    return held;
}

} // namespace attnlab
