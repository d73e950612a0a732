// Band pieces for blocks of strips of grid cells (band_plan.h).
#include "core/kernels/band_plan.h"
#include "core/kernels/grid_plan.h"
#include "core/kernels/row_math.h"
#include "core/kernels/tile_math.h"

#include <algorithm>
#include <bit>
#include <limits>
#include <utility>

namespace attnlab {

namespace {

using tile::kLanes;

// One row-wise cell costs about this many shared ones (row_wise_columns.cpp, kRowWiseCellCost).
constexpr double kRowWiseCellCost = 1.6;

// The 16-row vectors of a 64-bit row mask that hold a set bit.
int vectorsReached(std::uint64_t word) {
    int vectors = 0;
    for (int g = 0; g < kPlanQueryBlock; g += kLanes)
        vectors += ((word >> g) & 0xFFFFu) != 0 ? 1 : 0;
    return vectors;
}

// A block's band form: diagonals by base (the raster index lane 0 of a diagonal meets), each with its mask,
// and the key runs in raster indices they read.
struct BandForm {
    std::vector<std::int64_t> bases;
    std::vector<std::uint64_t> words;
    std::vector<ColumnRange> runs; // raster indices [begin, end), ascending, disjoint
    double cells = 0;
};

struct BandScratch {
    std::vector<ColumnRange> row;
    std::vector<std::int64_t> keys;
    std::vector<std::pair<ColumnRange, std::uint64_t>> intervals; // diagonal bases with the row bit
    std::vector<std::int64_t> ends;
    std::vector<std::uint64_t> segmentWords;
};

// Whether every 16 rows of the block (a vector of the kernel) are consecutive cells in raster order; the
// rows' raster indices in `indices`.
bool stripIndices(const BlockPlan& plan, const PlanBlock& block, const TokenGrid& grid,
                  std::vector<std::int64_t>& indices) {
    indices.clear();
    for (std::int64_t r = 0; r < block.rowCount; ++r) {
        const std::int64_t i = plan.rows[static_cast<std::size_t>(block.rowOffset + r)];
        indices.push_back(grid.rasterIndex(grid.cellAt(i)));
        if (r % kLanes != 0 &&
            indices[static_cast<std::size_t>(r)] != indices[static_cast<std::size_t>(r) - 1] + 1)
            return false;
    }
    return true;
}

// Row i's allowed keys as sorted runs of raster indices.
void rasterRanges(const Pattern& pattern, const TokenGrid& grid, std::int64_t i, BandScratch& s,
                  std::vector<ColumnRange>& out) {
    out.clear();
    s.row.clear();
    pattern.rowRanges(i, s.row);
    if (grid.order().kind == TokenOrderKind::Raster) {
        for (const ColumnRange& range : s.row)
            if (range.size() > 0) out.push_back(range);
        return;
    }
    s.keys.clear();
    for (const ColumnRange& range : s.row)
        for (std::int64_t j = range.begin; j < range.end; ++j)
            s.keys.push_back(grid.rasterIndex(grid.cellAt(j)));
    std::sort(s.keys.begin(), s.keys.end());
    for (const std::int64_t key : s.keys)
        if (!out.empty() && out.back().end == key)
            ++out.back().end;
        else
            out.push_back({key, key + 1});
}

// The band form of a block whose rows are strips (stripIndices); false when its key runs hold
// more than kMaxBandKeys places.
bool bandForm(const Pattern& pattern, const TokenGrid& grid, const BlockPlan& plan, const PlanBlock& block,
              BandScratch& s, std::vector<ColumnRange>& keys, BandForm& form) {
    s.intervals.clear();
    s.ends.clear();
    for (std::int64_t r = 0; r < block.rowCount; ++r) {
        rasterRanges(pattern, grid, plan.rows[static_cast<std::size_t>(block.rowOffset + r)], s, keys);
        // Lane l = r mod 16 meets key base + l on the diagonal of base key − l, whichever vector it is in.
        const std::int64_t lane = r % kLanes;
        for (const ColumnRange& range : keys) {
            s.intervals.push_back({{range.begin - lane, range.end - lane}, std::uint64_t{1} << r});
            s.ends.push_back(range.begin - lane);
            s.ends.push_back(range.end - lane);
        }
    }
    std::sort(s.ends.begin(), s.ends.end());
    s.ends.erase(std::unique(s.ends.begin(), s.ends.end()), s.ends.end());
    s.segmentWords.assign(s.ends.size(), 0);
    for (const auto& [range, bit] : s.intervals)
        for (auto at = std::lower_bound(s.ends.begin(), s.ends.end(), range.begin); *at < range.end; ++at)
            s.segmentWords[static_cast<std::size_t>(at - s.ends.begin())] |= bit;
    // Lane l of a diagonal reads base + l: a diagonal needs places [base, base + 16).
    form = {};
    std::int64_t places = 0;
    for (std::size_t k = 0; k + 1 < s.ends.size(); ++k) {
        if (s.segmentWords[k] == 0) continue;
        const ColumnRange reads{s.ends[k], s.ends[k + 1] + kLanes - 1};
        if (!form.runs.empty() && reads.begin <= form.runs.back().end) {
            places += std::max<std::int64_t>(0, reads.end - form.runs.back().end);
            form.runs.back().end = std::max(form.runs.back().end, reads.end);
        } else {
            places += reads.size();
            form.runs.push_back(reads);
        }
        if (places > kMaxBandKeys) return false;
    }
    for (std::size_t k = 0; k + 1 < s.ends.size(); ++k)
        for (std::int64_t base = s.ends[k]; base < s.ends[k + 1] && s.segmentWords[k] != 0; ++base) {
            form.bases.push_back(base);
            form.words.push_back(s.segmentWords[k]);
            form.cells += kLanes * vectorsReached(s.segmentWords[k]);
        }
    return true;
}

// Pieces of at most kPlanKeyBlock diagonals, cut where one run's diagonals end and the next begin unless a
// run holds more, and of about equal size.
std::vector<std::size_t> pieceCuts(const BandForm& form, const std::vector<std::int32_t>& runOf) {
    const auto total = static_cast<std::int64_t>(form.bases.size());
    const std::int64_t pieces = (total + kPlanKeyBlock - 1) / kPlanKeyBlock;
    const std::int64_t target = (total + pieces - 1) / pieces;
    std::vector<std::size_t> cuts = {0};
    std::size_t e = 0;
    while (e < form.bases.size()) {
        std::size_t runEnd = e;
        while (runEnd < form.bases.size() && runOf[runEnd] == runOf[e])
            ++runEnd;
        const auto size = static_cast<std::int64_t>(runEnd - e),
                   open = static_cast<std::int64_t>(e - cuts.back());
        if (open > 0 && open + size > target) cuts.push_back(e);
        for (std::int64_t part = 1; part * kPlanKeyBlock < size; ++part)
            cuts.push_back(
                e + static_cast<std::size_t>(part * size / ((size + kPlanKeyBlock - 1) / kPlanKeyBlock)));
        e = runEnd;
    }
    cuts.push_back(form.bases.size());
    cuts.erase(std::unique(cuts.begin(), cuts.end()), cuts.end());
    return cuts;
}

void appendBand(BlockPlan& plan, PlanBlock& block, const TokenGrid& grid, const BandForm& form) {
    block.bandRunBegin = static_cast<std::int64_t>(plan.bandRuns.size());
    std::vector<std::int64_t> runStart; // first raster index of each run
    for (const ColumnRange& run : form.runs) {
        plan.bandRuns.push_back(
            {static_cast<std::int64_t>(plan.columns.size()), static_cast<std::int32_t>(run.size())});
        runStart.push_back(run.begin);
        for (std::int64_t g = run.begin; g < run.end; ++g)
            plan.columns.push_back(g >= 0 && g < grid.cells() ? grid.positionOf(grid.rasterCell(g)) : -1);
    }
    block.bandRunEnd = static_cast<std::int64_t>(plan.bandRuns.size());
    std::vector<std::int32_t> runOf(form.bases.size());
    std::size_t run = 0;
    for (std::size_t e = 0; e < form.bases.size(); ++e) {
        while (form.bases[e] >= form.runs[run].end)
            ++run;
        runOf[e] = static_cast<std::int32_t>(run);
    }
    block.pieceBegin = static_cast<std::int64_t>(plan.pieces.size());
    const std::vector<std::size_t> cuts = pieceCuts(form, runOf);
    for (std::size_t c = 0; c + 1 < cuts.size(); ++c) {
        PlanPiece piece;
        piece.band = true;
        piece.consecutive = false;
        piece.first = static_cast<std::int64_t>(plan.bandDiagonals.size());
        piece.count = static_cast<std::int32_t>(cuts[c + 1] - cuts[c]);
        piece.mask = static_cast<std::int64_t>(plan.masks.size());
        for (std::size_t e = cuts[c]; e < cuts[c + 1]; ++e) {
            plan.bandDiagonals.push_back(
                {runOf[e],
                 static_cast<std::int32_t>(form.bases[e] - runStart[static_cast<std::size_t>(runOf[e])])});
            plan.masks.push_back(form.words[e]);
        }
        plan.pieces.push_back(piece);
    }
    block.pieceEnd = static_cast<std::int64_t>(plan.pieces.size());
}

// Copies the pieces of `block` of `from` (and what they index) to the end of `to`'s arrays.
void copyPieces(const BlockPlan& from, BlockPlan& to, PlanBlock& block) {
    const std::int64_t begin = block.pieceBegin, end = block.pieceEnd;
    block.pieceBegin = static_cast<std::int64_t>(to.pieces.size());
    for (std::int64_t p = begin; p < end; ++p) {
        PlanPiece piece = from.pieces[static_cast<std::size_t>(p)];
        if (piece.mask >= 0) {
            const auto first = from.masks.begin() + piece.mask;
            piece.mask = static_cast<std::int64_t>(to.masks.size());
            to.masks.insert(to.masks.end(), first, first + piece.count);
        }
        if (piece.rowWise) {
            const std::int64_t spans = piece.first;
            piece.first = static_cast<std::int64_t>(to.rowSpans.size());
            for (std::int64_t r = 0; r < block.rowCount; ++r) {
                const ColumnRange span = from.rowSpans[static_cast<std::size_t>(spans + r)];
                const auto start = static_cast<std::int64_t>(to.columns.size());
                to.columns.insert(to.columns.end(), from.columns.begin() + span.begin,
                                  from.columns.begin() + span.end);
                to.rowSpans.push_back({start, start + span.size()});
            }
        } else if (!piece.consecutive) {
            const auto first = from.columns.begin() + piece.first;
            piece.first = static_cast<std::int64_t>(to.columns.size());
            to.columns.insert(to.columns.end(), first, first + piece.count);
        }
        to.pieces.push_back(piece);
    }
    block.pieceEnd = static_cast<std::int64_t>(to.pieces.size());
}

} // namespace

std::array<std::int64_t, 3> bandTile(const TokenGrid& grid) {
    if (grid.width() >= kLanes)
        return {1, std::min<std::int64_t>(grid.height(), kPlanQueryBlock / kLanes), kLanes};
    const std::int64_t frame = grid.height() * grid.width();
    if (frame >= kPlanQueryBlock) return {1, kPlanQueryBlock / grid.width(), grid.width()};
    return {std::min(grid.frames(), kPlanQueryBlock / frame), grid.height(), grid.width()};
}

double blockComputedCells(const BlockPlan& plan, const PlanBlock& block) {
    double cells = 0;
    for (std::int64_t p = block.pieceBegin; p < block.pieceEnd; ++p) {
        const PlanPiece& piece = plan.pieces[static_cast<std::size_t>(p)];
        if (piece.rowWise) {
            for (std::int64_t r = 0; r < block.rowCount; ++r)
                cells += kRowWiseCellCost *
                         static_cast<double>(plan.rowSpans[static_cast<std::size_t>(piece.first + r)].size());
            continue;
        }
        if (piece.band) {
            for (std::int64_t e = 0; e < piece.count; ++e)
                cells += kLanes * vectorsReached(plan.masks[static_cast<std::size_t>(piece.mask + e)]);
            continue;
        }
        const double width = static_cast<double>(tile::paddedWidth(block.rowCount));
        if (piece.mask < 0) {
            cells += width * piece.count;
            continue;
        }
        // As the kernel's masked tiles: per 6 keys, the vectors from the lowest to the highest set bit.
        for (std::int64_t c0 = 0; c0 < piece.count; c0 += tile::kTileRows) {
            std::uint64_t bits = 0;
            const std::int64_t keys = std::min<std::int64_t>(tile::kTileRows, piece.count - c0);
            for (std::int64_t c = c0; c < c0 + keys; ++c)
                bits |= plan.masks[static_cast<std::size_t>(piece.mask + c)];
            if (bits != 0)
                cells += static_cast<double>(
                    keys * kLanes *
                    ((63 - std::countl_zero(bits)) / kLanes - std::countr_zero(bits) / kLanes + 1));
        }
    }
    return cells;
}

double planComputedCells(const BlockPlan& plan, bool weighted) {
    double cells = 0;
    for (const PlanBlock& block : plan.blocks)
        cells += (weighted && block.hasBand() ? kBandCellCost : 1.0) * blockComputedCells(plan, block);
    return cells;
}

std::shared_ptr<const BlockPlan> withBandPieces(const BlockPlan& plan, const Pattern& pattern,
                                                const TokenGrid& grid, bool always) {
    auto banded = std::make_shared<BlockPlan>();
    banded->n = plan.n;
    banded->passEnd = plan.passEnd;
    banded->rows = plan.rows;
    banded->splits = plan.splits;
    banded->partialSlots = plan.partialSlots;
    banded->blocks = plan.blocks;
    BandScratch scratch;
    BandForm form;
    std::vector<std::int64_t> indices;
    std::vector<ColumnRange> keys;
    std::vector<bool> band(plan.blocks.size(), false);
    for (std::size_t b = 0; b < plan.blocks.size(); ++b) {
        PlanBlock& block = banded->blocks[b];
        band[b] = block.partialSlot < 0 && !block.resume && block.rowCount > tile::kSharedLoadRows &&
                  stripIndices(plan, block, grid, indices) &&
                  bandForm(pattern, grid, plan, block, scratch, keys, form) &&
                  (always || kBandCellCost * form.cells < blockComputedCells(plan, block));
        if (band[b])
            appendBand(*banded, block, grid, form);
        else
            copyPieces(plan, *banded, block);
    }
    for (std::size_t b = 0; b < banded->blocks.size(); ++b)
        if (banded->blocks[b].pairedWithNext && (band[b] || band[b + 1]))
            banded->blocks[b].pairedWithNext = false;
    return banded;
}

} // namespace attnlab

namespace attnlab {

std::shared_ptr<const BlockPlan> bandBlockPlan(const Pattern& pattern, const TokenGrid& grid, bool always) {
    const std::vector<std::int64_t> counts = rowCounts(pattern);
    const std::vector<bool> heavy = heavyRowFlags(counts, meanRowKeys(counts));
    std::vector<std::int64_t> heavyRows;
    for (std::size_t i = 0; i < heavy.size(); ++i)
        if (heavy[i]) heavyRows.push_back(static_cast<std::int64_t>(i));
    const auto plan = orderedBlockPlan(pattern, gridTileOrder(grid, bandTile(grid), heavy, true), heavyRows,
                                       kPlanQueryBlock, false, RowWiseColumns::WholeBlocksOnly);
    return withBandPieces(*plan, pattern, grid, always);
}

} // namespace attnlab
