#include "core/kernels/block_plan.h"
#include "core/jobs/recent_values.h"
#include "core/kernels/row_group.h"
#include "core/patterns/range_algebra.h"

#include <algorithm>
#include <cstdlib>
#include <limits>
#include <utility>

namespace attnlab {

namespace {

// One block's rows as ranges of slots: slot s is the s-th position of the union of the rows' ranges.
struct BlockScratch {
    std::vector<ColumnRange> row;    // one row's ranges as the pass writes them
    std::vector<ColumnRange> ranges; // every row's ranges, row r at [rowStart[r], rowStart[r + 1])
    std::vector<std::size_t> rowStart;
    std::vector<ColumnRange> runs;     // the union of the ranges as disjoint runs, in slot order
    std::vector<std::int64_t> runSlot; // slot of each run's first position
    std::vector<ColumnRange> slotRuns;
    std::vector<std::int64_t> firstRow;
    std::vector<std::size_t> order;
    std::vector<std::size_t> cursor; // per row: first range that may reach the current piece
};

void collectRanges(const PassSpec& pass, const std::int64_t* rows, std::int64_t count, BlockScratch& s) {
    s.ranges.clear();
    s.rowStart.assign(1, 0);
    for (std::int64_t r = 0; r < count; ++r) {
        s.row.clear(); // patterns may merge a new range into the vector's last one
        if (pass.ranges) pass.ranges(rows[r], s.row);
        for (const ColumnRange& range : s.row)
            if (range.size() > 0) s.ranges.push_back(range);
        s.rowStart.push_back(s.ranges.size());
    }
    s.runs = s.ranges;
    std::sort(s.runs.begin(), s.runs.end(),
              [](const ColumnRange& x, const ColumnRange& y) { return x.begin < y.begin; });
    std::size_t kept = 0;
    for (const ColumnRange& range : s.runs) {
        if (kept > 0 && range.begin <= s.runs[kept - 1].end)
            s.runs[kept - 1].end = std::max(s.runs[kept - 1].end, range.end);
        else
            s.runs[kept++] = range;
    }
    s.runs.resize(kept);
    // Slots follow the runs by the first row that uses them, then by position: columns that only a
    // few rows use (random keys, other buckets) sit next to those rows' other columns, so that the
    // kernel's tiles over a piece reach few rows and its rows few keys.
    s.firstRow.assign(kept, count);
    auto runOf = [&s](std::int64_t position) {
        return static_cast<std::size_t>(
            std::upper_bound(s.runs.begin(), s.runs.end(), position,
                             [](std::int64_t x, const ColumnRange& r) { return x < r.begin; }) -
            s.runs.begin() - 1);
    };
    for (std::int64_t r = 0; r < count; ++r)
        for (std::size_t idx = s.rowStart[static_cast<std::size_t>(r)];
             idx < s.rowStart[static_cast<std::size_t>(r) + 1]; ++idx)
            s.firstRow[runOf(s.ranges[idx].begin)] = std::min(s.firstRow[runOf(s.ranges[idx].begin)], r);
    s.order.resize(kept);
    for (std::size_t k = 0; k < kept; ++k)
        s.order[k] = k;
    if (!pass.consecutiveOnly)
        std::stable_sort(s.order.begin(), s.order.end(),
                         [&s](std::size_t x, std::size_t y) { return s.firstRow[x] < s.firstRow[y]; });
    std::vector<std::int64_t>& slotOfRun = s.firstRow; // reused: slot of each run (runs by position)
    std::int64_t slot = 0;
    s.slotRuns.resize(kept);
    s.runSlot.resize(kept);
    for (std::size_t k = 0; k < kept; ++k) {
        slotOfRun[s.order[k]] = slot;
        s.slotRuns[k] = s.runs[s.order[k]];
        s.runSlot[k] = slot;
        slot += s.slotRuns[k].size();
    }
    // Ranges become slot ranges (each lies inside one run), sorted by slot within each row.
    for (ColumnRange& range : s.ranges) {
        const std::size_t run = runOf(range.begin);
        const std::int64_t shift = slotOfRun[run] - s.runs[run].begin;
        range = {range.begin + shift, range.end + shift};
    }
    for (std::int64_t r = 0; r < count; ++r)
        std::sort(s.ranges.begin() + static_cast<std::ptrdiff_t>(s.rowStart[static_cast<std::size_t>(r)]),
                  s.ranges.begin() + static_cast<std::ptrdiff_t>(s.rowStart[static_cast<std::size_t>(r) + 1]),
                  [](const ColumnRange& x, const ColumnRange& y) { return x.begin < y.begin; });
    s.runs.swap(s.slotRuns); // from here on, runs in slot order
}

// Cells of row r inside slots [from, to), advancing the row's cursor past ranges that end before.
std::int64_t coveredSlots(BlockScratch& s, std::size_t r, std::int64_t from, std::int64_t to) {
    std::size_t idx = s.cursor[r];
    const std::size_t last = s.rowStart[r + 1];
    while (idx < last && s.ranges[idx].end <= from)
        ++idx;
    s.cursor[r] = idx;
    std::int64_t covered = 0;
    for (; idx < last && s.ranges[idx].begin < to; ++idx)
        covered += std::min(to, s.ranges[idx].end) - std::max(from, s.ranges[idx].begin);
    return covered;
}

// Key columns of slots [from, to): consecutive when they lie in one run of an unpermuted pass.
void placeColumns(BlockPlan& plan, const BlockScratch& s, std::int64_t permutationBase, std::int64_t from,
                  std::int64_t to, PlanPiece& piece) {
    auto run = std::upper_bound(s.runSlot.begin(), s.runSlot.end(), from) - s.runSlot.begin() - 1;
    const auto k = static_cast<std::size_t>(run);
    const std::int64_t position = s.runs[k].begin + (from - s.runSlot[k]);
    if (to - s.runSlot[k] <= s.runs[k].size()) { // one run
        piece.consecutive = permutationBase < 0;
        piece.first = piece.consecutive ? position : permutationBase + position;
        return;
    }
    piece.consecutive = false;
    piece.first = static_cast<std::int64_t>(plan.columns.size());
    for (std::size_t j = k; j < s.runs.size() && s.runSlot[j] < to; ++j) {
        const std::int64_t begin = s.runs[j].begin + std::max<std::int64_t>(0, from - s.runSlot[j]);
        const std::int64_t end = s.runs[j].begin + std::min(s.runs[j].size(), to - s.runSlot[j]);
        for (std::int64_t p = begin; p < end; ++p)
            plan.columns.push_back(
                permutationBase < 0 ? p : plan.columns[static_cast<std::size_t>(permutationBase + p)]);
    }
}

void appendPiece(BlockPlan& plan, BlockScratch& s, std::int64_t rows, std::int64_t permutationBase,
                 std::int64_t from, std::int64_t to) {
    PlanPiece piece;
    piece.count = static_cast<std::int32_t>(to - from);
    bool full = true;
    std::vector<std::size_t> start(s.cursor.begin(), s.cursor.end());
    for (std::int64_t r = 0; r < rows; ++r)
        if (coveredSlots(s, static_cast<std::size_t>(r), from, to) != to - from) full = false;
    if (!full) {
        piece.mask = static_cast<std::int64_t>(plan.masks.size());
        plan.masks.resize(plan.masks.size() + static_cast<std::size_t>(to - from), 0);
        std::uint64_t* words = plan.masks.data() + piece.mask - from;
        for (std::int64_t r = 0; r < rows; ++r) {
            const std::size_t last = s.rowStart[static_cast<std::size_t>(r) + 1];
            for (std::size_t idx = s.cursor[static_cast<std::size_t>(r)];
                 idx < last && s.ranges[idx].begin < to; ++idx)
                for (std::int64_t slot = std::max(from, s.ranges[idx].begin);
                     slot < std::min(to, s.ranges[idx].end); ++slot)
                    words[slot] |= std::uint64_t{1} << r;
        }
    }
    placeColumns(plan, s, permutationBase, from, to, piece);
    plan.pieces.push_back(piece);
}

// Each row's row-wise columns stored once, then cut into pieces of at most kPlanKeyBlock per row.
void appendRowWisePieces(BlockPlan& plan, const PassSpec& pass, std::int64_t permutationBase,
                         const std::int64_t* rowIds, std::int64_t rows, BlockScratch& s) {
    std::vector<ColumnRange>& lists = s.slotRuns; // reused: each row's [begin, end) in plan.columns
    lists.clear();
    std::int64_t longest = 0;
    bool far = false;
    for (std::int64_t r = 0; r < rows; ++r) {
        s.row.clear();
        pass.rowWise(rowIds[r], s.row);
        const auto begin = static_cast<std::int64_t>(plan.columns.size());
        for (const ColumnRange& range : s.row)
            for (std::int64_t p = range.begin; p < range.end; ++p)
                plan.columns.push_back(
                    permutationBase < 0 ? p : plan.columns[static_cast<std::size_t>(permutationBase + p)]);
        std::sort(plan.columns.begin() + begin, plan.columns.end());
        lists.push_back({begin, static_cast<std::int64_t>(plan.columns.size())});
        for (std::int64_t c = 0; c < lists.back().size() && !far; ++c)
            far = tile::farColumn(plan.columns.data() + begin, lists.back().size(), c, rowIds[r]);
        longest = std::max(longest, lists.back().size());
    }
    for (std::int64_t from = 0; from < longest; from += kPlanKeyBlock) {
        PlanPiece piece;
        piece.rowWise = true;
        piece.farColumns = far;
        piece.first = static_cast<std::int64_t>(plan.rowSpans.size());
        piece.count = static_cast<std::int32_t>(std::min(kPlanKeyBlock, longest - from));
        for (const ColumnRange& list : lists)
            plan.rowSpans.push_back({std::min(list.end, list.begin + from),
                                     std::min(list.end, list.begin + from + kPlanKeyBlock)});
        plan.pieces.push_back(piece);
    }
}

// The slots every row of the block sees, when each row sees one run of slots (else empty).
ColumnRange sharedSlots(const BlockScratch& s, std::int64_t rows) {
    ColumnRange shared{0, std::numeric_limits<std::int64_t>::max()};
    for (std::int64_t r = 0; r < rows; ++r) {
        const std::size_t first = s.rowStart[static_cast<std::size_t>(r)],
                          last = s.rowStart[static_cast<std::size_t>(r) + 1];
        if (last != first + 1) return {};
        shared = {std::max(shared.begin, s.ranges[first].begin), std::min(shared.end, s.ranges[first].end)};
    }
    return shared.end > shared.begin ? shared : ColumnRange{};
}

void appendBlock(BlockPlan& plan, const PassSpec& pass, std::int64_t permutationBase, std::int64_t offset,
                 std::int64_t rows, BlockScratch& s) {
    const std::int64_t* rowIds = pass.order->rows.data() + offset;
    collectRanges(pass, rowIds, rows, s);
    PlanBlock block;
    block.rowOffset = static_cast<std::int64_t>(plan.rows.size());
    block.rowCount = static_cast<std::int32_t>(rows);
    block.consecutiveRows = rowIds[rows - 1] - rowIds[0] == rows - 1;
    for (std::int64_t r = 1; r < rows && block.consecutiveRows; ++r)
        block.consecutiveRows = rowIds[r] == rowIds[r - 1] + 1;
    block.resume = pass.resume;
    block.finish = pass.finish;
    block.pieceBegin = static_cast<std::int64_t>(plan.pieces.size());
    plan.rows.insert(plan.rows.end(), rowIds, rowIds + rows);
    s.cursor.assign(s.rowStart.begin(), s.rowStart.begin() + rows);
    const std::int64_t slots = s.runs.empty() ? 0 : s.runSlot.back() + s.runs.back().size();
    // Pieces of equal width (a multiple of the kernel's 6-key tiles) over the slots, or over each run
    // when pieces must stay consecutive, rather than full pieces and a thin remainder.
    auto cut = [&](std::int64_t begin, std::int64_t end) {
        const std::int64_t pieces = (end - begin + kPlanKeyBlock - 1) / kPlanKeyBlock;
        const std::int64_t width = std::min(kPlanKeyBlock, ((end - begin + pieces - 1) / pieces + 5) / 6 * 6);
        for (std::int64_t from = begin; from < end; from += width)
            appendPiece(plan, s, rows, permutationBase, from, std::min(end, from + width));
    };
    // The slots every row sees (below a causal diagonal, inside a band) are cut apart from the partial
    // ones beside them, so that their pieces need no mask; partial edges thinner than kMinPartial stay
    // in the neighbouring piece rather than make a piece of a few keys.
    constexpr std::int64_t kMinPartial = 12;
    const ColumnRange shared = sharedSlots(s, rows);
    auto cutAroundShared = [&](std::int64_t begin, std::int64_t end) {
        std::int64_t from = std::max(begin, shared.begin), to = std::min(end, shared.end);
        if (to - from < kMinPartial) return cut(begin, end);
        if (from - begin < kMinPartial) from = begin;
        if (end - to < kMinPartial) to = end;
        if (begin < from) cut(begin, from);
        cut(from, to);
        if (to < end) cut(to, end);
    };
    if (pass.consecutiveOnly)
        for (std::size_t run = 0; run < s.runs.size(); ++run)
            cutAroundShared(s.runSlot[run], s.runSlot[run] + s.runs[run].size());
    else if (slots > 0)
        cutAroundShared(0, slots);
    if (pass.rowWise) appendRowWisePieces(plan, pass, permutationBase, rowIds, rows, s);
    block.pieceEnd = static_cast<std::int64_t>(plan.pieces.size());
    plan.blocks.push_back(block);
}

// Blocks whose key sweeps have at least this many pieces (about 1 MiB of K and V at d = 64, half a
// core's L2 here) are paired when they sweep the same keys: shorter sweeps stay cached for the next block.
constexpr std::int64_t kPairedSweepPieces = 16;

// Whether two blocks sweep about the same keys in the same order: shared pieces only, as many (± 1),
// the p-th pieces of both starting within a piece of each other.
bool sweepSameKeys(const BlockPlan& plan, const PlanBlock& a, const PlanBlock& b) {
    const std::int64_t pieces = std::min(a.pieceEnd - a.pieceBegin, b.pieceEnd - b.pieceBegin);
    if (pieces < kPairedSweepPieces ||
        std::max(a.pieceEnd - a.pieceBegin, b.pieceEnd - b.pieceBegin) > pieces + 1)
        return false;
    for (std::int64_t p = 0; p < pieces; ++p) {
        const PlanPiece& x = plan.pieces[static_cast<std::size_t>(a.pieceBegin + p)];
        const PlanPiece& y = plan.pieces[static_cast<std::size_t>(b.pieceBegin + p)];
        if (x.rowWise || y.rowWise || std::abs(plan.column(x, 0) - plan.column(y, 0)) >= kPlanKeyBlock)
            return false;
    }
    return true;
}

// Pairs consecutive blocks [first, end) of one pass that sweep the same keys (PlanBlock::pairedWithNext).
void pairBlocks(BlockPlan& plan, std::size_t first) {
    for (std::size_t b = first; b + 1 < plan.blocks.size(); ++b)
        if (sweepSameKeys(plan, plan.blocks[b], plan.blocks[b + 1])) plan.blocks[b++].pairedWithNext = true;
}

// Rows in blocks of their own (at most 64 rows each) over all their ranges, paired where they sweep the same
// keys.
void appendOwnBlocks(BlockPlan& plan, const PassSpec& pass, const PlanRowOrder& order,
                     std::int64_t permutationBase, BlockScratch& scratch) {
    const std::size_t first = plan.blocks.size();
    PassSpec own;
    own.order = &order;
    own.ranges = pass.ranges;
    own.consecutiveOnly = pass.consecutiveOnly;
    const auto count = static_cast<std::int64_t>(order.rows.size());
    for (std::int64_t offset = 0; offset < count; offset += kPlanQueryBlock)
        appendBlock(plan, own, permutationBase, offset, std::min(kPlanQueryBlock, count - offset), scratch);
    pairBlocks(plan, first);
}

// Moves blocks [firstChunk, end) of the plan (chunk c ending at position chunkEnds[c] of n) among the pass's
// blocks [firstBlock, firstChunk): a chunk goes after the first chunkEnds[c]/n of them, where their rows
// have just read its keys, never between a pair.
void interleaveChunks(BlockPlan& plan, std::size_t firstBlock, std::size_t firstChunk,
                      const std::vector<std::int64_t>& chunkEnds) {
    std::vector<PlanBlock> merged;
    merged.reserve(plan.blocks.size() - firstBlock);
    const auto passBlocks = static_cast<std::int64_t>(firstChunk - firstBlock);
    std::size_t chunk = 0;
    for (std::int64_t b = 0; b <= passBlocks; ++b) {
        const PlanBlock* previous =
            b > 0 ? &plan.blocks[firstBlock + static_cast<std::size_t>(b) - 1] : nullptr;
        const bool betweenPair = previous && b < passBlocks && previous->pairedWithNext;
        while (chunk < chunkEnds.size() &&
               (b == passBlocks || (!betweenPair && chunkEnds[chunk] * passBlocks <= b * plan.n)))
            merged.push_back(plan.blocks[firstChunk + chunk++]);
        if (b < passBlocks) merged.push_back(plan.blocks[firstBlock + static_cast<std::size_t>(b)]);
    }
    std::copy(merged.begin(), merged.end(), plan.blocks.begin() + static_cast<std::ptrdiff_t>(firstBlock));
}

// Positions per chunk of a split row: kSplitChunkPositions, more where n needs over kMaxSplitChunks of them.
std::int64_t splitChunkPositions(std::int64_t n) {
    return std::max(kSplitChunkPositions, (n + kMaxSplitChunks - 1) / kMaxSplitChunks);
}

// The pass's split rows (PassSpec::splitRows), after its blocks [firstBlock, end): chunks of their positions
// up to the last one they see, one block each (kMaxSplitRows rows fit one), moved among the pass's blocks.
// The slots stay a small part of the output (at most kMaxSplitRows · kMaxSplitChunks rows, and n/16 + 64):
// more rows than a block holds go to blocks of their own instead, as do rows whose keys make one chunk.
void appendSplitRows(BlockPlan& plan, const PassSpec& pass, std::int64_t permutationBase,
                     std::size_t firstBlock, BlockScratch& scratch) {
    static_assert(kMaxSplitRows <= kPlanQueryBlock, "one block per chunk");
    const std::vector<std::int64_t>& rows = *pass.splitRows;
    const auto count = static_cast<std::int64_t>(rows.size());
    const PlanRowOrder order{rows, {count}};
    RangeList all, shared, rowWise, merged;
    // The rows' row-wise columns join their shared ones: a chunk or a block of split rows is all theirs.
    PassSpec whole = pass;
    whole.rowWise = nullptr;
    if (pass.rowWise)
        whole.ranges = [&](std::int64_t i, std::vector<ColumnRange>& out) {
            shared.clear();
            rowWise.clear();
            pass.ranges(i, shared);
            pass.rowWise(i, rowWise);
            unionInto(shared, rowWise, merged);
            out.insert(out.end(), merged.begin(), merged.end());
        };
    std::int64_t seen = 0; // one past the last position any of the rows sees
    for (const std::int64_t i : rows) {
        all.clear();
        whole.ranges(i, all);
        for (const ColumnRange& range : all)
            seen = std::max(seen, range.end);
    }
    const std::int64_t slots = splitRowSlots(plan.n, count, seen);
    if (slots == 0) {
        appendOwnBlocks(plan, whole, order, permutationBase, scratch);
        return;
    }
    const std::int64_t chunks = slots / count, positions = splitChunkPositions(plan.n);
    SplitRows split{plan.passEnd.size(), rows, plan.partialSlots, chunks};
    plan.partialSlots += chunks * count;
    std::int64_t begin = 0, end = 0;
    PassSpec chunkPass;
    chunkPass.order = &order;
    chunkPass.consecutiveOnly = pass.consecutiveOnly;
    chunkPass.ranges = [&](std::int64_t i, std::vector<ColumnRange>& out) {
        all.clear();
        whole.ranges(i, all);
        for (const ColumnRange& range : all)
            if (std::max(range.begin, begin) < std::min(range.end, end))
                out.push_back({std::max(range.begin, begin), std::min(range.end, end)});
    };
    const std::size_t firstChunk = plan.blocks.size();
    std::vector<std::int64_t> chunkEnds;
    for (std::int64_t c = 0; c < chunks; ++c) {
        begin = c * positions;
        end = std::min(seen, begin + positions);
        appendBlock(plan, chunkPass, permutationBase, 0, count, scratch);
        plan.blocks.back().partialSlot = split.firstSlot + c * count;
        chunkEnds.push_back(end);
    }
    interleaveChunks(plan, firstBlock, firstChunk, chunkEnds);
    plan.splits.push_back(std::move(split));
}

} // namespace

std::int64_t splitRowSlots(std::int64_t n, std::int64_t rows, std::int64_t seen) {
    const std::int64_t positions = splitChunkPositions(n), chunks = (seen + positions - 1) / positions;
    return rows > kMaxSplitRows || chunks <= 1 ? 0 : rows * chunks;
}

void appendPass(BlockPlan& plan, const PassSpec& pass) {
    const std::size_t firstBlock = plan.blocks.size();
    std::int64_t permutationBase = -1;
    if (pass.columnOrder) {
        permutationBase = static_cast<std::int64_t>(plan.columns.size());
        plan.columns.insert(plan.columns.end(), pass.columnOrder->begin(), pass.columnOrder->end());
    }
    BlockScratch scratch;
    std::int64_t segmentBegin = 0;
    for (const std::int64_t segmentEnd : pass.order->segmentEnds) {
        for (std::int64_t offset = segmentBegin; offset < segmentEnd; offset += pass.blockRows)
            appendBlock(plan, pass, permutationBase, offset, std::min(pass.blockRows, segmentEnd - offset),
                        scratch);
        segmentBegin = segmentEnd;
    }
    pairBlocks(plan, firstBlock);
    if (pass.splitRows && !pass.splitRows->empty())
        appendSplitRows(plan, pass, permutationBase, firstBlock, scratch);
    plan.passEnd.push_back(static_cast<std::int64_t>(plan.blocks.size()));
}

PlanRowOrder residueOrder(std::int64_t n, std::int64_t period) {
    PlanRowOrder order;
    order.rows.reserve(static_cast<std::size_t>(n));
    for (std::int64_t a = 0; a < std::min(period, n); ++a) {
        for (std::int64_t i = a; i < n; i += period)
            order.rows.push_back(i);
        order.segmentEnds.push_back(static_cast<std::int64_t>(order.rows.size()));
    }
    return order;
}

std::int64_t residuePosition(std::int64_t i, std::int64_t n, std::int64_t period) {
    const std::int64_t a = i % period;
    return a * (n / period) + std::min(a, n % period) + i / period;
}

std::shared_ptr<const BlockPlan> cachedPlan(const std::string& key, const PlanBuilder& build) {
    return recentValue<BlockPlan, 8>(key, build);
}

std::string planKey(const std::string& kind, std::int64_t n, bool causal, const ParamSet& params) {
    std::string key = kind + " n=" + std::to_string(n) + (causal ? " causal" : "");
    for (const auto& [name, value] : params.values())
        key += " " + name + "=" + paramValueText(value);
    return key;
}

} // namespace attnlab
