// What a plan holds (block_plan.h): its size in memory and the cells it computes.
#include "core/kernels/block_plan.h"

namespace attnlab {

double BlockPlan::bytes() const {
    double splitBytes = 0;
    for (const SplitRows& split : splits)
        splitBytes += static_cast<double>(sizeof(SplitRows) + split.rows.size() * sizeof(std::int64_t));
    return static_cast<double>(passEnd.size() * sizeof(std::int64_t) + blocks.size() * sizeof(PlanBlock) +
                               rows.size() * sizeof(std::int64_t) + pieces.size() * sizeof(PlanPiece) +
                               columns.size() * sizeof(std::int64_t) + masks.size() * sizeof(std::uint64_t) +
                               rowSpans.size() * sizeof(ColumnRange) + bandRuns.size() * sizeof(BandRun) +
                               bandDiagonals.size() * sizeof(BandDiagonal)) +
           splitBytes;
}

void forEachPlanCell(const BlockPlan& plan, const std::function<void(std::int64_t i, std::int64_t j)>& cell) {
    for (const PlanBlock& block : plan.blocks)
        for (std::int64_t p = block.pieceBegin; p < block.pieceEnd; ++p) {
            const PlanPiece& piece = plan.pieces[static_cast<std::size_t>(p)];
            if (piece.band) {
                for (std::int64_t e = 0; e < piece.count; ++e)
                    for (std::int64_t r = 0; r < block.rowCount; ++r)
                        if (plan.cellAllowed(piece, e, r))
                            cell(plan.rows[static_cast<std::size_t>(block.rowOffset + r)],
                                 plan.bandKey(block, piece, e, r));
                continue;
            }
            if (piece.rowWise) {
                for (std::int64_t r = 0; r < block.rowCount; ++r) {
                    const ColumnRange span = plan.rowSpans[static_cast<std::size_t>(piece.first + r)];
                    for (std::int64_t e = span.begin; e < span.end; ++e)
                        cell(plan.rows[static_cast<std::size_t>(block.rowOffset + r)],
                             plan.columns[static_cast<std::size_t>(e)]);
                }
                continue;
            }
            for (std::int64_t c = 0; c < piece.count; ++c)
                for (std::int64_t r = 0; r < block.rowCount; ++r)
                    if (plan.cellAllowed(piece, c, r))
                        cell(plan.rows[static_cast<std::size_t>(block.rowOffset + r)], plan.column(piece, c));
        }
}

} // namespace attnlab
