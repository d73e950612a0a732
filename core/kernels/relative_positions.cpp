// The block kernel's relative-position scores (Transformer-XL, MaskedScoring::relativePositions):
// q_r·R_{i_r − j_c} for each computed cell, from one product per block where rows and pieces are
// consecutive, else one dot product per cell.
#include "core/kernels/block_job.h"

#include <algorithm>
#include <limits>

namespace attnlab::block {

namespace {

// The distances [begin, end) a consecutive piece's cells span, within the table (its masked corner may
// lie further than the table reaches); empty when end ≤ begin.
ColumnRange pieceDistances(const BlockJob& job, const PlanPiece& piece, std::int64_t tableRows) {
    const std::int64_t offset = job.position(0) - piece.first;
    return {std::max<std::int64_t>(0, offset - (piece.count - 1)), std::min(offset + job.rows() - 1, tableRows - 1) + 1};
}

} // namespace

// With relative positions and consecutive rows, ws.relative[p − first][r] = q_r·R_p for the distances p of
// all the block's consecutive pieces at once (one product; per piece, xl's memory and diagonal pieces
// would compute a third of them twice): ws.relativeDistances = [first, end).
void prepareRelativePositions(const BlockJob& job, Workspace& ws) {
    ws.relativeDistances = {0, 0};
    if (!job.scoring->relativePositions || !job.block->consecutiveRows) return;
    const std::int64_t d = job.inputs->q->cols;
    const auto tableRows = static_cast<std::int64_t>(job.scoring->relativePositions->size()) / d;
    ColumnRange all{std::numeric_limits<std::int64_t>::max(), 0};
    for (std::int64_t p = job.block->pieceBegin; p < job.block->pieceEnd; ++p) {
        const PlanPiece& piece = job.plan->pieces[static_cast<std::size_t>(p)];
        const ColumnRange distances = pieceDistances(job, piece, tableRows);
        if (!piece.consecutive || piece.rowWise || distances.end <= distances.begin) continue;
        all = {std::min(all.begin, distances.begin), std::max(all.end, distances.end)};
    }
    if (all.end <= all.begin) return;
    ws.relativeDistances = all;
    tile::TileProduct product;
    product.depth = d;
    product.a = job.scoring->relativePositions->data() + all.begin * d;
    product.aRowStride = d;
    product.aDepthStride = 1;
    product.b = ws.queryT.data();
    product.bRowStride = kQueryBlock;
    product.c = ws.relative.reserve(static_cast<std::size_t>(all.size() * kQueryBlock));
    product.cRowStride = kQueryBlock;
    tile::multiplyBlock(product, all.size(), job.width());
}

// S^T[c][r] += scale · q_r·R_{i_r − j_c} for cells with 0 ≤ i_r − j_c < the table's rows (the others are
// masked: the table has a row for every distance of an allowed cell, a piece's corner may lie further).
void addRelativePositions(const BlockJob& job, const PlanPiece& piece, Workspace& ws) {
    const std::int64_t d = job.inputs->q->cols, rows = job.rows();
    const float* table = job.scoring->relativePositions->data();
    const auto tableRows = static_cast<std::int64_t>(job.scoring->relativePositions->size()) / d;
    float* scores = ws.scores.data();
    if (!job.block->consecutiveRows || !piece.consecutive) {
        const float scale = queryScale(*job.scoring);
        for (std::int64_t c = 0; c < piece.count; ++c)
            for (std::int64_t r = 0; r < rows; ++r) {
                const std::int64_t distance = job.position(r) - job.plan->column(piece, c);
                if (distance >= 0 && distance < tableRows)
                    scores[c * kQueryBlock + r] +=
                        scale * tile::dot(job.inputs->q->row(job.head, job.row(r)), table + distance * d, d);
            }
        return;
    }
    // Cell (r, c) has distance offset + r − c, within the piece's range, all in ws.relative.
    const ColumnRange distances = pieceDistances(job, piece, tableRows);
    const std::int64_t offset = job.position(0) - piece.first, first = ws.relativeDistances.begin;
    const float* relative = ws.relative.data();
    for (std::int64_t c = 0; c < piece.count; ++c) {
        const std::int64_t lowestRow = std::max<std::int64_t>(0, distances.begin - (offset - c));
        const std::int64_t endRow = std::min(rows, distances.end - (offset - c));
        for (std::int64_t r = lowestRow; r < endRow; ++r)
            scores[c * kQueryBlock + r] += relative[(offset - c + r - first) * kQueryBlock + r];
    }
}

} // namespace attnlab::block
