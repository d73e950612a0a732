#include "core/range_algebra.h"

#include <algorithm>

namespace attnlab {

void unionInto(const RangeList& a, const RangeList& b, RangeList& out) {
    out.clear();
    std::size_t ia = 0, ib = 0;
    while (ia < a.size() || ib < b.size()) {
        const bool takeA = ib == b.size() || (ia < a.size() && a[ia].begin <= b[ib].begin);
        const ColumnRange& next = takeA ? a[ia++] : b[ib++];
        if (!out.empty() && next.begin <= out.back().end)
            out.back().end = std::max(out.back().end, next.end);
        else
            out.push_back(next);
    }
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

void complementInto(const RangeList& a, std::int64_t n, RangeList& out) {
    out.clear();
    std::int64_t next = 0;
    for (const auto& r : a) {
        if (r.begin > next) out.push_back({next, r.begin});
        next = r.end;
    }
    if (next < n) out.push_back({next, n});
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
