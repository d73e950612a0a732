#pragma once

// Internal to the block kernel (block_attention.cpp, row_pieces.cpp): one thread's workspace and what
// one query block's work needs to know.

#include "core/kernels/block_attention.h"
#include "core/kernels/block_plan.h"
#include "core/kernels/masked_attention.h"
#include "core/kernels/row_math.h"
#include "core/kernels/tile_math.h"

#include <atomic>
#include <vector>

namespace attnlab::block {

using tile::kQueryBlock;
static_assert(kQueryBlock == kPlanQueryBlock, "one mask bit per query row of a tile");

using tile::paddedWidth;
// Keys of a piece rounded up to whole vectors: rows of ws.scores.
inline constexpr std::int64_t kScoreKeys = paddedWidth(kPlanKeyBlock);

// A run of a band piece's diagonals on consecutive keys of one key run: diagonal first + e at place offset +
// e.
struct DiagonalRun {
    std::int64_t first = 0;
    std::int64_t count = 0;
    std::int32_t run = 0;
    std::int32_t offset = 0;
    std::uint64_t rows = 0; // OR of the diagonals' mask words
};

// One key run of a band block transposed ([d][paddedWidth(columns.size())]), kept for the next blocks of the
// same call and head that have the same run (the next block down a column of tiles shares most key rows).
struct BandKeySlot {
    tile::AlignedBuffer keys;
    std::uint64_t call = 0;      // runPlannedAttention call whose K it holds (0: none)
    const float* head = nullptr; // that K head
    std::vector<std::int64_t> columns;
    std::uint64_t lastUsed = 0;
};

// One thread's scratch, kept across calls (freshly mapped pages are slow to touch).
struct Workspace {
    tile::AlignedBuffer queryT;    // [d][kQueryBlock]: the block's queries transposed, times the score scale
    tile::AlignedBuffer queryRows; // [kQueryBlock][paddedWidth(d)]: the same before the transposition
    tile::AlignedBuffer scores; // [kScoreKeys][kQueryBlock]: S^T, then P^T (few rows: [row][kPlanKeyBlock])
    tile::AlignedBuffer
        rowScores; // [kQueryBlock][kScoreKeys]: a row-wise piece's scores before the transposition
    tile::AlignedBuffer output;    // [kQueryBlock][paddedWidth(dv)]: unnormalised output rows
    tile::AlignedBuffer rowStats;  // rowMax, rowSum, rescale: kQueryBlock each
    tile::AlignedBuffer relative;  // [distances][kQueryBlock]: R_p · q_r for the block's distances p
    ColumnRange relativeDistances; // the distances p held in `relative`
    std::vector<const float*> keyRows, valueRows;
    tile::PrefetchLines prefetchLines;       // the next block's lines, requested as the tiles run
    tile::PrefetchQueue prefetchQueue;
    // Band pieces (band_pieces.cpp): run k of the block transposed in bandSlots[bandRunSlot[k]], its V rows
    // by place at bandValueRows[bandRunValues[k] + place].
    std::vector<BandKeySlot> bandSlots;
    std::uint64_t bandBlocks = 0; // blocks with band pieces this thread has loaded
    tile::AlignedBuffer bandRows; // 16 K rows before their transposition
    tile::AlignedBuffer zeroRow;  // the K and V row of a place with no key
    std::vector<std::size_t> bandRunSlot;
    std::vector<std::int64_t> bandRunValues;
    std::vector<const float*> bandValueRows;
    std::vector<const float* const*> bandRunValuePointers;
    std::vector<DiagonalRun> diagonalRuns; // of the band piece being run
};
// Two per thread: a pair of blocks that share their key sweep runs in both (block_attention.cpp).
Workspace& threadWorkspace(int which);

// Where split rows' chunk blocks leave their partial results (PlanBlock::partialSlot): per head and slot,
// the unnormalised output row (paddedWidth(dv) floats), then its running max and sum.
struct PartialRows {
    float* data = nullptr;
    std::int64_t slotsPerHead = 0;
    std::int64_t stride = 0; // floats per slot
    float* slot(int head, std::int64_t s) const { return data + (head * slotsPerHead + s) * stride; }
};

// Everything one query block needs to know about the problem.
struct BlockJob {
    const AttentionInputs* inputs;
    const BlockPlan* plan;
    const PlanBlock* block;
    const MaskedScoring* scoring;
    Tensor3* out;
    float* stats; // [heads][n][2] running max and sum, or null when no row needs them
    int head;
    int kvHead;
    PartialRows partials;
    std::uint64_t call = 0; // distinct for every runPlannedAttention call (band key slots are kept per call)
    // Set by the writers of output rows when a row they store holds inf or NaN (shared by the call's jobs).
    std::atomic<bool>* nonFiniteOutput = nullptr;
    void noteStored(bool finite) const {
        if (!finite) nonFiniteOutput->store(true, std::memory_order_relaxed);
    }
    bool softmax() const { return scoring->kind == MaskedScoring::Kind::Softmax; }
    std::int64_t rows() const { return block->rowCount; }
    std::int64_t row(std::int64_t r) const {
        return plan->rows[static_cast<std::size_t>(block->rowOffset + r)];
    }
    // Sequence position of the block's row r (relative positions): its row after the earlier positions.
    std::int64_t position(std::int64_t r) const { return scoring->firstQuery + row(r); }
    // Query columns the tiles compute: the block's rows rounded up to whole vectors.
    int width() const { return static_cast<int>(tile::paddedWidth(rows())); }
    float* statsOf(std::int64_t r) const {
        return stats + 2 * (static_cast<std::int64_t>(head) * inputs->q->rows + row(r));
    }
    // Blocks this small run every piece row by row (rowDots) instead of in 16-lane query tiles.
    bool fewRows() const {
        return rows() <= tile::kSharedLoadRows && !scoring->relativePositions && !block->hasBand();
    }
};

using tile::prefetchRow;

// Head `head`'s plan: one plan for every head, or one per head.
inline const BlockPlan& planOf(const HeadPlans& plans, int head) {
    return *plans[plans.size() == 1 ? 0 : static_cast<std::size_t>(head)];
}

// After pass `pass`: every split row of the pass (BlockPlan::splits) merged from its chunks' slots into its
// output row, as one softmax (log-sum-exp) or, for relu², a sum; its final max and sum into `stats` when
// there are any (the weights are written from them); returns whether every merged row is finite.
// split_rows.cpp.
bool mergeSplitRows(const AttentionInputs& inputs, const HeadPlans& plans, std::size_t pass,
                    const PartialRows& partials, bool softmax, float* stats, Tensor3& out);

// Whether one head's K and V (what its blocks sweep) take at most `bytes`: small enough, they stay in a
// core's caches from block to block, and requesting their rows ahead only costs time.
inline bool headKeysWithin(const BlockJob& job, double bytes) {
    return static_cast<double>(job.inputs->k->rows) *
               static_cast<double>(job.inputs->k->cols + job.inputs->v->cols) * sizeof(float) <=
           bytes;
}

// Queues the first lines of block `next` of the plan (usually this thread's own next block: blocks are
// handed out in runs) into ws.prefetchQueue, for L2, to be requested while this block's tiles run: its Q
// rows (consecutive ones too, which the hardware prefetcher would only start on once the block reads
// them), its output rows when it resumes, the K and V rows of its gathered pieces (residue classes, hash
// buckets) and of the consecutive keys it sweeps that this block does not (the next chunk, the keys a
// sliding window adds). Requested in one burst at the block's start instead, they stalled it on the few
// miss buffers.
void queueBlockLines(const BlockJob& job, std::size_t next, Workspace& ws);

// log2(e) · scale for softmax (scores in log2 units), 1 for relu².
float queryScale(const MaskedScoring& scoring);

// The piece's K and V rows, as row pointers (ws.keyRows, ws.valueRows).
void pointPieceRows(const BlockJob& job, const PlanPiece& piece, Workspace& ws);

// A block that is one row-wise piece whose rows start and finish in it (bigbird's rows), run from Q to the
// output rows without the block's query copy and output buffer.
bool streamsRowWise(const BlockJob& job);
void attendStreamedRowWise(const BlockJob& job, Workspace& ws);

// A row-wise piece, or any piece of a fewRows() block, merged into the block's running max, sum and
// unnormalised output (softmax) or added to the output (relu²). ws.queryRows holds the scaled queries.
void attendRowWisePiece(const BlockJob& job, const PlanPiece& piece, Workspace& ws);
void attendFewRowsPiece(const BlockJob& job, const PlanPiece& piece, Workspace& ws);
// A fewRows() block's scores against a shared piece, as attendFewRowsPiece computes them: row r's at
// ws.scores[r·kPlanKeyBlock + c] (unmasked).
void fewRowsScores(const BlockJob& job, const PlanPiece& piece, Workspace& ws);

// With relative positions and consecutive rows: q_r·R_p for the distances of all the block's consecutive
// pieces, one product into ws.relative (relative_positions.cpp); call after the queries are loaded.
void prepareRelativePositions(const BlockJob& job, Workspace& ws);
// S^T[c][r] += scale · q_r·R_{i_r − j_c} for the piece's cells (the ones outside the table are masked).
void addRelativePositions(const BlockJob& job, const PlanPiece& piece, Workspace& ws);

// Masked pieces (masked_pieces.cpp): maskedPieceScores writes S^T for the tiles of keys × query vectors its
// mask bits reach (the cells left out are outside the mask, which the softmax reads as −inf);
// maskedPieceUpdate adds P·V over the runs of keys each tile of rows sees (the first run rescales the rows'
// earlier output, rows with none still get their rescale).
void maskedPieceScores(const BlockJob& job, const PlanPiece& piece, tile::TileProduct product, Workspace& ws);
void maskedPieceUpdate(const BlockJob& job, const PlanPiece& piece, tile::TileProduct update, std::int64_t dv);

// Band pieces (band_plan.h): loadBandKeys transposes the block's key runs into ws (once per block, before its
// band pieces); bandPieceScores writes a band piece's S^T, diagonal e of the piece in ws.scores row e (lane l
// of vector g: block row 16g + l), and finds its diagonal runs; bandPieceUpdate then adds P·V for them to
// ws.output (rows scaled by rowScale first when scaleAndAdd), two rows at a time.
void loadBandKeys(const BlockJob& job, Workspace& ws);
void bandPieceScores(const BlockJob& job, const PlanPiece& piece, Workspace& ws);
void bandPieceUpdate(const BlockJob& job, Workspace& ws, const float* rowScale, bool scaleAndAdd);

// The weights of a row-wise piece's cells from the rows' final max and sum (softmax) or directly (relu²).
void writeRowWiseWeights(const BlockJob& job, const PlanPiece& piece, Workspace& ws, Tensor3& weights);

} // namespace attnlab::block
