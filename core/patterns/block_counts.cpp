#include "core/patterns/block_counts.h"

#include "core/patterns/block_grid_pattern.h"
#include "core/patterns/range_work.h"

#include <algorithm>
#include <stdexcept>
#include <utility>
#include <vector>

namespace attnlab {

double BlockCounts::blockDensity() const {
    const std::int64_t blocks = full + partial + empty;
    return blocks > 0 ? static_cast<double>(full + partial) / static_cast<double>(blocks) : 0.0;
}

namespace {

// One row of blocks (h rows): each row's ranges become cells added to the block at either end of the
// range (`edges`) and, between them, whole blocks covered by one more row (`cover`, +1 from a block, −1
// from a later one). Sweeping both in block order classifies runs of blocks of equal coverage at once.
class BlockRowSweep {
public:
    BlockRowSweep(std::int64_t n, std::int64_t block, std::int64_t blocks, BlockCounts& counts, const BlockRunVisitor& visit)
        : m_n(n), m_block(block), m_blocks(blocks), m_counts(counts), m_visit(visit) {}

    // One row's sorted ranges; returns its cells. A row with many ranges (stride(2): n / 2) goes straight
    // into per-block sums, walking the blocks along the row instead of dividing and listing every range.
    std::int64_t addRow(const std::vector<ColumnRange>& row) {
        std::int64_t cells = 0;
        if (static_cast<std::int64_t>(row.size()) < m_blocks / 4) {
            for (const ColumnRange& range : row)
                if (range.size() > 0) {
                    cells += range.size();
                    add(range);
                }
            return cells;
        }
        startDense();
        std::int64_t block = 0, blockEnd = std::min(m_n, m_block);
        for (const ColumnRange& range : row) {
            if (range.size() <= 0) continue;
            cells += range.size();
            while (range.begin >= blockEnd) blockEnd = std::min(m_n, ++block * m_block + m_block);
            if (range.end <= blockEnd) {
                m_blockCells[static_cast<std::size_t>(block)] += range.size();
                continue;
            }
            const std::int64_t last = (range.end - 1) / m_block;
            m_blockCells[static_cast<std::size_t>(block)] += blockEnd - range.begin;
            m_blockCells[static_cast<std::size_t>(last)] += range.end - last * m_block;
            ++m_coverChange[static_cast<std::size_t>(block + 1)];
            --m_coverChange[static_cast<std::size_t>(last)];
            block = last;
            blockEnd = std::min(m_n, last * m_block + m_block);
        }
        return cells;
    }

    // One row's strided ranges; returns its cells. Each adds its closed-form count to every block it spans,
    // or one cell per column when it has fewer columns than it spans blocks.
    std::int64_t addStrides(const std::vector<StridedRange>& row) {
        startDense();
        std::int64_t cells = 0;
        for (const StridedRange& range : row) {
            const std::int64_t columns = range.columns();
            cells += columns;
            const std::int64_t first = range.begin / m_block, last = (range.end - 1) / m_block;
            if (columns <= last - first + 1) {
                for (std::int64_t k = 0; k < columns; ++k) ++m_blockCells[static_cast<std::size_t>((range.begin + k * range.step) / m_block)];
                continue;
            }
            for (std::int64_t block = first; block <= last; ++block)
                m_blockCells[static_cast<std::size_t>(block)] += range.countIn(block * m_block, std::min(m_n, block * m_block + m_block));
        }
        return cells;
    }

    void add(const ColumnRange& range) {
        const std::int64_t first = range.begin / m_block, last = (range.end - 1) / m_block;
        if (first == last) {
            m_edges.push_back({first, range.size()});
            return;
        }
        m_edges.push_back({first, (first + 1) * m_block - range.begin});
        m_edges.push_back({last, range.end - last * m_block});
        if (last > first + 1) {
            m_cover.push_back({first + 1, 1});
            m_cover.push_back({last, -1});
        }
    }

    // Classifies blocks [0, blocks) of block row `row`, of `rows` rows, and clears the row.
    void finish(std::int64_t row, std::int64_t rows, std::int64_t blocks) {
        m_row = row;
        // Rows with many ranges (stride(2): n / 2 each) have more edges than the row has blocks: then
        // adding them up per block is linear where sorting them is not.
        if (m_dense || m_edges.size() + m_cover.size() >= static_cast<std::size_t>(blocks) / 4) finishDense(rows, blocks);
        else finishSorted(rows, blocks);
        m_edges.clear();
        m_cover.clear();
        m_dense = false;
    }

private:
    // Zeroes the per-block sums for this row of blocks, once.
    void startDense() {
        if (m_dense) return;
        m_blockCells.assign(static_cast<std::size_t>(m_blocks), 0);
        m_coverChange.assign(static_cast<std::size_t>(m_blocks) + 1, 0);
        m_dense = true;
    }

    void finishSorted(std::int64_t rows, std::int64_t blocks) {
        std::sort(m_edges.begin(), m_edges.end());
        std::sort(m_cover.begin(), m_cover.end());
        std::size_t e = 0, c = 0;
        std::int64_t next = 0, coverage = 0;
        while (e < m_edges.size() || c < m_cover.size()) {
            const std::int64_t at = std::min(e < m_edges.size() ? m_edges[e].first : blocks, c < m_cover.size() ? m_cover[c].first : blocks);
            classifyRun(rows, next, at, coverage);
            for (; c < m_cover.size() && m_cover[c].first == at; ++c) coverage += m_cover[c].second;
            next = at;
            if (e < m_edges.size() && m_edges[e].first == at) {
                std::int64_t cells = coverage * width(at, at + 1);
                for (; e < m_edges.size() && m_edges[e].first == at; ++e) cells += m_edges[e].second;
                classifyBlock(rows, at, cells);
                next = at + 1;
            }
        }
        classifyRun(rows, next, blocks, coverage);
    }

    // Every block's cells from per-block sums of the edges and the coverage changes, then runs of blocks
    // of one class recorded together.
    void finishDense(std::int64_t rows, std::int64_t blocks) {
        startDense();
        for (const auto& [block, cells] : m_edges) m_blockCells[static_cast<std::size_t>(block)] += cells;
        for (const auto& [block, change] : m_cover) m_coverChange[static_cast<std::size_t>(block)] += change;
        std::int64_t coverage = 0, runStart = 0, runComputed = 0;
        BlockClass runKind = BlockClass::Empty;
        for (std::int64_t block = 0; block < blocks; ++block) {
            coverage += m_coverChange[static_cast<std::size_t>(block)];
            const std::int64_t area = rows * width(block, block + 1);
            const std::int64_t cells = coverage * width(block, block + 1) + m_blockCells[static_cast<std::size_t>(block)];
            const BlockClass kind = cells == 0 ? BlockClass::Empty : cells == area ? BlockClass::Full : BlockClass::Partial;
            if (kind != runKind && block > runStart) {
                record(runKind, runStart, block, runComputed);
                runStart = block;
                runComputed = 0;
            }
            runKind = kind;
            runComputed += cells == 0 ? 0 : area;
        }
        record(runKind, runStart, blocks, runComputed);
    }

    // Columns of blocks [first, last).
    std::int64_t width(std::int64_t first, std::int64_t last) const { return std::min(m_n, last * m_block) - first * m_block; }

    void classifyRun(std::int64_t rows, std::int64_t first, std::int64_t last, std::int64_t coverage) {
        if (first >= last) return;
        const BlockClass kind = coverage == 0 ? BlockClass::Empty : coverage == rows ? BlockClass::Full : BlockClass::Partial;
        record(kind, first, last, coverage == 0 ? 0 : rows * width(first, last));
    }

    void classifyBlock(std::int64_t rows, std::int64_t block, std::int64_t cells) {
        const std::int64_t area = rows * width(block, block + 1);
        const BlockClass kind = cells == 0 ? BlockClass::Empty : cells == area ? BlockClass::Full : BlockClass::Partial;
        record(kind, block, block + 1, cells == 0 ? 0 : area);
    }

    void record(BlockClass kind, std::int64_t first, std::int64_t last, std::int64_t computed) {
        (kind == BlockClass::Empty ? m_counts.empty : kind == BlockClass::Full ? m_counts.full : m_counts.partial) += last - first;
        m_counts.computedCells += computed;
        if (m_visit) m_visit(m_row, first, last, kind);
    }

    std::int64_t m_n, m_block, m_blocks;
    BlockCounts& m_counts;
    const BlockRunVisitor& m_visit;
    std::int64_t m_row = 0;
    std::vector<std::pair<std::int64_t, std::int64_t>> m_edges; // (block, cells)
    std::vector<std::pair<std::int64_t, std::int64_t>> m_cover; // (block, change of coverage)
    std::vector<std::int64_t> m_blockCells, m_coverChange;      // per block, for rows with many ranges
    bool m_dense = false;                                       // they hold this row of blocks' sums
};

} // namespace

BlockCounts countBlocks(const Pattern& pattern, std::int64_t blockSize, const BlockRunVisitor& visit) {
    if (blockSize < 1) throw std::invalid_argument("block size must be at least 1");
    BlockCounts counts;
    counts.size = blockSize;
    const std::int64_t n = pattern.size();
    if (n < 1) return counts;
    requireRangeWork(pattern);
    const RangeWorkLimit limit(jobRangeLimit());
    const std::int64_t blocks = blockCount(n, blockSize);
    BlockRowSweep sweep(n, blockSize, blocks, counts, visit);
    std::vector<ColumnRange> row;
    std::vector<StridedRange> strides;
    for (std::int64_t first = 0; first < n; first += std::min(blockSize, n - first)) {
        const std::int64_t last = first + std::min(blockSize, n - first);
        for (std::int64_t i = first; i < last; ++i) {
            strides.clear();
            if (pattern.rowStrides(i, strides)) {
                counts.allowedCells += sweep.addStrides(strides);
                continue;
            }
            row.clear();
            pattern.rowRanges(i, row);
            counts.allowedCells += sweep.addRow(row);
        }
        sweep.finish(first / blockSize, last - first, blocks);
        if (last == n) break;
    }
    return counts;
}

} // namespace attnlab
