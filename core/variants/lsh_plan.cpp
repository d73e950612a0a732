#include "core/variants/lsh_plan.h"

#include <algorithm>

namespace attnlab {

namespace {

// Rows (or keys) sorted by bucket, then by index: order[start[b] … start[b + 1]) are bucket b's.
void sortByBucket(const std::vector<std::int64_t>& bucket, std::size_t buckets, std::vector<std::int64_t>& order,
                  std::vector<std::int64_t>& start, std::vector<std::int64_t>& next) {
    start.assign(buckets + 1, 0);
    for (const std::int64_t b : bucket) ++start[static_cast<std::size_t>(b) + 1];
    for (std::size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
    order.resize(bucket.size());
    next.assign(start.begin(), start.end() - 1);
    for (std::size_t x = 0; x < bucket.size(); ++x)
        order[static_cast<std::size_t>(next[static_cast<std::size_t>(bucket[x])]++)] = static_cast<std::int64_t>(x);
}

// Any number of rounds, through appendPass: a row's keys in round r leave out those matched earlier.
void buildRoundsPlan(const HeadHashes& hashes, std::int64_t n, const ParamSet& params, bool causal, BlockPlan& plan) {
    const bool shared = params.flag("shared_qk");
    const auto buckets = static_cast<std::size_t>(params.integer("buckets"));
    const std::size_t rounds = hashes.key.size();
    std::vector<std::vector<std::int64_t>> keyOrder(rounds), bucketStart(rounds);
    std::vector<PlanRowOrder> rowOrder(rounds);
    std::vector<std::int64_t> next;
    for (std::size_t r = 0; r < rounds; ++r) {
        sortByBucket(hashes.key[r], buckets, keyOrder[r], bucketStart[r], next);
        std::vector<std::int64_t> rowStart;
        sortByBucket(hashes.query[r], buckets, rowOrder[r].rows, rowStart, next);
        for (std::size_t b = 1; b <= buckets; ++b)
            if (rowStart[b] > rowStart[b - 1]) rowOrder[r].segmentEnds.push_back(rowStart[b]);
    }
    // Row i's keys in round r as positions of keyOrder[r], without pairs matched in earlier rounds.
    auto roundKeys = [&](std::size_t r, std::int64_t i, auto&& take) {
        const auto b = static_cast<std::size_t>(hashes.query[r][static_cast<std::size_t>(i)]);
        for (std::int64_t p = bucketStart[r][b]; p < bucketStart[r][b + 1]; ++p) {
            const std::int64_t j = keyOrder[r][static_cast<std::size_t>(p)];
            if (causal && j > i) break;
            bool earlier = false;
            for (std::size_t e = 0; e < r && !earlier; ++e)
                earlier = hashes.query[e][static_cast<std::size_t>(i)] == hashes.key[e][static_cast<std::size_t>(j)];
            if (!earlier) take(p, j);
        }
    };
    std::vector<std::uint8_t> hasOther(static_cast<std::size_t>(n), 0), hasAny(static_cast<std::size_t>(n), 0);
    for (std::size_t r = 0; r < rounds; ++r)
        for (std::int64_t i = 0; i < n; ++i)
            roundKeys(r, i, [&](std::int64_t, std::int64_t j) {
                hasAny[static_cast<std::size_t>(i)] = 1;
                if (j != i) hasOther[static_cast<std::size_t>(i)] = 1;
            });
    plan.n = n;
    for (std::size_t r = 0; r < rounds; ++r) {
        std::vector<std::int64_t> position(static_cast<std::size_t>(n));
        for (std::int64_t p = 0; p < n; ++p) position[static_cast<std::size_t>(keyOrder[r][static_cast<std::size_t>(p)])] = p;
        PassSpec pass;
        pass.order = &rowOrder[r];
        pass.columnOrder = &keyOrder[r];
        pass.resume = r > 0;
        pass.finish = r + 1 == rounds;
        std::vector<std::int64_t> positions;
        pass.ranges = [&](std::int64_t i, std::vector<ColumnRange>& out) {
            positions.clear();
            roundKeys(r, i, [&](std::int64_t p, std::int64_t j) {
                if (!(shared && j == i && hasOther[static_cast<std::size_t>(i)])) positions.push_back(p);
            });
            if (r == 0 && !hasAny[static_cast<std::size_t>(i)]) positions.push_back(position[static_cast<std::size_t>(i)]);
            std::sort(positions.begin(), positions.end());
            for (const std::int64_t p : positions)
                if (!out.empty() && out.back().end == p)
                    ++out.back().end;
                else
                    out.push_back({p, p + 1});
        };
        appendPass(plan, pass);
    }
}


// One thread's scratch for single-round plans, kept between calls.
struct RoundScratch {
    std::vector<std::int64_t> keyOrder, keyStart, rowOrder, rowStart, next, keyPosition;
    std::vector<std::int64_t> count, excluded; // per row of a block
};

// Offsets [from, to) of a block's key run cut into pieces of equal width (a multiple of the kernel's
// 6-key tiles, at most kPlanKeyBlock), as appendPass cuts them.
template <typename Piece>
void cutRun(std::int64_t from, std::int64_t to, Piece&& piece) {
    const std::int64_t pieces = (to - from + kPlanKeyBlock - 1) / kPlanKeyBlock;
    if (pieces == 0) return;
    const std::int64_t width = std::min(kPlanKeyBlock, ((to - from + pieces - 1) / pieces + 5) / 6 * 6);
    for (std::int64_t begin = from; begin < to; begin += width) piece(begin, std::min(to, begin + width));
}

// One block: up to 64 rows of bucket b (ascending) against the bucket's keys, keyOrder positions
// [keyBegin, keyEnd). Row r sees the first count[r] of them (the keys j ≤ i when causal), except
// the offset excluded[r] (its own key, with shared_qk); a row that sees none gets its own key in a
// piece of its own. Columns of the run are the pass's permutation copy at columnBase.
void appendBucketBlock(BlockPlan& plan, const std::int64_t* rowIds, std::int64_t rows, std::int64_t keyBegin,
                       std::int64_t keyEnd, std::int64_t columnBase, const std::vector<std::int64_t>& keyBucket,
                       bool shared, bool causal, RoundScratch& s) {
    PlanBlock block;
    block.rowOffset = static_cast<std::int64_t>(plan.rows.size());
    block.rowCount = static_cast<std::int32_t>(rows);
    block.consecutiveRows = rowIds[rows - 1] - rowIds[0] == rows - 1;
    block.pieceBegin = static_cast<std::int64_t>(plan.pieces.size());
    plan.rows.insert(plan.rows.end(), rowIds, rowIds + rows);
    const std::int64_t* keys = s.keyOrder.data();
    const std::int64_t bucket = keyBegin < keyEnd ? keyBucket[static_cast<std::size_t>(keys[keyBegin])] : -1;
    s.count.resize(static_cast<std::size_t>(rows));
    s.excluded.resize(static_cast<std::size_t>(rows));
    std::int64_t width = 0, lonely = 0;
    for (std::int64_t r = 0; r < rows; ++r) {
        const std::int64_t i = rowIds[r];
        const std::int64_t count = causal ? std::upper_bound(keys + keyBegin, keys + keyEnd, i) - (keys + keyBegin)
                                          : keyEnd - keyBegin;
        const bool ownInBucket = keyBucket[static_cast<std::size_t>(i)] == bucket; // then within the count
        const std::int64_t excluded =
            shared && ownInBucket && count > 1 ? s.keyPosition[static_cast<std::size_t>(i)] - keyBegin : -1;
        s.count[static_cast<std::size_t>(r)] = count;
        s.excluded[static_cast<std::size_t>(r)] = excluded;
        width = std::max(width, excluded == count - 1 ? count - 1 : count);
        if (count == 0) ++lonely;
    }
    cutRun(0, width, [&](std::int64_t from, std::int64_t to) {
        PlanPiece piece;
        piece.first = columnBase + keyBegin + from;
        piece.count = static_cast<std::int32_t>(to - from);
        piece.consecutive = false;
        bool full = true;
        for (std::int64_t r = 0; r < rows && full; ++r) {
            const std::int64_t excluded = s.excluded[static_cast<std::size_t>(r)];
            full = s.count[static_cast<std::size_t>(r)] >= to && !(excluded >= from && excluded < to);
        }
        if (!full) {
            piece.mask = static_cast<std::int64_t>(plan.masks.size());
            plan.masks.resize(plan.masks.size() + static_cast<std::size_t>(to - from), 0);
            std::uint64_t* words = plan.masks.data() + piece.mask - from;
            for (std::int64_t r = 0; r < rows; ++r) {
                const std::uint64_t bit = std::uint64_t{1} << r;
                for (std::int64_t c = from; c < std::min(to, s.count[static_cast<std::size_t>(r)]); ++c) words[c] |= bit;
                const std::int64_t excluded = s.excluded[static_cast<std::size_t>(r)];
                if (excluded >= from && excluded < to) words[excluded] &= ~bit;
            }
        }
        plan.pieces.push_back(piece);
    });
    if (lonely > 0) {
        PlanPiece piece;
        piece.first = static_cast<std::int64_t>(plan.columns.size());
        piece.count = static_cast<std::int32_t>(lonely);
        piece.consecutive = false;
        piece.mask = static_cast<std::int64_t>(plan.masks.size());
        for (std::int64_t r = 0; r < rows; ++r)
            if (s.count[static_cast<std::size_t>(r)] == 0) {
                plan.columns.push_back(rowIds[r]);
                plan.masks.push_back(std::uint64_t{1} << r);
            }
        plan.pieces.push_back(piece);
    }
    block.pieceEnd = static_cast<std::int64_t>(plan.pieces.size());
    plan.blocks.push_back(block);
}

// One round, built directly: O(n + masked cells / 64) time, no pattern queries.
void buildOneRoundPlan(const HeadHashes& hashes, std::int64_t n, const ParamSet& params, bool causal, BlockPlan& plan) {
    static thread_local RoundScratch scratch;
    RoundScratch& s = scratch;
    const auto buckets = static_cast<std::size_t>(params.integer("buckets"));
    const bool shared = params.flag("shared_qk");
    const std::vector<std::int64_t>& keyBucket = hashes.key[0];
    sortByBucket(keyBucket, buckets, s.keyOrder, s.keyStart, s.next);
    sortByBucket(hashes.query[0], buckets, s.rowOrder, s.rowStart, s.next);
    s.keyPosition.resize(static_cast<std::size_t>(n));
    for (std::int64_t p = 0; p < n; ++p) s.keyPosition[static_cast<std::size_t>(s.keyOrder[static_cast<std::size_t>(p)])] = p;
    plan.n = n;
    const auto columnBase = static_cast<std::int64_t>(plan.columns.size());
    plan.columns.insert(plan.columns.end(), s.keyOrder.begin(), s.keyOrder.end());
    for (std::size_t b = 0; b < buckets; ++b)
        for (std::int64_t offset = s.rowStart[b]; offset < s.rowStart[b + 1]; offset += kPlanQueryBlock)
            appendBucketBlock(plan, s.rowOrder.data() + offset, std::min(kPlanQueryBlock, s.rowStart[b + 1] - offset),
                              s.keyStart[b], s.keyStart[b + 1], columnBase, keyBucket, shared, causal, s);
    plan.passEnd.push_back(static_cast<std::int64_t>(plan.blocks.size()));
}

void clearPlan(BlockPlan& plan) {
    plan.n = 0;
    plan.passEnd.clear();
    plan.blocks.clear();
    plan.rows.clear();
    plan.pieces.clear();
    plan.columns.clear();
    plan.masks.clear();
    plan.rowSpans.clear();
    plan.splits.clear();
    plan.partialSlots = 0;
}

} // namespace

std::shared_ptr<const BlockPlan> lshPlan(const HeadHashes& hashes, std::int64_t n, const ParamSet& params, bool causal,
                                         std::shared_ptr<BlockPlan>* storage) {
    std::shared_ptr<BlockPlan> plan;
    if (storage && *storage && storage->use_count() == 1) {
        plan = *storage;
        clearPlan(*plan);
    } else {
        plan = std::make_shared<BlockPlan>();
        if (storage) *storage = plan;
    }
    if (hashes.key.size() == 1)
        buildOneRoundPlan(hashes, n, params, causal, *plan);
    else
        buildRoundsPlan(hashes, n, params, causal, *plan);
    return plan;
}

} // namespace attnlab
