#pragma once

#include "core/patterns/pattern.h"

#include <cstdint>
#include <vector>

namespace attnlab {

// Decoding one token at a time through a causal pattern: while a layer computes query row `step`, its KV
// cache must hold every key j ≤ step that row `step` or a later row of the pattern attends to, and no
// other: a key j < step outside that set has been evicted, since no token from `step` on reads it again.
// The keys held, as sorted, disjoint, non-touching ranges within [0, step]. `step` must be in [0, n).
std::vector<ColumnRange> cachedKeysAt(const Pattern& pattern, std::int64_t step);

} // namespace attnlab
