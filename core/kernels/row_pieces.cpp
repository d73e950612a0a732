// The block kernel's row-wise work (block_job.h): row-wise pieces, where each row has its own
// columns, and blocks of at most tile::kSharedLoadRows rows, whose pieces would fill few of a tile's
// 16 query lanes. Scores are dot products along d (tile::rowDots); each row merges its scores into
// the block's running max, sum and output as the tiled pieces do.
#include "core/kernels/block_job.h"
#include "core/kernels/row_group.h"

#include <algorithm>
#include <limits>

namespace attnlab::block {

namespace {

const float* scaledQuery(const BlockJob& job, Workspace& ws, std::int64_t r) {
    return ws.queryRows.data() + r * paddedWidth(job.inputs->q->cols);
}

// Row r's K and V rows of a row-wise piece into keys[0, count) and values[0, count); returns count.
std::int64_t pointRow(const BlockJob& job, const PlanPiece& piece, std::int64_t r, const float** keys,
                      const float** values) {
    const ColumnRange span = job.plan->rowSpans[static_cast<std::size_t>(piece.first + r)];
    const std::int64_t* columns = job.plan->columns.data() + span.begin;
    // The bases are read once: stores into the lists could otherwise alias the tensors' fields.
    const float* keyHead = job.inputs->k->head(job.kvHead);
    const float* valueHead = job.inputs->v->head(job.kvHead);
    const std::int64_t keyWidth = job.inputs->k->cols, valueWidth = job.inputs->v->cols;
    for (std::int64_t c = 0; c < span.size(); ++c) {
        keys[c] = keyHead + columns[c] * keyWidth;
        values[c] = valueHead + columns[c] * valueWidth;
    }
    return span.size();
}

// Every row's K and V rows for a row-wise piece, row r's at ws.keyRows / ws.valueRows [r·count, r·count +
// its span), found in one walk over the rows' columns that the prefetches, the scores and the values share.
void pointRowWiseRows(const BlockJob& job, const PlanPiece& piece, Workspace& ws) {
    const auto stride = static_cast<std::size_t>(piece.count);
    ws.keyRows.resize(static_cast<std::size_t>(job.rows()) * stride);
    ws.valueRows.resize(static_cast<std::size_t>(job.rows()) * stride);
    for (std::int64_t r = 0; r < job.rows(); ++r) {
        const std::size_t base = static_cast<std::size_t>(r) * stride;
        pointRow(job, piece, r, ws.keyRows.data() + base, ws.valueRows.data() + base);
    }
}

std::int64_t rowWiseCount(const BlockJob& job, const PlanPiece& piece, std::int64_t r) {
    return job.plan->rowSpans[static_cast<std::size_t>(piece.first + r)].size();
}

// A row-wise piece's random keys sit where no neighbouring row reads, so their cache misses, not the
// few dot products, bound the piece: while row r computes, the K rows of row r + kPrefetchAhead are
// requested into L1 and row r's V rows into L2 for the value pass that follows the scores. Inlined for
// the reason prefetchRow is. When one head's K and V take 2 MiB or less they stay cached and the requests
// only cost time: they are left out (docs/execution_plans.md, "Memory layout and traffic").
constexpr std::int64_t kPrefetchAhead = 4;
constexpr double kRequestedKeyBytes = 2 << 20;
// Without tiles to request the next block's queued lines (block_job.h), each row takes a few of them:
// a block's Q rows are 4 lines each (d = 64). Requested all at the block's end they stalled it.
constexpr std::int64_t kQueuedLinesPerRow = 4;

template <int Locality>
[[gnu::always_inline]] inline void prefetchRows(const BlockJob& job, const PlanPiece& piece, const std::vector<const float*>& rows,
                                                std::int64_t cols, std::int64_t r) {
    if (r >= job.rows()) return;
    const float* const* first = rows.data() + r * piece.count;
    for (std::int64_t c = 0; c < rowWiseCount(job, piece, r); ++c) prefetchRow<false, Locality>(first[c], cols);
}

// Row r's scores against its columns of a row-wise piece into scores[0, count), the rows pointed to by
// pointRowWiseRows; returns count.
std::int64_t rowWiseScores(const BlockJob& job, const PlanPiece& piece, Workspace& ws, std::int64_t r, float* scores) {
    const std::int64_t count = rowWiseCount(job, piece, r), d = job.inputs->q->cols;
    const float* query = scaledQuery(job, ws, r);
    tile::rowDots(&query, 1, ws.keyRows.data() + r * piece.count, count, d, scores, 0);
    if (job.scoring->relativePositions) {
        const float* table = job.scoring->relativePositions->data();
        const ColumnRange span = job.plan->rowSpans[static_cast<std::size_t>(piece.first + r)];
        for (std::int64_t c = 0; c < count; ++c) {
            const std::int64_t distance = job.position(r) - job.plan->columns[static_cast<std::size_t>(span.begin + c)];
            if (distance >= 0) scores[c] += tile::dot(query, table + distance * d, d);
        }
    }
    return count;
}

// Weights (softmax: exp2, relu²: squared and scaled) in place, with the factor earlier output takes.
float rowWeights(const BlockJob& job, float* scores, std::int64_t count, std::int64_t r, Workspace& ws) {
    if (!job.softmax()) {
        tile::reluSquaredRow(scores, count, static_cast<float>(1.0 / job.scoring->normalizer));
        return 1.0f;
    }
    float* rowMax = ws.rowStats.data();
    return tile::softmaxRow(scores, count, rowMax[r], rowMax[kQueryBlock + r]);
}

// A streamed row-wise block (attendStreamedRowWise) runs its rows this many at a time: one vector of S^T.
constexpr std::int64_t kStreamGroup = tile::kLanes;
// Its rows' K and V rows are requested ahead only when its piece has far columns (tile::farColumn) and one
// head's K and V outgrow a core's L2 (1 MiB on the machine measured): otherwise they stay cached or the
// hardware prefetcher streams them, and the requests only cost time (docs/execution_plans.md, "Row-wise
// blocks (bigbird)").
constexpr double kStreamCachedKeyBytes = 1 << 20;

// Row r's columns of a row-wise piece as rows of `matrix` (K or V of the job's head).
tile::ColumnRows columnRows(const BlockJob& job, const PlanPiece& piece, std::int64_t r,
                            const Tensor3& matrix) {
    const ColumnRange span = job.plan->rowSpans[static_cast<std::size_t>(piece.first + r)];
    return {matrix.head(job.kvHead), matrix.cols, job.plan->columns.data() + span.begin};
}

// The group of rows [g, g + kStreamGroup) of a streamed row-wise block (group.rows = 0 past the block).
void describeGroup(const BlockJob& job, const PlanPiece& piece, std::int64_t g, tile::RowGroup& group) {
    group.rows = static_cast<int>(std::clamp<std::int64_t>(job.rows() - g, 0, kStreamGroup));
    for (int r = 0; r < group.rows; ++r) {
        group.queries[r] = job.inputs->q->row(job.head, job.row(g + r));
        group.keys[r] = columnRows(job, piece, g + r, *job.inputs->k);
        group.values[r] = columnRows(job, piece, g + r, *job.inputs->v);
        group.counts[r] = rowWiseCount(job, piece, g + r);
        group.positions[r] = job.row(g + r);
        group.outputs[r] = job.out->row(job.head, job.row(g + r));
    }
}

} // namespace

// Each row's scores are computed along d into a row of ws.rowScores (−inf past its columns), turned
// into S^T 16 × 16 at a time, and from there the softmax (or relu²) runs over 16 rows per vector as
// for a shared piece; each row then adds its weights times its own values.
void attendRowWisePiece(const BlockJob& job, const PlanPiece& piece, Workspace& ws) {
    const std::int64_t dv = job.inputs->v->cols, width = paddedWidth(dv), keys = paddedWidth(piece.count);
    float* rowScores = ws.rowScores.reserve(static_cast<std::size_t>(kQueryBlock * kScoreKeys));
    float* scores = ws.scores.data();
    const std::int64_t d = job.inputs->q->cols;
    pointRowWiseRows(job, piece, ws);
    const bool prefetch = !headKeysWithin(job, kRequestedKeyBytes);
    for (std::int64_t r = 0; r < kPrefetchAhead && prefetch; ++r) prefetchRows<3>(job, piece, ws.keyRows, d, r);
    for (std::int64_t r = 0; r < job.width(); ++r) {
        if (prefetch) {
            prefetchRows<3>(job, piece, ws.keyRows, d, r + kPrefetchAhead);
            prefetchRows<2>(job, piece, ws.valueRows, dv, r);
        }
        tile::requestQueued(ws.prefetchQueue, kQueuedLinesPerRow);
        float* row = rowScores + r * kScoreKeys;
        const std::int64_t count = r < job.rows() ? rowWiseScores(job, piece, ws, r, row) : 0;
        std::fill(row + count, row + keys, -std::numeric_limits<float>::infinity());
    }
    for (std::int64_t r = 0; r < job.width(); r += tile::kLanes)
        for (std::int64_t c = 0; c < keys; c += tile::kLanes)
            tile::transpose16(rowScores + r * kScoreKeys + c, kScoreKeys, scores + c * kQueryBlock + r, kQueryBlock);
    float* rowMax = ws.rowStats.data();
    const float* rescale = rowMax + 2 * kQueryBlock;
    if (job.softmax())
        tile::softmaxBlock(scores, piece.count, job.width(), rowMax, rowMax + kQueryBlock, rowMax + 2 * kQueryBlock);
    else
        tile::reluSquaredBlock(scores, piece.count, job.width(), static_cast<float>(1.0 / job.scoring->normalizer));
    const float keep = 1.0f;
    for (std::int64_t r = 0; r < job.rows(); ++r) {
        tile::accumulateRows({scores + r, 0, kQueryBlock}, 1, ws.valueRows.data() + r * piece.count,
                             rowWiseCount(job, piece, r), dv,
                             job.softmax() ? rescale + r : &keep, ws.output.data() + r * width, width);
    }
}

bool streamsRowWise(const BlockJob& job) {
    const PlanBlock& block = *job.block;
    return block.pieceEnd == block.pieceBegin + 1 &&
           job.plan->pieces[static_cast<std::size_t>(block.pieceBegin)].rowWise && !block.resume &&
           block.finish && block.partialSlot < 0 && !job.scoring->relativePositions;
}

// The rows go from Q to their final output a group at a time, so that Q rows, K and V rows and output rows
// stream as the rows go: a whole block's query copy, then its scores, then its values and then its output
// rows, each a burst of 64 rows, kept the memory busy a burst at a time. While a
// row computes, the far K and V rows of a row a few places on are requested (tile::rowGroupScores).
void attendStreamedRowWise(const BlockJob& job, Workspace& ws) {
    const PlanPiece& piece = job.plan->pieces[static_cast<std::size_t>(job.block->pieceBegin)];
    const std::int64_t d = job.inputs->q->cols, dv = job.inputs->v->cols, keys = paddedWidth(piece.count);
    float* scratch = ws.rowScores.reserve(static_cast<std::size_t>(kStreamGroup * (keys + paddedWidth(d))));
    float* scores = ws.scores.reserve(static_cast<std::size_t>(kScoreKeys * kQueryBlock));
    float* rowMax = ws.rowStats.reserve(3 * kQueryBlock);
    float* rowSum = rowMax + kQueryBlock;
    float* norms = rowMax + 2 * kQueryBlock;
    const bool stream = tile::streamable(job.out->values.data(), dv);
    const bool requestAhead = piece.farColumns && !headKeysWithin(job, kStreamCachedKeyBytes);
    tile::RowGroup groups[2];
    describeGroup(job, piece, 0, groups[0]);
    for (std::int64_t g = 0; g < job.rows(); g += kStreamGroup) {
        const tile::RowGroup& group = groups[(g / kStreamGroup) % 2];
        tile::RowGroup& next = groups[(g / kStreamGroup + 1) % 2];
        describeGroup(job, piece, g + kStreamGroup, next);
        tile::rowGroupScores(group, next.rows > 0 ? &next : nullptr, requestAhead, queryScale(*job.scoring), d,
                             keys, scores, scratch);
        std::fill(rowMax, rowMax + kStreamGroup, tile::kNoMax);
        std::fill(rowSum, rowSum + kStreamGroup, 0.0f);
        if (job.softmax())
            tile::softmaxBlock(scores, piece.count, kStreamGroup, rowMax, rowSum, norms);
        else
            tile::reluSquaredBlock(scores, piece.count, kStreamGroup,
                                   static_cast<float>(1.0 / job.scoring->normalizer));
        for (int r = 0; r < group.rows; ++r)
            norms[r] = job.softmax() ? 1.0f / rowSum[r] : 1.0f;
        job.noteStored(tile::rowGroupValues(group, scores, norms, dv, stream));
        for (int r = 0; r < group.rows && job.stats; ++r) {
            job.statsOf(g + r)[0] = rowMax[r];
            job.statsOf(g + r)[1] = rowSum[r];
        }
    }
    if (stream) tile::storeFence();
}

void fewRowsScores(const BlockJob& job, const PlanPiece& piece, Workspace& ws) {
    const int rows = static_cast<int>(job.rows());
    pointPieceRows(job, piece, ws);
    const float* queries[tile::kSharedLoadRows];
    for (int r = 0; r < rows; ++r) queries[r] = scaledQuery(job, ws, r);
    tile::rowDots(queries, rows, ws.keyRows.data(), piece.count, job.inputs->q->cols, ws.scores.data(), kPlanKeyBlock);
}

void attendFewRowsPiece(const BlockJob& job, const PlanPiece& piece, Workspace& ws) {
    const std::int64_t dv = job.inputs->v->cols, width = paddedWidth(dv);
    const int rows = static_cast<int>(job.rows());
    fewRowsScores(job, piece, ws);
    float* scores = ws.scores.data();
    const float masked = job.softmax() ? -std::numeric_limits<float>::infinity() : 0.0f;
    float factors[tile::kSharedLoadRows];
    for (int r = 0; r < rows; ++r) {
        float* row = scores + r * kPlanKeyBlock;
        if (piece.mask >= 0)
            for (std::int64_t c = 0; c < piece.count; ++c)
                if (!job.plan->cellAllowed(piece, c, r)) row[c] = masked;
        factors[r] = rowWeights(job, row, piece.count, r, ws);
    }
    tile::accumulateRows({scores, kPlanKeyBlock, 1}, rows, ws.valueRows.data(), piece.count, dv, factors,
                         ws.output.data(), width);
}

void writeRowWiseWeights(const BlockJob& job, const PlanPiece& piece, Workspace& ws, Tensor3& weights) {
    const auto relu = static_cast<float>(1.0 / job.scoring->normalizer);
    pointRowWiseRows(job, piece, ws);
    for (std::int64_t r = 0; r < job.rows(); ++r) {
        const std::int64_t count = rowWiseScores(job, piece, ws, r, ws.scores.data());
        const ColumnRange span = job.plan->rowSpans[static_cast<std::size_t>(piece.first + r)];
        float* w = weights.row(job.head, job.row(r));
        for (std::int64_t c = 0; c < count; ++c) {
            const float s = ws.scores.data()[c];
            w[job.plan->columns[static_cast<std::size_t>(span.begin + c)]] =
                job.softmax() ? tile::exp2Scalar(s - job.statsOf(r)[0]) / job.statsOf(r)[1]
                              : std::max(s, 0.0f) * std::max(s, 0.0f) * relu;
        }
    }
}

} // namespace attnlab::block
