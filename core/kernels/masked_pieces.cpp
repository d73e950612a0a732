// Masked pieces of the block kernel (block_job.h): S^T tile by tile over the query vectors a piece's mask
// reaches, and P·V over the runs of keys its rows see.
#include "core/kernels/block_job.h"

#include <algorithm>

namespace attnlab::block {

namespace {

// Lowest and highest set bit of a non-zero word.
int lowestBit(std::uint64_t word) {
    return __builtin_ctzll(word);
}
int highestBit(std::uint64_t word) {
    return 63 - __builtin_clzll(word);
}

// Lowest set bit of a non-empty column set.
int lowestColumn(tile::ColumnSet set) {
    const auto low = static_cast<std::uint64_t>(set);
    return low != 0 ? __builtin_ctzll(low) : 64 + __builtin_ctzll(static_cast<std::uint64_t>(set >> 64));
}

// Calls run(first, end) for each run of the set's columns, bridging gaps of fewer than `gap` columns.
template <typename Run> void forEachColumnRun(tile::ColumnSet set, int gap, Run run) {
    static_assert(kPlanKeyBlock < 128, "a run's end stays a valid shift");
    while (set != 0) {
        const int first = lowestColumn(set);
        int end = first;
        tile::ColumnSet rest = set >> first;
        while (true) {
            const int ones = lowestColumn(~rest);
            end += ones;
            rest >>= ones;
            if (rest == 0) break;
            const int zeros = lowestColumn(rest);
            if (zeros >= gap) break;
            end += zeros;
            rest >>= zeros;
        }
        run(first, end);
        set = rest << end;
    }
}

} // namespace

// S^T for a masked piece, tile by tile (kTileRows keys × the query vectors its mask bits reach): the
// cells left out are all outside the mask, which the softmax reads as −inf.
void maskedPieceScores(const BlockJob& job, const PlanPiece& piece, tile::TileProduct product,
                       Workspace& ws) {
    const std::uint64_t* words = job.plan->masks.data() + piece.mask;
    for (std::int64_t c0 = 0; c0 < piece.count; c0 += tile::kTileRows) {
        const std::int64_t keys = std::min<std::int64_t>(tile::kTileRows, piece.count - c0);
        std::uint64_t bits = 0;
        for (std::int64_t c = c0; c < c0 + keys; ++c)
            bits |= words[c];
        if (bits == 0) continue;
        const int first = lowestBit(bits) / tile::kLanes * tile::kLanes;
        const int last = std::min(job.width(), (highestBit(bits) / tile::kLanes + 1) * tile::kLanes);
        tile::TileProduct part = product;
        part.aRows = ws.keyRows.data() + c0;
        part.b = ws.queryT.data() + first;
        part.c = ws.scores.data() + c0 * kQueryBlock + first;
        tile::multiplyTile(part, static_cast<int>(keys), last - first);
    }
}

// O += P·V for a masked piece, kTileRows query rows at a time over the runs of keys their mask bits
// reach (P is exactly 0 elsewhere; gaps shorter than kKeyGap are run through): the first run rescales
// the rows' earlier output, the others add; rows with none still get their rescale.
void maskedPieceUpdate(const BlockJob& job, const PlanPiece& piece, tile::TileProduct update,
                       std::int64_t dv) {
    constexpr int kKeyGap = 8;
    const std::uint64_t* words = job.plan->masks.data() + piece.mask;
    const float* scores = update.a;
    float* output = update.c;
    for (std::int64_t r0 = 0; r0 < job.rows(); r0 += tile::kTileRows) {
        const std::int64_t rows = std::min<std::int64_t>(tile::kTileRows, job.rows() - r0);
        const std::uint64_t tileBits = ((std::uint64_t{1} << rows) - 1) << r0;
        tile::TileProduct part = update;
        part.c = output + r0 * update.cRowStride;
        if (part.rowScale) part.rowScale += r0;
        auto run = [&](std::int64_t first, std::int64_t last) {
            part.depth = last - first;
            part.a = scores + r0 + first * kQueryBlock;
            if (update.bRows)
                part.bRows = update.bRows + first;
            else
                part.b = update.b + first * update.bRowStride;
            tile::multiplyBlock(part, rows, dv);
            part.mode = tile::Accumulate::Add;
        };
        const tile::ColumnSet seen = tile::columnsSeenBy(words, piece.count, tileBits);
        if (seen != 0)
            forEachColumnRun(seen, kKeyGap, run);
        else if (part.mode == tile::Accumulate::ScaleAndAdd)
            run(0, 0);
    }
}

} // namespace attnlab::block
