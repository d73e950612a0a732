#include "core/patterns/block_grid_pattern.h"

#include <stdexcept>

namespace attnlab {

BlockGridPattern::BlockGridPattern(std::int64_t n, std::int64_t block, bool causal, std::shared_ptr<const Pattern> blocks)
    : Pattern(n), m_block(block), m_causal(causal), m_blocks(std::move(blocks)) {
    if (block < 1 || !m_blocks || m_blocks->size() != blockCount(n, block))
        throw std::logic_error("BlockGridPattern: one block row per block of b rows");
}

bool BlockGridPattern::allowed(std::int64_t i, std::int64_t j) const {
    return (!m_causal || j <= i) && m_blocks->allowed(i / m_block, j / m_block);
}

void BlockGridPattern::rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const {
    thread_local std::vector<ColumnRange> blockRow;
    blockRow.clear();
    m_blocks->rowRanges(i / m_block, blockRow);
    appendBlockRanges(blockRow, m_block, m_causal ? i + 1 : size(), out);
}

void appendBlockRanges(const std::vector<ColumnRange>& blockRanges, std::int64_t block, std::int64_t limit,
                       std::vector<ColumnRange>& out) {
    for (const ColumnRange& range : blockRanges) {
        if (range.begin * block >= limit) break;
        appendRange(out, range.begin * block, range.end * block, limit);
    }
}

} // namespace attnlab
