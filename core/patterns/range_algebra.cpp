#include "core/patterns/range_algebra.h"

#include <algorithm>

namespace attnlab {

namespace {

void appendMerging(RangeList& out, const ColumnRange& r) {
    if (!out.empty() && r.begin <= out.back().end)
        out.back().end = std::max(out.back().end, r.end);
    else
        out.push_back(r);
}

// Appends long[from, to): its first range may touch what `out` ends with, the others are copied as a block.
void appendRun(RangeList& out, const RangeList& list, std::size_t from, std::size_t to) {
    if (from >= to) return;
    appendMerging(out, list[from]);
    out.insert(out.end(), list.begin() + static_cast<std::ptrdiff_t>(from + 1), list.begin() + static_cast<std::ptrdiff_t>(to));
}

} // namespace

// Each range of the shorter list is placed by binary search in the longer one, whose ranges in between
// are copied as blocks: O(short · log long) comparisons plus a copy of the result.
void unionInto(const RangeList& a, const RangeList& b, RangeList& out) {
    const RangeList& longer = a.size() >= b.size() ? a : b;
    const RangeList& shorter = a.size() >= b.size() ? b : a;
    out.clear();
    out.reserve(a.size() + b.size());
    std::size_t next = 0;
    for (const auto& r : shorter) {
        const auto before = std::lower_bound(longer.begin() + static_cast<std::ptrdiff_t>(next), longer.end(), r.begin,
                                             [](const ColumnRange& x, std::int64_t column) { return x.end < column; });
        const auto stop = static_cast<std::size_t>(before - longer.begin());
        appendRun(out, longer, next, stop);
        next = stop;
        if (next < longer.size() && longer[next].begin <= r.begin) appendMerging(out, longer[next++]);
        appendMerging(out, r);
        while (next < longer.size() && longer[next].begin <= out.back().end)
            out.back().end = std::max(out.back().end, longer[next++].end);
    }
    appendRun(out, longer, next, longer.size());
}

void intersectInto(const RangeList& a, const RangeList& b, RangeList& out) {
    out.clear();
    std::size_t ia = 0, ib = 0;
    while (ia < a.size() && ib < b.size()) {
        const std::int64_t begin = std::max(a[ia].begin, b[ib].begin);
        const std::int64_t end = std::min(a[ia].end, b[ib].end);
        if (begin < end) out.push_back({begin, end});
        if (a[ia].end < b[ib].end)
            ++ia;
        else
            ++ib;
    }
}

void complementInto(const RangeList& a, std::int64_t lo, std::int64_t hi, RangeList& out) {
    out.clear();
    std::int64_t next = lo;
    for (const auto& r : a) {
        if (r.begin > next) out.push_back({next, r.begin});
        next = r.end;
    }
    if (next < hi) out.push_back({next, hi});
}

void clipInto(const RangeList& a, std::int64_t lo, std::int64_t hi, RangeList& out) {
    out.clear();
    auto it = std::upper_bound(a.begin(), a.end(), lo, [](std::int64_t column, const ColumnRange& r) { return column < r.end; });
    for (; it != a.end() && it->begin < hi; ++it) out.push_back({std::max(it->begin, lo), std::min(it->end, hi)});
}

void subtractInto(const RangeList& a, const RangeList& b, RangeList& out) {
    out.clear();
    std::size_t ib = 0;
    for (const auto& r : a) {
        std::int64_t begin = r.begin;
        while (ib < b.size() && b[ib].end <= begin) ++ib;
        std::size_t k = ib;
        while (k < b.size() && b[k].begin < r.end) {
            if (b[k].begin > begin) out.push_back({begin, b[k].begin});
            begin = std::max(begin, b[k].end);
            ++k;
        }
        if (begin < r.end) out.push_back({begin, r.end});
    }
}

} // namespace attnlab
