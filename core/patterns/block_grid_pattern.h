#pragma once

#include "core/patterns/pattern.h"

#include <memory>

namespace attnlab {

// A pattern defined on the grid of ⌈n/b⌉ × ⌈n/b⌉ blocks of b × b cells (the last row and column of
// blocks may be smaller): cell (i, j) is allowed iff block (⌊i/b⌋, ⌊j/b⌋) is allowed by `blocks` (a
// pattern of ⌈n/b⌉ rows), and with `causal` also j ≤ i. The block pattern must allow every diagonal
// block so that no row is empty. O(block ranges) memory; rows are expanded on demand.
class BlockGridPattern : public Pattern {
public:
    BlockGridPattern(std::int64_t n, std::int64_t block, bool causal, std::shared_ptr<const Pattern> blocks);
    bool allowed(std::int64_t i, std::int64_t j) const override;
    void rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const override;
    std::int64_t blockSize() const { return m_block; }
    const Pattern& blocks() const { return *m_blocks; }

private:
    std::int64_t m_block;
    bool m_causal;
    std::shared_ptr<const Pattern> m_blocks;
};

// ⌈n/b⌉ for n ≥ 1, b ≥ 1, without overflow for any b.
inline std::int64_t blockCount(std::int64_t n, std::int64_t block) { return block >= n ? 1 : (n + block - 1) / block; }

// Block ranges [B0, B1) as token ranges [B0·b, min(B1·b, n)), appended to `out` clipped to [0, limit).
void appendBlockRanges(const std::vector<ColumnRange>& blockRanges, std::int64_t block, std::int64_t limit,
                       std::vector<ColumnRange>& out);

} // namespace attnlab
