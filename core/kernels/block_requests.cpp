// What a block requests ahead while its tiles run: the next block's lines, queued (block_job.h).
#include "core/kernels/block_job.h"

#include <algorithm>

namespace attnlab::block {

namespace {

// The consecutive key columns a block's shared pieces sweep, as one range from the lowest to the highest
// (empty when it has none).
ColumnRange consecutiveSweep(const BlockPlan& plan, const PlanBlock& block) {
    ColumnRange sweep{0, 0};
    for (std::int64_t p = block.pieceBegin; p < block.pieceEnd; ++p) {
        const PlanPiece& piece = plan.pieces[static_cast<std::size_t>(p)];
        if (!piece.consecutive || piece.rowWise || piece.band || piece.count == 0) continue;
        const ColumnRange range{piece.first, piece.first + piece.count};
        sweep = sweep.end > sweep.begin
                    ? ColumnRange{std::min(sweep.begin, range.begin), std::max(sweep.end, range.end)}
                    : range;
    }
    return sweep;
}

// Consecutive key columns of the next block that this block does not sweep, whose K and V rows are queued
// unless one head's K and V take at most kCachedKeyBytes (half of a core's L2 on the machine measured):
// below that they stay cached and the requests only cost time (docs/execution_plans.md, "Memory layout
// and traffic"). Longer runs of new keys (a block in another part of
// a long sweep) are left to the hardware prefetcher, so that the rest of the queue, requested in one
// burst at the block's end, stays short.
constexpr std::int64_t kQueuedNewKeys = 128;
constexpr double kCachedKeyBytes = 512 << 10;

// The K and V rows of keys [begin, end), each tensor's rows one run of memory.
void queueKeys(const BlockJob& job, std::int64_t begin, std::int64_t end, tile::PrefetchLines& lines) {
    if (end <= begin) return;
    lines.append(job.inputs->k->row(job.kvHead, begin), (end - begin) * job.inputs->k->cols);
    lines.append(job.inputs->v->row(job.kvHead, begin), (end - begin) * job.inputs->v->cols);
}

// The K and V rows of keys columns[0, count) (negative ones skipped), consecutive keys queued together.
template <typename Column>
void queueColumns(const BlockJob& job, std::int64_t count, Column column, tile::PrefetchLines& lines) {
    for (std::int64_t c = 0; c < count;) {
        const std::int64_t first = column(c);
        std::int64_t last = first;
        for (++c; c < count && first >= 0 && column(c) == last + 1; ++c) ++last;
        if (first >= 0) queueKeys(job, first, last + 1, lines);
    }
}

// Whether `block` has a band run with the same key columns as `run` of `plan`.
bool holdsRun(const BlockPlan& plan, const PlanBlock& block, const BandRun& run) {
    const auto* columns = plan.columns.data() + run.first;
    for (std::int64_t r = block.bandRunBegin; r < block.bandRunEnd; ++r) {
        const BandRun& other = plan.bandRuns[static_cast<std::size_t>(r)];
        if (other.count == run.count &&
            std::equal(columns, columns + run.count, plan.columns.data() + other.first))
            return true;
    }
    return false;
}

// The K and V rows of the next block's band runs that this block does not have.
void queueBandRuns(const BlockJob& job, const PlanBlock& next, tile::PrefetchLines& lines) {
    for (std::int64_t r = next.bandRunBegin; r < next.bandRunEnd; ++r) {
        const BandRun& run = job.plan->bandRuns[static_cast<std::size_t>(r)];
        if (holdsRun(*job.plan, *job.block, run)) continue;
        const auto* columns = job.plan->columns.data() + run.first;
        queueColumns(job, run.count, [columns](std::int64_t c) { return columns[c]; }, lines);
    }
}

} // namespace

void queueBlockLines(const BlockJob& job, std::size_t next, Workspace& ws) {
    tile::PrefetchLines& lines = ws.prefetchLines;
    lines.clear();
    if (next < job.plan->blocks.size()) {
        const PlanBlock& block = job.plan->blocks[next];
        for (std::int64_t r = 0; r < block.rowCount; ++r) {
            const std::int64_t row = job.plan->rows[static_cast<std::size_t>(block.rowOffset + r)];
            lines.append(job.inputs->q->row(job.head, row), job.inputs->q->cols);
            if (block.resume) lines.append(job.out->row(job.head, row), job.out->cols);
        }
        if (block.hasBand()) queueBandRuns(job, block, lines);
        const ColumnRange swept = consecutiveSweep(*job.plan, *job.block);
        std::int64_t newKeys = headKeysWithin(job, kCachedKeyBytes) ? 0 : kQueuedNewKeys;
        auto queueNew = [&](std::int64_t begin, std::int64_t end) {
            const std::int64_t queued = std::clamp<std::int64_t>(end - begin, 0, newKeys);
            queueKeys(job, begin, begin + queued, lines);
            newKeys -= queued;
        };
        for (std::int64_t p = block.pieceBegin; p < block.pieceEnd; ++p) {
            const PlanPiece& piece = job.plan->pieces[static_cast<std::size_t>(p)];
            if (piece.rowWise || piece.band) continue;
            if (piece.consecutive) {
                const std::int64_t end = piece.first + piece.count;
                queueNew(piece.first, std::min(end, swept.begin));
                queueNew(std::max(piece.first, swept.end), end);
                continue;
            }
            queueColumns(job, piece.count, [&](std::int64_t c) { return job.plan->column(piece, c); }, lines);
        }
    }
    ws.prefetchQueue = lines.queue();
}

} // namespace attnlab::block
