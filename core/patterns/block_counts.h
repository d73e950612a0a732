#pragma once

#include "core/patterns/pattern.h"

#include <cstdint>
#include <functional>

namespace attnlab {

// What a block kernel computes of a pattern: its n × n plane cut into B × B blocks over sequence
// positions (the last row and column of blocks may be smaller). A block is empty (no allowed cell),
// full (every cell allowed) or partial; a block kernel computes every cell of every non-empty block.
struct BlockCounts {
    std::int64_t size = 0;
    std::int64_t full = 0;
    std::int64_t partial = 0;
    std::int64_t empty = 0;
    std::int64_t computedCells = 0; // the area of every non-empty block
    std::int64_t allowedCells = 0;  // nnz
    // Non-empty blocks over all blocks.
    double blockDensity() const;
};

enum class BlockClass : std::uint8_t { Empty, Partial, Full };
// Blocks [first, last) of block row `row` are all of one class; calls come row by row, left to right,
// and together cover every block.
using BlockRunVisitor = std::function<void(std::int64_t row, std::int64_t first, std::int64_t last, BlockClass)>;

// Counts from the row ranges in O(ranges · log ranges), never an n × n or ⌈n/B⌉² buffer (`visit`, when
// given, is called once per run of blocks of one class: O(ranges) calls). Throws std::invalid_argument
// for blockSize < 1, and RangeWorkExceeded when the rows' ranges pass the job's range limit (estimated
// first by requireRangeWork, core/patterns/range_work.h).
BlockCounts countBlocks(const Pattern& pattern, std::int64_t blockSize, const BlockRunVisitor& visit = {});

} // namespace attnlab
