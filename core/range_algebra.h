#pragma once

// Set algebra on one row's allowed columns held as sorted, disjoint, non-touching half-open ranges
// (the ColumnRange lists of core/pattern.h). Every operation is a linear merge: O(|a| + |b|), no
// per-column work. Results are written to `out` (cleared first), which must not alias an input.

#include "core/pattern.h"

#include <vector>

namespace attnlab {

using RangeList = std::vector<ColumnRange>;

void unionInto(const RangeList& a, const RangeList& b, RangeList& out);
void intersectInto(const RangeList& a, const RangeList& b, RangeList& out);
// [0, n) minus `a`.
void complementInto(const RangeList& a, std::int64_t n, RangeList& out);
// `a` minus `b`.
void subtractInto(const RangeList& a, const RangeList& b, RangeList& out);

} // namespace attnlab
