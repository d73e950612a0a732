#pragma once

// Which columns of a generic plan's blocks run row-wise (genericBlockPlan): columns that few rows of a
// block see (random keys, a lone diagonal, a thin band), or every column of a block of narrow rows that
// shared pieces would compute at a multiple of its cells.

#include "core/kernels/block_plan.h"
#include "core/patterns/range_algebra.h"

#include <cstdint>
#include <vector>

namespace attnlab {

// Per block of `order` (blockRows rows at a time within each segment, as appendPass forms them) that runs
// all its columns row-wise, or (with `scattered`) has enough scattered columns, those columns in
// columns[k]; blockOf[i] indexes row i's entry, or is −1. Blocks of a few rows run row by row anyway.
void findRowWiseColumns(const Pattern& pattern, const PlanRowOrder& order, std::int64_t blockRows, bool scattered,
                        std::vector<RangeList>& columns, std::vector<std::int64_t>& blockOf);

} // namespace attnlab
