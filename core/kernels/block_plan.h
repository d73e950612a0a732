#pragma once

// Block execution plans: what the block kernel (block_attention.h) computes for one attention pattern,
// compiled once per (pattern, shape, parameters) and kept, so that a run only executes it.
//
// A plan is a list of passes; a pass is a list of query blocks that the kernel runs in parallel; a
// query block is up to 64 query rows (any rows, in any order: a permutation turns scattered structure
// into dense blocks) and its pieces. A shared piece is up to kPlanKeyBlock key columns (consecutive, or
// a slice of a stored column list) that all the block's rows are scored against, with, unless every
// cell is allowed, one 64-bit word per column whose bit r says whether row r of the block may see
// that column. A row-wise piece gives each row of the block its own list of up to kPlanKeyBlock
// columns (random keys, narrow bands): nothing is computed for a row outside its list.
//
// Contract (checked by the tests against the pattern): over all pieces of all blocks, every allowed
// cell (i, j) of the pattern is covered exactly once and no disallowed cell is covered. Within a pass
// a row belongs to at most one block. A row may appear in several passes; the kernel merges its
// pieces exactly: softmax by log-sum-exp merging of the running max, sum and unnormalised output (so
// a row whose allowed set is spread over several passes is still one softmax), relu² by adding.
// The block flags say where a row's merge starts (not `resume`) and ends (`finish`); for every row
// its first block has resume = false, its last finish = true, and every block in between has both.
// Split rows (PassSpec::splitRows) are the one exception to "one block per pass": such a row is in one
// pass only, in one chunk block per chunk of its keys (resume = false, finish = true), each writing its
// partial result to a slot of its own; the kernel merges a row's slots into its output after the pass.

#include "core/kernels/tile_math.h"
#include "core/param_schema.h"
#include "core/patterns/pattern.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace attnlab {

// Key columns per piece: one score tile of the kernel.
inline constexpr std::int64_t kPlanKeyBlock = 120;
// Query rows per block (one bit each in a mask word).
inline constexpr std::int64_t kPlanQueryBlock = 64;
// Positions per chunk of a split row (PassSpec::splitRows): 512 KiB of K and V at d = 64, which the
// blocks run just before the chunk leave in a core's L2 (1 MiB here).
inline constexpr std::int64_t kSplitChunkPositions = 1024;
// At most this many rows are split in a pass, into at most this many chunks (longer ones beyond that).
inline constexpr std::int64_t kMaxSplitRows = 64;
inline constexpr std::int64_t kMaxSplitChunks = 64;
// Rows of at most this many keys on average may run all their columns row-wise (genericBlockPlan).
inline constexpr double kRowWiseRowKeys = 28;

// Slots a pass makes of `rows` split rows (PassSpec::splitRows) that see positions up to `seen` (one
// past the last): 0 when they are not split (more than kMaxSplitRows rows, or one chunk of positions).
std::int64_t splitRowSlots(std::int64_t n, std::int64_t rows, std::int64_t seen);
// Floats of one slot: the unnormalised output padded to whole vectors, then a vector holding max and sum.
inline constexpr std::int64_t partialSlotFloats(std::int64_t dv) {
    return tile::paddedWidth(dv) + tile::kLanes;
}
// genericBlockPlan splits a row when it is much longer than the average and than a piece (global tokens).
inline bool isHeavyRow(double keys, double meanKeys) {
    return keys > std::max(8.0 * meanKeys, 2.0 * kPlanKeyBlock);
}

struct PlanPiece {
    // Shared: columns c < count are first + c when consecutive, else columns[first + c] (BlockPlan::columns).
    // Row-wise: block row r sees columns[span.begin, span.end) with span = BlockPlan::rowSpans[first + r]
    // (sorted, distinct, at most count of them; consecutive and mask unused).
    // Band: count diagonals BlockPlan::bandDiagonals[first + e] (consecutive unused, mask ≥ 0): diagonal e
    // pairs block row r with BlockPlan::bandKey(block, diagonal, r), where bit r of masks[mask + e] is set.
    std::int64_t first = 0;
    std::int32_t count = 0;
    bool consecutive = true;
    bool rowWise = false;
    // Row-wise: some row sees a far column (tile::farColumn) whose K and V rows the kernel requests ahead.
    bool farColumns = false;
    bool band = false;
    std::int64_t mask = -1; // −1: every cell allowed; else BlockPlan::masks[mask + c] for column c
};

// A block's key run of a band piece: key columns columns[first, first + count) (−1: no key, a place a
// masked lane reads), held transposed by the kernel while the block runs.
struct BandRun {
    std::int64_t first = 0;
    std::int32_t count = 0;
};

// One diagonal of a band piece: lane l (row 16g + l of the block, for every vector g) meets the key at
// place offset + l of the block's run `run` (an index among the block's runs).
struct BandDiagonal {
    std::int32_t run = 0;
    std::int32_t offset = 0;
};

// Key places of a block's band runs together, at most (bounds the kernel's transposed keys).
inline constexpr std::int64_t kMaxBandKeys = 1024;

struct PlanBlock {
    std::int64_t rowOffset = 0;   // rows are BlockPlan::rows[rowOffset, rowOffset + rowCount)
    std::int32_t rowCount = 0;    // 1 … kPlanQueryBlock
    bool consecutiveRows = false; // rows[rowOffset + r] = rows[rowOffset] + r
    bool resume = false;          // the rows carry a partial result from an earlier pass
    bool finish = true;           // the rows' results are complete after this block
    // The next block of the pass sweeps about the same keys, piece by piece: the kernel runs the two
    // together, so that each piece's K and V rows are read from memory once for both. Pairs are disjoint.
    bool pairedWithNext = false;
    std::int64_t pieceBegin = 0, pieceEnd = 0;     // BlockPlan::pieces
    std::int64_t bandRunBegin = 0, bandRunEnd = 0; // BlockPlan::bandRuns of the block's band pieces
    bool hasBand() const { return bandRunEnd > bandRunBegin; }
    // ≥ 0: a chunk of split rows; row r's partial result (unnormalised output, running max and sum) goes
    // to slot partialSlot + r instead of the output.
    std::int64_t partialSlot = -1;
};

// The split rows of one pass: row rows[k]'s partial results are in slots firstSlot + c·rows.size() + k,
// one per chunk c < chunks of positions.
struct SplitRows {
    std::size_t pass = 0;
    std::vector<std::int64_t> rows;
    std::int64_t firstSlot = 0;
    std::int64_t chunks = 0;
};

struct BlockPlan {
    std::int64_t n = 0;
    std::vector<std::int64_t> passEnd; // blocks [passEnd[p − 1], passEnd[p]) form pass p
    std::vector<PlanBlock> blocks;
    std::vector<std::int64_t> rows;
    std::vector<PlanPiece> pieces;
    std::vector<std::int64_t> columns; // stored column lists (permutations, gathered columns)
    std::vector<std::uint64_t> masks;
    std::vector<ColumnRange> rowSpans; // row-wise pieces: each row's slice of columns
    std::vector<BandRun> bandRuns;     // band pieces' key runs, per block
    std::vector<BandDiagonal> bandDiagonals;
    std::vector<SplitRows> splits;
    std::int64_t partialSlots = 0; // slots of all splits

    std::size_t passCount() const { return passEnd.size(); }
    std::int64_t passBegin(std::size_t pass) const { return pass == 0 ? 0 : passEnd[pass - 1]; }
    std::int64_t column(const PlanPiece& piece, std::int64_t c) const {
        return piece.consecutive ? piece.first + c : columns[static_cast<std::size_t>(piece.first + c)];
    }
    bool cellAllowed(const PlanPiece& piece, std::int64_t c, std::int64_t r) const {
        return piece.mask < 0 || ((masks[static_cast<std::size_t>(piece.mask + c)] >> r) & 1u) != 0;
    }
    // The key column band diagonal e of `piece` (a band piece of `block`) pairs with block row r.
    std::int64_t bandKey(const PlanBlock& block, const PlanPiece& piece, std::int64_t e,
                         std::int64_t r) const {
        const BandDiagonal& diagonal = bandDiagonals[static_cast<std::size_t>(piece.first + e)];
        const BandRun& run = bandRuns[static_cast<std::size_t>(block.bandRunBegin + diagonal.run)];
        return columns[static_cast<std::size_t>(run.first + diagonal.offset + r % tile::kLanes)];
    }
    double bytes() const;
};

// Rows listed in the order their blocks take them, cut into segments no block straddles (residue
// classes, hash buckets, the heavy rows kept apart).
struct PlanRowOrder {
    std::vector<std::int64_t> rows;
    std::vector<std::int64_t> segmentEnds; // ascending offsets into rows; the last is rows.size()
};

// Row i's allowed columns in the column order of the pass, as sorted, disjoint ranges of positions.
using PlanRowRanges = std::function<void(std::int64_t i, std::vector<ColumnRange>& out)>;

// One pass's worth of blocks for rows taken in `order`: each block's key columns are the union of its
// rows' ranges, cut into pieces of at most kPlanKeyBlock positions, so that every computed column is
// used by at least one of the block's rows. Positions map to key columns through `columnOrder`
// (empty: position = column). With `consecutiveOnly`, a piece never joins two separate runs of
// columns (relative-position scoring needs i − j affine across a piece). O(ranges + cells of the
// partial pieces / 64) time. `rowWise` (optional) gives positions each row sees through row-wise
// pieces of its block instead (disjoint from its `ranges`): for columns that no other row of the block
// shares (random keys) or bands too narrow for shared pieces to pay.
struct PassSpec {
    const PlanRowOrder* order = nullptr;
    PlanRowRanges ranges;
    PlanRowRanges rowWise;
    const std::vector<std::int64_t>* columnOrder = nullptr; // a permutation of [0, n), or null
    bool resume = false;
    bool finish = true;
    bool consecutiveOnly = false;
    std::int64_t blockRows = kPlanQueryBlock; // rows per block within a segment, at most kPlanQueryBlock
    // Rows that see far more keys than the rest (a global token's row sees every key), left out of
    // `order`, in no other pass, and neither resumed nor left unfinished. Their positions (per `ranges`)
    // are cut into chunks of kSplitChunkPositions (n / kMaxSplitChunks when that is more), each chunk
    // blocks of its own placed among the pass's blocks as far along as the chunk's end is along the
    // positions, so that they run just after the blocks that read those K and V rows, from the cache
    // instead of a second sweep of memory. Each chunk's result goes to slots (BlockPlan::splits), merged
    // after the pass (flash-decoding's split). More than kMaxSplitRows rows, or rows whose positions make
    // one chunk, fill blocks of their own. Their `rowWise` columns join their `ranges` there.
    const std::vector<std::int64_t>* splitRows = nullptr;
};
void appendPass(BlockPlan& plan, const PassSpec& pass);

// Rows per block (PassSpec::blockRows) for rows of meanKeys keys on average: fewer for narrow rows.
std::int64_t blockRowsForRowKeys(double meanKeys);

// The plan any pattern gets: one pass over rows in natural order, with rows much longer than the rest
// (global tokens) split along their keys (PassSpec::splitRows) so that they neither make their
// neighbours' blocks dense nor sweep K and V once more; rows per block by blockRowsForRowKeys.
// `consecutiveOnly` as in PassSpec (and then the rows stay in natural order, none split).
std::shared_ptr<const BlockPlan> genericBlockPlan(const Pattern& pattern, bool consecutiveOnly = false);
// Which columns of a block run row-wise (row_wise_columns.h): every column of a block that shared pieces
// would compute at a multiple of its cells, and, unless told WholeBlocksOnly, the columns that few of a
// block's rows see. In a tile of grid cells those are a neighbourhood's edges, which the tile's shared
// pieces compute for less time than row-wise pieces (docs/execution_plans.md, "Tiles of cells").
enum class RowWiseColumns { WholeBlocksAndScattered, WholeBlocksOnly };

// The generic plan's one pass over rows taken in `order` (which leaves out `heavyRows`, split along
// their keys unless consecutiveOnly), blockRows rows per block within each segment.
std::shared_ptr<const BlockPlan>
orderedBlockPlan(const Pattern& pattern, const PlanRowOrder& order,
                 const std::vector<std::int64_t>& heavyRows, std::int64_t blockRows,
                 bool consecutiveOnly = false,
                 RowWiseColumns rowWiseKind = RowWiseColumns::WholeBlocksAndScattered);
// The mean of rowCounts and which rows genericBlockPlan splits along their keys (isHeavyRow).
double meanRowKeys(const std::vector<std::int64_t>& counts);
std::vector<bool> heavyRowFlags(const std::vector<std::int64_t>& counts, double meanKeys);

// Residue-class order of [0, n) with period p: all i ≡ 0 (mod p) ascending, then i ≡ 1, …;
// segmentEnds are the class boundaries. position(i) is i's index in that order.
PlanRowOrder residueOrder(std::int64_t n, std::int64_t period);
std::int64_t residuePosition(std::int64_t i, std::int64_t n, std::int64_t period);

// Plans kept between runs: the last few used, keyed by text (kind, n, causal and every parameter).
using PlanBuilder = std::function<std::shared_ptr<const BlockPlan>()>;
std::shared_ptr<const BlockPlan> cachedPlan(const std::string& key, const PlanBuilder& build);
std::string planKey(const std::string& kind, std::int64_t n, bool causal, const ParamSet& params);

// Calls cell(i, j) for every cell a plan covers (each piece cell whose mask bit is set), for tests
// and checks: O(cells of all pieces).
void forEachPlanCell(const BlockPlan& plan, const std::function<void(std::int64_t i, std::int64_t j)>& cell);

} // namespace attnlab
