#pragma once

// Set algebra on one row's allowed columns held as sorted, disjoint, non-touching half-open ranges
// (the ColumnRange lists of core/patterns/pattern.h). Every operation is a linear merge: O(|a| + |b|), no
// per-column work. Results are written to `out` (cleared first), which must not alias an input.

#include "core/patterns/pattern.h"

#include <vector>

namespace attnlab {

using RangeList = std::vector<ColumnRange>;

void unionInto(const RangeList& a, const RangeList& b, RangeList& out);
void intersectInto(const RangeList& a, const RangeList& b, RangeList& out);
// [lo, hi) minus `a`, for `a` within [lo, hi).
void complementInto(const RangeList& a, std::int64_t lo, std::int64_t hi, RangeList& out);
// The parts of `a` within [lo, hi) (binary search for the first, then a copy).
void clipInto(const RangeList& a, std::int64_t lo, std::int64_t hi, RangeList& out);
// `a` minus `b`.
void subtractInto(const RangeList& a, const RangeList& b, RangeList& out);

} // namespace attnlab
