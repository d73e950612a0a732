// The block kernel's row-wise work (block_job.h): row-wise pieces, where each row has its own
// columns, and blocks of at most tile::kRowGroup rows, whose pieces would fill few of a tile's
// 16 query lanes. Scores are dot products along d (tile::rowDots); each row merges its scores into
// the block's running max, sum and output as the tiled pieces do.
#include "core/kernels/block_job.h"

#include <algorithm>
#include <limits>

namespace attnlab::block {

namespace {

const float* scaledQuery(const BlockJob& job, Workspace& ws, std::int64_t r) {
    return ws.queryRows.data() + r * paddedWidth(job.inputs->q->cols);
}

// Row r's K and V rows for a row-wise piece in ws.keyRows and ws.valueRows; returns their count.
std::int64_t pointRowWise(const BlockJob& job, const PlanPiece& piece, Workspace& ws, std::int64_t r) {
    const ColumnRange span = job.plan->rowSpans[static_cast<std::size_t>(piece.first + r)];
    const std::int64_t* columns = job.plan->columns.data() + span.begin;
    ws.keyRows.resize(static_cast<std::size_t>(piece.count));
    ws.valueRows.resize(static_cast<std::size_t>(piece.count));
    for (std::int64_t c = 0; c < span.size(); ++c) {
        ws.keyRows[static_cast<std::size_t>(c)] = job.inputs->k->row(job.kvHead, columns[c]);
        ws.valueRows[static_cast<std::size_t>(c)] = job.inputs->v->row(job.kvHead, columns[c]);
    }
    return span.size();
}

// A row-wise piece's random keys sit where no neighbouring row reads, so their cache misses, not the
// few dot products, bound the piece: while row r computes, the K rows of row r + kPrefetchAhead are
// requested into L1 and row r's V rows into L2 for the value pass that follows the scores. Inlined for
// the reason prefetchRow is.
constexpr std::int64_t kPrefetchAhead = 4;

template <int Locality>
[[gnu::always_inline]] inline void prefetchRows(const BlockJob& job, const PlanPiece& piece, const Tensor3& tensor, std::int64_t r) {
    if (r >= job.rows()) return;
    const ColumnRange span = job.plan->rowSpans[static_cast<std::size_t>(piece.first + r)];
    const std::int64_t* columns = job.plan->columns.data() + span.begin;
    for (std::int64_t c = 0; c < span.size(); ++c) prefetchRow<false, Locality>(tensor.row(job.kvHead, columns[c]), tensor.cols);
}

// Row r's scores against its columns of a row-wise piece into scores[0, count), its K and V rows
// pointed to as by pointRowWise; returns count.
std::int64_t rowWiseScores(const BlockJob& job, const PlanPiece& piece, Workspace& ws, std::int64_t r, float* scores) {
    const std::int64_t count = pointRowWise(job, piece, ws, r), d = job.inputs->q->cols;
    const float* query = scaledQuery(job, ws, r);
    tile::rowDots(&query, 1, ws.keyRows.data(), count, d, scores, 0);
    if (job.scoring->relativePositions) {
        const float* table = job.scoring->relativePositions->data();
        const ColumnRange span = job.plan->rowSpans[static_cast<std::size_t>(piece.first + r)];
        for (std::int64_t c = 0; c < count; ++c) {
            const std::int64_t distance = job.row(r) - job.plan->columns[static_cast<std::size_t>(span.begin + c)];
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

} // namespace

// Each row's scores are computed along d into a row of ws.rowScores (−inf past its columns), turned
// into S^T 16 × 16 at a time, and from there the softmax (or relu²) runs over 16 rows per vector as
// for a shared piece; each row then adds its weights times its own values.
void attendRowWisePiece(const BlockJob& job, const PlanPiece& piece, Workspace& ws) {
    const std::int64_t dv = job.inputs->v->cols, width = paddedWidth(dv), keys = paddedWidth(piece.count);
    float* rowScores = ws.rowScores.reserve(static_cast<std::size_t>(kQueryBlock * kScoreKeys));
    float* scores = ws.scores.data();
    for (std::int64_t r = 0; r < kPrefetchAhead; ++r) prefetchRows<3>(job, piece, *job.inputs->k, r);
    for (std::int64_t r = 0; r < job.width(); ++r) {
        prefetchRows<3>(job, piece, *job.inputs->k, r + kPrefetchAhead);
        prefetchRows<2>(job, piece, *job.inputs->v, r);
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
        const std::int64_t count = pointRowWise(job, piece, ws, r);
        tile::accumulateRows({scores + r, 0, kQueryBlock}, 1, ws.valueRows.data(), count, dv,
                             job.softmax() ? rescale + r : &keep, ws.output.data() + r * width, width);
    }
}

void attendFewRowsPiece(const BlockJob& job, const PlanPiece& piece, Workspace& ws) {
    const std::int64_t d = job.inputs->q->cols, dv = job.inputs->v->cols, width = paddedWidth(dv);
    const int rows = static_cast<int>(job.rows());
    pointPieceRows(job, piece, ws);
    const float* queries[tile::kRowGroup];
    for (int r = 0; r < rows; ++r) queries[r] = scaledQuery(job, ws, r);
    float* scores = ws.scores.data();
    tile::rowDots(queries, rows, ws.keyRows.data(), piece.count, d, scores, kPlanKeyBlock);
    const float masked = job.softmax() ? -std::numeric_limits<float>::infinity() : 0.0f;
    float factors[tile::kRowGroup];
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
