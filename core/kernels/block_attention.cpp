#include "core/kernels/block_attention.h"
#include "core/kernels/run_result.h"

#include "core/jobs/parallel_tasks.h"
#include "core/kernels/block_job.h"

#include <algorithm>
#include <atomic>
#include <cmath>
#include <numbers>
#include <utility>

namespace attnlab {

namespace block {

Workspace& threadWorkspace(int which) {
    static thread_local Workspace workspaces[2];
    return workspaces[which];
}

float queryScale(const MaskedScoring& scoring) {
    return scoring.kind == MaskedScoring::Kind::Softmax
               ? static_cast<float>(scoring.scale * std::numbers::log2e)
               : 1.0f;
}

void pointPieceRows(const BlockJob& job, const PlanPiece& piece, Workspace& ws) {
    ws.keyRows.resize(static_cast<std::size_t>(piece.count));
    ws.valueRows.resize(static_cast<std::size_t>(piece.count));
    for (std::int64_t c = 0; c < piece.count; ++c) {
        const std::int64_t j = job.plan->column(piece, c);
        ws.keyRows[static_cast<std::size_t>(c)] = job.inputs->k->row(job.kvHead, j);
        ws.valueRows[static_cast<std::size_t>(c)] = job.inputs->v->row(job.kvHead, j);
    }
}

namespace {

// Output rows whose length is whole vectors go to memory with non-temporal stores: a normal store would
// first read each cold line of the output in. That includes the partial rows a later pass reads back
// (strided): by then they are long out of the caches (docs/execution_plans.md, "Memory layout and traffic").
bool streamsOutput(const BlockJob& job) {
    return tile::streamable(job.out->values.data(), job.inputs->v->cols);
}

// A block's rows are often scattered (hash buckets, residue classes): every row's Q and output lines are
// requested before the first is used, as the hardware prefetcher cannot guess them. Inlined for the
// reason prefetchRow is.
[[gnu::always_inline]] inline void prefetchScatteredRows(const BlockJob& job) {
    if (job.block->consecutiveRows) return;
    const bool readsOrStoresOutput = job.block->resume || !streamsOutput(job); // streamed lines are not read
    for (std::int64_t r = 0; r < job.rows(); ++r) {
        prefetchRow<false, 3>(job.inputs->q->row(job.head, job.row(r)), job.inputs->q->cols);
        if (readsOrStoresOutput) prefetchRow<true, 3>(job.out->row(job.head, job.row(r)), job.out->cols);
    }
}

// queryT[p][r] = scale · q_{row r}[p] for r < width (zero past the block's rows): the rows are copied
// scaled into queryRows ([width][d rounded up to 16]), then, for the tiles, transposed 16 × 16 at a time.
void loadQueries(const BlockJob& job, Workspace& ws, bool transpose) {
    const std::int64_t d = job.inputs->q->cols, depth = paddedWidth(d), width = job.width();
    float* queryT = ws.queryT.reserve(static_cast<std::size_t>(depth * kQueryBlock));
    float* rows = ws.queryRows.reserve(static_cast<std::size_t>(kQueryBlock * depth));
    const float scale = queryScale(*job.scoring);
    prefetchScatteredRows(job);
    for (std::int64_t r = 0; r < width; ++r)
        if (r < job.rows())
            tile::scaledCopy(job.inputs->q->row(job.head, job.row(r)), d, scale, rows + r * depth, depth);
        else
            std::fill(rows + r * depth, rows + (r + 1) * depth, 0.0f);
    for (std::int64_t r = 0; r < width && transpose; r += tile::kLanes)
        for (std::int64_t p = 0; p < depth; p += tile::kLanes)
            tile::transpose16(rows + r * depth + p, depth, queryT + p * kQueryBlock + r, kQueryBlock);
}

// S^T = K_piece · Q_blockᵀ (already scaled), relative positions added; cells outside a mask hold anything
// (the masked softmax, or maskColumns before relu², sets their weights to 0).
void pieceScores(const BlockJob& job, const PlanPiece& piece, Workspace& ws) {
    if (piece.band) {
        bandPieceScores(job, piece, ws);
        return;
    }
    pointPieceRows(job, piece, ws);
    tile::TileProduct product;
    product.depth = job.inputs->q->cols;
    product.aRows = ws.keyRows.data();
    product.aDepthStride = 1;
    product.b = ws.queryT.data();
    product.bRowStride = kQueryBlock;
    product.c = ws.scores.data();
    product.cRowStride = kQueryBlock;
    product.prefetch = &ws.prefetchQueue;
    if (piece.mask >= 0)
        maskedPieceScores(job, piece, product, ws);
    else
        tile::multiplyBlock(product, piece.count, job.width());
    if (job.scoring->relativePositions) addRelativePositions(job, piece, ws);
}

void startRows(const BlockJob& job, Workspace& ws, std::int64_t width) {
    float* output = ws.output.data();
    float* rowMax = ws.rowStats.data();
    float* rowSum = rowMax + kQueryBlock;
    std::fill(rowMax, rowMax + kQueryBlock, tile::kNoMax);
    std::fill(rowSum, rowSum + kQueryBlock, 0.0f);
    // Rows past the block's are never read; resumed rows are copied in whole, padding included.
    if (!job.block->resume) {
        std::fill(output, output + job.rows() * width, 0.0f);
        return;
    }
    const std::int64_t dv = job.inputs->v->cols;
    for (std::int64_t r = 0; r < job.rows(); ++r) {
        tile::scaledCopy(job.out->row(job.head, job.row(r)), dv, 1.0f, output + r * width, width);
        if (job.softmax()) {
            rowMax[r] = job.statsOf(r)[0];
            rowSum[r] = job.statsOf(r)[1];
        }
    }
}

// A chunk of split rows: each row's unnormalised output, max and sum into its slot.
void storePartialRows(const BlockJob& job, Workspace& ws, std::int64_t width) {
    const float* rowMax = ws.rowStats.data();
    const float* rowSum = rowMax + kQueryBlock;
    for (std::int64_t r = 0; r < job.rows(); ++r) {
        float* slot = job.partials.slot(job.head, job.block->partialSlot + r);
        std::copy(ws.output.data() + r * width, ws.output.data() + (r + 1) * width, slot);
        slot[width] = rowMax[r];
        slot[width + 1] = rowSum[r];
    }
}

void finishRows(const BlockJob& job, Workspace& ws, std::int64_t width) {
    if (job.block->partialSlot >= 0) {
        storePartialRows(job, ws, width);
        return;
    }
    const std::int64_t dv = job.inputs->v->cols;
    const float* output = ws.output.data();
    const float* rowMax = ws.rowStats.data();
    const float* rowSum = rowMax + kQueryBlock;
    const bool stream = streamsOutput(job);
    bool finite = true;
    for (std::int64_t r = 0; r < job.rows(); ++r) {
        const bool normalise = job.softmax() && job.block->finish;
        const float norm = normalise ? 1.0f / rowSum[r] : 1.0f;
        float* row = job.out->row(job.head, job.row(r));
        finite &= stream ? tile::streamScaledCopy(output + r * width, dv, norm, row)
                         : tile::scaledCopy(output + r * width, dv, norm, row, dv);
        if (job.stats) {
            job.statsOf(r)[0] = rowMax[r];
            job.statsOf(r)[1] = rowSum[r];
        }
    }
    job.noteStored(finite);
    if (stream) tile::storeFence();
}

// The pieces of a block run one at a time (attendPiece), between startBlock and finishBlock, so that two
// blocks that sweep the same keys can take turns. `ahead` is the block whose lines are queued (the plan
// index of the block this thread will probably take next).
void startBlock(const BlockJob& job, std::size_t ahead, Workspace& ws) {
    const std::int64_t dv = job.inputs->v->cols, width = paddedWidth(dv);
    ws.scores.reserve(static_cast<std::size_t>(kScoreKeys * kQueryBlock));
    ws.output.reserve(static_cast<std::size_t>(kQueryBlock * width));
    ws.rowStats.reserve(3 * kQueryBlock);
    bool tiles = false; // whether any piece runs in query tiles (and needs queryT)
    for (std::int64_t p = job.block->pieceBegin; p < job.block->pieceEnd && !job.fewRows(); ++p)
        tiles = tiles || !job.plan->pieces[static_cast<std::size_t>(p)].rowWise;
    queueBlockLines(job, ahead, ws);
    loadQueries(job, ws, tiles);
    if (tiles) prepareRelativePositions(job, ws);
    if (job.block->hasBand()) loadBandKeys(job, ws);
    startRows(job, ws, width);
}

void attendPiece(const BlockJob& job, const PlanPiece& piece, Workspace& ws) {
    if (piece.rowWise || job.fewRows()) {
        (piece.rowWise ? attendRowWisePiece : attendFewRowsPiece)(job, piece, ws);
        return;
    }
    const std::int64_t dv = job.inputs->v->cols;
    float* rowMax = ws.rowStats.data();
    pieceScores(job, piece, ws);
    float* scores = ws.scores.data();
    const std::uint64_t* words = piece.mask >= 0 ? job.plan->masks.data() + piece.mask : nullptr;
    if (job.softmax()) {
        if (words)
            tile::maskedSoftmaxBlock(scores, piece.count, job.width(), words, rowMax, rowMax + kQueryBlock,
                                     rowMax + 2 * kQueryBlock);
        else
            tile::softmaxBlock(scores, piece.count, job.width(), rowMax, rowMax + kQueryBlock,
                               rowMax + 2 * kQueryBlock);
    } else {
        if (words) tile::maskColumns(scores, piece.count, job.width(), words, 0.0f);
        tile::reluSquaredBlock(scores, piece.count, job.width(),
                               static_cast<float>(1.0 / job.scoring->normalizer));
    }
    tile::TileProduct update;
    update.depth = piece.count;
    update.a = scores;
    update.aRowStride = 1;
    update.aDepthStride = kQueryBlock;
    // Consecutive V rows are read in place, without a pointer load per key.
    update.bRows = piece.consecutive ? nullptr : ws.valueRows.data();
    update.b = piece.consecutive ? job.inputs->v->row(job.kvHead, piece.first) : nullptr;
    update.bRowStride = dv;
    update.c = ws.output.data();
    update.cRowStride = paddedWidth(dv);
    update.mode = job.softmax() ? tile::Accumulate::ScaleAndAdd : tile::Accumulate::Add;
    update.rowScale = rowMax + 2 * kQueryBlock;
    update.prefetch = &ws.prefetchQueue;
    if (piece.band)
        bandPieceUpdate(job, ws, update.rowScale, job.softmax());
    else if (piece.mask >= 0)
        maskedPieceUpdate(job, piece, update, dv);
    else
        tile::multiplyBlock(update, job.rows(), dv);
}

void finishBlock(const BlockJob& job, Workspace& ws) {
    tile::requestRest(ws.prefetchQueue);
    finishRows(job, ws, paddedWidth(job.inputs->v->cols));
}

std::size_t indexOf(const BlockJob& job) {
    return static_cast<std::size_t>(job.block - job.plan->blocks.data());
}

void attendBlock(const BlockJob& job) {
    Workspace& ws = threadWorkspace(0);
    if (streamsRowWise(job)) {
        attendStreamedRowWise(job, ws);
        return;
    }
    startBlock(job, indexOf(job) + 1, ws);
    for (std::int64_t p = job.block->pieceBegin; p < job.block->pieceEnd; ++p)
        attendPiece(job, job.plan->pieces[static_cast<std::size_t>(p)], ws);
    finishBlock(job, ws);
}

// Two blocks that sweep the same keys (PlanBlock::pairedWithNext) take turns piece by piece, so that the
// second reads each piece's K and V rows from the nearest cache instead of memory.
void attendBlockPair(const BlockJob& first, const BlockJob& second) {
    Workspace& a = threadWorkspace(0);
    Workspace& b = threadWorkspace(1);
    startBlock(first, indexOf(second) + 1, a);
    startBlock(second, indexOf(second) + 2, b);
    const std::int64_t firstPieces = first.block->pieceEnd - first.block->pieceBegin;
    const std::int64_t secondPieces = second.block->pieceEnd - second.block->pieceBegin;
    for (std::int64_t p = 0; p < std::max(firstPieces, secondPieces); ++p) {
        if (p < firstPieces)
            attendPiece(first, first.plan->pieces[static_cast<std::size_t>(first.block->pieceBegin + p)], a);
        if (p < secondPieces)
            attendPiece(second, second.plan->pieces[static_cast<std::size_t>(second.block->pieceBegin + p)],
                        b);
    }
    finishBlock(first, a);
    finishBlock(second, b);
}

// The weights of the block's cells from the rows' final max and sum (softmax) or directly (relu²).
void writeBlockWeights(const BlockJob& job, Tensor3& weights) {
    Workspace& ws = threadWorkspace(0);
    ws.scores.reserve(static_cast<std::size_t>(kScoreKeys * kQueryBlock));
    ws.prefetchQueue = {};
    loadQueries(job, ws, true);
    prepareRelativePositions(job, ws);
    if (job.block->hasBand()) loadBandKeys(job, ws);
    const auto relu = static_cast<float>(1.0 / job.scoring->normalizer);
    for (std::int64_t p = job.block->pieceBegin; p < job.block->pieceEnd; ++p) {
        const PlanPiece& piece = job.plan->pieces[static_cast<std::size_t>(p)];
        if (piece.rowWise) {
            writeRowWiseWeights(job, piece, ws, weights);
            continue;
        }
        // The scores exactly as the run computed them (same products, same order), so that the weights
        // agree with its max and sum: at large logits another order of the sums moves a score by whole
        // units of log2 (a few-row block's weights summed to 256).
        std::int64_t keyStride = kQueryBlock, rowStride = 1;
        if (job.fewRows()) {
            fewRowsScores(job, piece, ws);
            keyStride = 1;
            rowStride = kPlanKeyBlock;
        } else {
            pieceScores(job, piece, ws);
        }
        for (std::int64_t r = 0; r < job.rows(); ++r) {
            float* w = weights.row(job.head, job.row(r));
            const float rowMax = job.softmax() ? job.statsOf(r)[0] : 0.0f;
            const float rowSum = job.softmax() ? job.statsOf(r)[1] : 1.0f;
            for (std::int64_t c = 0; c < piece.count; ++c) {
                if (!job.plan->cellAllowed(piece, c, r)) continue;
                const float s = ws.scores.data()[c * keyStride + r * rowStride];
                w[piece.band ? job.plan->bandKey(*job.block, piece, c, r) : job.plan->column(piece, c)] =
                    job.softmax() ? tile::exp2Scalar(s - rowMax) / rowSum
                                  : std::max(s, 0.0f) * std::max(s, 0.0f) * relu;
            }
        }
    }
}

// A thread takes runs of consecutive blocks (runTasks), so that the block whose lines it requests ahead
// is usually its own next one (with one block at a time it was the other thread's). The runs shrink to
// at least this many blocks, about 1/kRunsPerThread of a thread's share, so the threads finish together.
constexpr std::int64_t kRunsPerThread = 32;
constexpr std::int64_t kLongestRun = 16;

// Runs job(head, block) for every block of pass `pass` of every head's plan, in parallel.
bool forEachBlock(const AttentionInputs& inputs, const HeadPlans& plans, std::size_t pass,
                  const RunOptions& options,
                  const std::function<void(int head, const BlockPlan& plan, const PlanBlock& block)>& job) {
    const int heads = inputs.q->heads;
    std::vector<std::int64_t> taskEnd(static_cast<std::size_t>(heads));
    std::int64_t tasks = 0;
    for (int h = 0; h < heads; ++h) {
        const BlockPlan& plan = planOf(plans, h);
        if (pass < plan.passCount()) tasks += plan.passEnd[pass] - plan.passBegin(pass);
        taskEnd[static_cast<std::size_t>(h)] = tasks;
    }
    const std::int64_t run =
        std::clamp<std::int64_t>(tasks / (std::max(1, options.threads) * kRunsPerThread), 1, kLongestRun);
    const auto each = [&](std::int64_t task) {
        const auto head =
            static_cast<int>(std::upper_bound(taskEnd.begin(), taskEnd.end(), task) - taskEnd.begin());
        const BlockPlan& plan = planOf(plans, head);
        const std::int64_t first = head == 0 ? 0 : taskEnd[static_cast<std::size_t>(head) - 1];
        job(head, plan, plan.blocks[static_cast<std::size_t>(plan.passBegin(pass) + task - first)]);
    };
    return runTasks(tasks, options.threads, options.cancelled, each, run);
}

} // namespace

} // namespace block

using namespace block;

RunResult runPlannedAttention(const AttentionInputs& inputs, const HeadPlans& plans,
                              const MaskedScoring& scoring, const RunOptions& options, bool* nonFiniteOutput) {
    RunResult result = makeQueryResult(inputs, options);
    std::size_t passes = 0;
    for (const auto& plan : plans)
        passes = std::max(passes, plan->passCount());
    float* stats = nullptr;
    if (passes > 1 || options.wantWeights) {
        static thread_local tile::AlignedBuffer statsBuffer; // the calling thread's, shared with its workers
        stats = statsBuffer.reserve(static_cast<std::size_t>(2 * inputs.q->heads * inputs.q->rows));
    }
    PartialRows partials;
    for (const auto& plan : plans)
        partials.slotsPerHead = std::max(partials.slotsPerHead, plan->partialSlots);
    if (partials.slotsPerHead > 0) {
        static thread_local tile::AlignedBuffer partialBuffer; // as statsBuffer
        partials.stride = partialSlotFloats(inputs.v->cols);
        partials.data = partialBuffer.reserve(
            static_cast<std::size_t>(inputs.q->heads * partials.slotsPerHead * partials.stride));
    }
    static std::atomic<std::uint64_t> calls{0};
    const std::uint64_t call = ++calls;
    std::atomic<bool> nonFinite = false;
    auto jobOf = [&](int head, const BlockPlan& plan, const PlanBlock& block) {
        return BlockJob{&inputs, &plan, &block, &scoring, &result.out, stats, head, inputs.kvHead(head), partials,
                        call, &nonFinite};
    };
    for (std::size_t pass = 0; pass < passes && !result.cancelled; ++pass) {
        result.cancelled = !forEachBlock(
            inputs, plans, pass, options, [&](int head, const BlockPlan& plan, const PlanBlock& block) {
                if (&block != plan.blocks.data() && (&block - 1)->pairedWithNext)
                    return; // ran with the block before
                if (block.pairedWithNext)
                    attendBlockPair(jobOf(head, plan, block), jobOf(head, plan, *(&block + 1)));
                else
                    attendBlock(jobOf(head, plan, block));
            });
        if (partials.slotsPerHead > 0 && !result.cancelled &&
            !mergeSplitRows(inputs, plans, pass, partials, scoring.kind == MaskedScoring::Kind::Softmax, stats,
                            result.out))
            nonFinite = true;
    }
    if (nonFiniteOutput) *nonFiniteOutput = nonFinite.load();
    for (std::size_t pass = 0; pass < passes && result.weights && !result.cancelled; ++pass)
        result.cancelled = !forEachBlock(inputs, plans, pass, options,
                                         [&](int head, const BlockPlan& plan, const PlanBlock& block) {
                                             writeBlockWeights(jobOf(head, plan, block), *result.weights);
                                         });
    return result;
}

RunResult runBlockAttention(const AttentionInputs& inputs, const HeadPatterns& patterns,
                            const MaskedScoring& scoring, const RunOptions& options, bool* nonFiniteOutput) {
    HeadPlans plans;
    for (const auto& pattern : patterns)
        plans.push_back(genericBlockPlan(*pattern, scoring.relativePositions != nullptr));
    return runPlannedAttention(inputs, plans, scoring, options, nonFiniteOutput);
}

} // namespace attnlab
