// bigbird: Longformer window (δ = 1, radius ⌊w/2⌋) ∪ the first g tokens as global rows and columns
// (∧ j ≤ i if causal); then each row draws r distinct extra keys uniformly, without replacement, from the
// columns it does not yet allow (j ≤ i if causal), fewer if fewer remain. One mask for all heads.
// Block mode (block = b > 1): the same definition on the grid of ⌈n/b⌉ blocks — window, globals and
// random keys counted in blocks, drawn per query block — and cell (i, j) allowed iff its block is
// (∧ j ≤ i if causal), as BigBird's own implementation draws its random attention.
#include "core/decode/decode.h"
#include "core/kernels/block_plan.h"
#include "core/patterns/block_grid_pattern.h"
#include "core/patterns/range_algebra.h"
#include "core/random/random.h"
#include "core/variants/variant_support.h"

#include <algorithm>
#include <unordered_set>

namespace attnlab {

namespace {

// The parameters on the grid the pattern is defined on: `units` tokens (block = 1) or blocks of
// `block` tokens; radius, globals and random keys count units.
struct BigBirdGrid {
    std::int64_t n = 0, block = 1, units = 0, radius = 0, globals = 0, extra = 0;
    std::uint64_t seed = 0;
    bool causal = false;
};

BigBirdGrid bigBirdGrid(const ProblemShape& shape, const ParamSet& params) {
    BigBirdGrid grid;
    grid.n = shape.n;
    grid.block = params.integer("block");
    grid.units = blockCount(shape.n, grid.block);
    grid.radius = params.integer("window") / 2;
    grid.globals = std::min(grid.units, params.integer("globals"));
    grid.extra = params.integer("random");
    grid.seed = static_cast<std::uint64_t>(params.integer("seed"));
    grid.causal = shape.causal;
    return grid;
}

// The deterministic part of unit row i of `units`: window and globals, as sorted ranges appended to `out`
// (the globals start at 0, so they come first and the window joins them where they meet).
void appendBaseRanges(std::int64_t i, std::int64_t n, std::int64_t radius, std::int64_t globals, bool causal,
                      std::vector<ColumnRange>& out) {
    const std::int64_t last = causal ? i : n - 1;
    if (i < globals) {
        out.push_back({0, last + 1});
        return;
    }
    appendRange(out, 0, std::min(globals, last + 1), n);
    appendRange(out, i - radius, std::min(i + radius, last) + 1, n);
}

std::vector<ColumnRange> baseRanges(std::int64_t i, std::int64_t n, std::int64_t radius, std::int64_t globals,
                                    bool causal) {
    std::vector<ColumnRange> out;
    appendBaseRanges(i, n, radius, globals, causal, out);
    return out;
}

// Token row i's window and globals (its block's, as token ranges, ∧ j ≤ i if causal).
std::vector<ColumnRange> tokenBaseRanges(std::int64_t i, const BigBirdGrid& grid) {
    const auto base = baseRanges(i / grid.block, grid.units, grid.radius, grid.globals, grid.causal);
    if (grid.block == 1) return base;
    std::vector<ColumnRange> out;
    appendBlockRanges(base, grid.block, grid.causal ? i + 1 : grid.n, out);
    return out;
}

// Column of the rank-th (0-based) position of [0, last] not covered by `taken`.
std::int64_t freeColumn(const std::vector<ColumnRange>& taken, std::int64_t rank) {
    std::int64_t column = rank;
    for (const auto& r : taken) {
        if (r.begin > column) break;
        column += r.size();
    }
    return column;
}

// Floyd's algorithm: `draws` distinct ranks in [0, available), uniformly, into `ranks` (in no order).
void drawDistinctRanks(SeededRandom& random, std::int64_t available, std::int64_t draws, std::vector<std::int64_t>& ranks) {
    ranks.clear();
    // A few draws (BigBird's r is 3) are looked up in the list itself, more in a hash set.
    constexpr std::int64_t kListedDraws = 32;
    std::unordered_set<std::int64_t> chosen;
    const auto taken = [&](std::int64_t rank) {
        return draws <= kListedDraws ? std::find(ranks.begin(), ranks.end(), rank) != ranks.end() : chosen.count(rank) > 0;
    };
    for (std::int64_t t = available - draws; t < available; ++t) {
        const auto pick = static_cast<std::int64_t>(random.below(static_cast<std::uint64_t>(t + 1)));
        ranks.push_back(taken(pick) ? t : pick);
        if (draws > kListedDraws) chosen.insert(ranks.back());
    }
}

// Every unit row's ranges: its window and globals, then min(r, what remains) units drawn uniformly
// without replacement from the rest (unit j ≤ unit i if causal), from one random stream per unit row.
// The scratch lists live across rows: one allocation per row, its own ranges.
std::vector<std::vector<ColumnRange>> drawnRows(const BigBirdGrid& grid) {
    const std::int64_t n = grid.units;
    std::vector<std::vector<ColumnRange>> rows(static_cast<std::size_t>(n));
    std::vector<ColumnRange> base;
    std::vector<std::int64_t> ranks, columns;
    for (std::int64_t i = 0; i < n; ++i) {
        base.clear();
        appendBaseRanges(i, n, grid.radius, grid.globals, grid.causal, base);
        std::int64_t covered = 0;
        for (const auto& r : base) covered += r.size();
        const std::int64_t available = (grid.causal ? i + 1 : n) - covered;
        SeededRandom random = SeededRandom::stream(grid.seed, BigBirdRandomKeys, static_cast<std::uint64_t>(i));
        drawDistinctRanks(random, available, std::min(grid.extra, available), ranks);
        columns.clear();
        for (const std::int64_t rank : ranks) columns.push_back(freeColumn(base, rank));
        std::sort(columns.begin(), columns.end());
        std::vector<ColumnRange>& row = rows[static_cast<std::size_t>(i)];
        row.reserve(base.size() + columns.size());
        std::size_t b = 0, c = 0;
        while (b < base.size() || c < columns.size()) {
            if (c == columns.size() || (b < base.size() && base[b].begin <= columns[c]))
                appendRange(row, base[b].begin, base[b].end, INT64_MAX), ++b;
            else
                appendRange(row, columns[c], columns[c] + 1, INT64_MAX), ++c;
        }
    }
    return rows;
}

std::unique_ptr<Pattern> bigBirdPattern(const PatternRequest& request) {
    const BigBirdGrid grid = bigBirdGrid(request.shape, *request.params);
    if (grid.block == 1) return std::make_unique<ExplicitPattern>(grid.n, drawnRows(grid));
    return std::make_unique<BlockGridPattern>(grid.n, grid.block, grid.causal,
                                              std::make_shared<ExplicitPattern>(grid.units, drawnRows(grid)));
}

// Windows up to this many keys run row-wise with the random keys (each row dots its own dozen keys);
// wider ones as shared pieces of 64-row blocks, which then compute few cells outside the band.
constexpr std::int64_t kRowWiseWindowKeys = 48;

// Block mode: the query blocks are the b-row blocks (cut into kPlanQueryBlock rows when b is larger) and
// their pieces the allowed key blocks, which every row of a query block shares (only the causal diagonal
// block needs a mask). Bidirectional global blocks see every key and are split along them.
std::shared_ptr<const BlockPlan> bigBirdBlockPlan(const Pattern& pattern, const BigBirdGrid& grid) {
    const std::int64_t n = grid.n;
    const std::int64_t heavyRows = grid.causal ? 0 : std::min(n, grid.globals * grid.block);
    PlanRowOrder order;
    std::vector<std::int64_t> globalRows;
    for (std::int64_t i = 0; i < n; ++i) {
        (i < heavyRows ? globalRows : order.rows).push_back(i);
        if (i >= heavyRows && ((i + 1) % grid.block == 0 || i + 1 == n))
            order.segmentEnds.push_back(static_cast<std::int64_t>(order.rows.size()));
    }
    if (order.segmentEnds.empty()) order.segmentEnds.push_back(0);
    PassSpec pass;
    pass.order = &order;
    pass.splitRows = &globalRows;
    pass.blockRows = std::min(grid.block, kPlanQueryBlock);
    pass.ranges = [&pattern](std::int64_t i, std::vector<ColumnRange>& out) { pattern.rowRanges(i, out); };
    auto plan = std::make_shared<BlockPlan>();
    plan->n = n;
    appendPass(*plan, pass);
    return plan;
}

// Per token: rows in order, each row's window, globals and random keys in one row-wise piece (narrow
// windows), or its window and globals in shared pieces and only its random keys row-wise; the global rows,
// which see every key, split along their keys (PassSpec::splitRows). One pass.
std::shared_ptr<const BlockPlan> bigBirdTokenPlan(const Pattern& pattern, const BigBirdGrid& grid) {
    const std::int64_t n = grid.n;
    const std::int64_t heavyRows = grid.causal ? 0 : grid.globals; // bidirectional global rows see all n keys
    PlanRowOrder order;
    std::vector<std::int64_t> globalRows;
    for (std::int64_t i = 0; i < n; ++i) (i < heavyRows ? globalRows : order.rows).push_back(i);
    order.segmentEnds.push_back(static_cast<std::int64_t>(order.rows.size()));
    const bool shareWindow = 2 * grid.radius + 1 > kRowWiseWindowKeys;
    RangeList all, base;
    PassSpec pass;
    pass.order = &order;
    pass.splitRows = &globalRows;
    pass.ranges = [&](std::int64_t i, std::vector<ColumnRange>& out) {
        if (i < heavyRows)
            pattern.rowRanges(i, out);
        else if (shareWindow)
            for (const ColumnRange& range : tokenBaseRanges(i, grid)) out.push_back(range);
    };
    pass.rowWise = [&](std::int64_t i, std::vector<ColumnRange>& out) {
        if (i < heavyRows) return;
        all.clear();
        pattern.rowRanges(i, all);
        if (shareWindow) {
            subtractInto(all, tokenBaseRanges(i, grid), base);
            all.swap(base);
        }
        out.insert(out.end(), all.begin(), all.end());
    };
    auto plan = std::make_shared<BlockPlan>();
    plan->n = n;
    appendPass(*plan, pass);
    return plan;
}

std::shared_ptr<const BlockPlan> bigBirdPlan(const PatternRequest& request) {
    const BigBirdGrid grid = bigBirdGrid(request.shape, *request.params);
    return cachedPlan(planKey("bigbird", grid.n, grid.causal, *request.params), [&] {
        const auto pattern = bigBirdPattern(request);
        return grid.block == 1 ? bigBirdTokenPlan(*pattern, grid) : bigBirdBlockPlan(*pattern, grid);
    });
}

// Token row i's window and globals, and the columns it may still draw from.
std::pair<std::int64_t, std::int64_t> tokenBaseCount(const BigBirdGrid& grid, std::int64_t i) {
    std::vector<ColumnRange> base;
    appendBaseRanges(i, grid.n, grid.radius, grid.globals, grid.causal, base);
    std::int64_t covered = 0;
    for (const auto& r : base) covered += r.size();
    return {covered, (grid.causal ? i + 1 : grid.n) - covered};
}

// Token row i's count without drawing its random keys: its window and globals plus min(r, columns left),
// exact whatever the seed.
std::int64_t tokenRowCount(const BigBirdGrid& grid, std::int64_t i) {
    const auto [covered, left] = tokenBaseCount(grid, i);
    return covered + std::min(grid.extra, left);
}

// Rows cutting [0, n) into segments on which tokenRowCount is affine: the window and globals' count
// changes slope at the globals' end, where the window meets the globals or leaves either end of the
// sequence; within those segments the columns left are affine too, so min(r, left) changes slope at most
// once, where left reaches r (found by bisection).
std::vector<std::int64_t> tokenCountBreaks(const BigBirdGrid& grid) {
    const std::int64_t n = grid.n, g = grid.globals, r = std::min(grid.radius, n);
    std::vector<std::int64_t> breaks = {0, g, r, g + r, g + r + 1, n - r, n};
    std::sort(breaks.begin(), breaks.end());
    breaks.erase(std::remove_if(breaks.begin(), breaks.end(), [n](std::int64_t i) { return i < 0 || i > n; }), breaks.end());
    breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
    const auto enough = [&grid](std::int64_t i) { return tokenBaseCount(grid, i).second >= grid.extra; };
    for (std::size_t k = 0, segments = breaks.size() - 1; k < segments; ++k) {
        std::int64_t lo = breaks[k], hi = breaks[k + 1]; // the first row unlike row lo is in (lo, hi], hi if none
        const bool atStart = enough(lo);
        while (hi - lo > 1) {
            const std::int64_t mid = lo + (hi - lo) / 2;
            (enough(mid) == atStart ? lo : hi) = mid;
        }
        breaks.push_back(hi);
    }
    return breaks;
}

// Allowed pairs per head of query rows firstQuery … n − 1 and the longest row, from the affine segments
// (O(1) rowCount calls, however large n).
std::pair<double, double> tokenPairs(const BigBirdGrid& grid, std::int64_t firstQuery) {
    long double pairs = 0;
    std::int64_t longest = 0;
    affineRuns(grid.n, tokenCountBreaks(grid), [&grid](std::int64_t i) { return tokenRowCount(grid, i); },
               [&](const CountRun& run) {
                   visitClipped(run, firstQuery, grid.n, [&](const CountRun& part) {
                       pairs += part.total();
                       longest = std::max(longest, part.longest());
                   });
               });
    return {static_cast<double>(pairs), static_cast<double>(longest)};
}

// Block mode: the drawn block rows (O(⌈n/b⌉ · ranges)), since a random block's width depends on the draw
// when the last block is smaller. Block row I's rows see its blocks' W columns each, or causal, all but the
// diagonal block's h and then 1 … h of those; only query rows firstQuery … n − 1 count.
std::pair<double, double> blockPairs(const BigBirdGrid& grid, std::int64_t firstQuery) {
    double pairs = 0, longest = 0;
    const auto rows = drawnRows(grid);
    for (std::int64_t unit = 0; unit < grid.units; ++unit) {
        const std::int64_t top = unit * grid.block, bottom = std::min(grid.n, top + grid.block);
        if (bottom <= firstQuery) continue;
        std::vector<ColumnRange> columns;
        appendBlockRanges(rows[static_cast<std::size_t>(unit)], grid.block, grid.n, columns);
        double width = 0;
        for (const ColumnRange& range : columns) width += static_cast<double>(range.size());
        const auto h = static_cast<double>(bottom - top);
        // Rows lo … hi − 1 of the block (positions after the first query), at offsets lo − top … hi − top − 1.
        const auto lo = static_cast<double>(std::max(top, firstQuery) - top), hi = static_cast<double>(bottom - top);
        const double asked = hi - lo;
        pairs += grid.causal ? asked * (width - h) + (hi * (hi + 1) - lo * (lo + 1)) / 2 : asked * width;
        longest = std::max(longest, width);
    }
    return {pairs, longest};
}

CoreCost bigBirdCost(const ProblemShape& shape, const ParamSet& params) {
    const BigBirdGrid grid = bigBirdGrid(shape, params);
    const auto [pairs, longest] = grid.block == 1 ? tokenPairs(grid, shape.firstQuery()) : blockPairs(grid, shape.firstQuery());
    CoreCost cost = maskedCoreCost(shape, pairs);
    // Bidirectional global rows see every key and are split along them (bigBirdPlan).
    const std::int64_t globalRows = shape.causal ? 0 : std::min(grid.n, grid.globals * grid.block);
    cost.workspaceBytes = rowKernelWorkspace(shape, longest) + splitRowsWorkspace(shape, {globalRows, grid.n});
    // Each query unit's random keys and values sit at scattered places no neighbouring unit shares: read once
    // more per unit (r units of b keys, for the query rows asked, an upper bound by the few early causal units that draw fewer).
    const auto draws = static_cast<double>(std::min(grid.extra, grid.units)) * static_cast<double>(grid.units) *
                       static_cast<double>(std::min(grid.block, grid.n));
    const double queryShare = static_cast<double>(shape.queryRows()) / static_cast<double>(grid.n);
    cost.extraMinBytes = 4.0 * shape.heads * draws * queryShare * static_cast<double>(shape.d + shape.dv);
    return cost;
}

// Component 1 the window, 2 the global rows and columns, 3 the random keys, each on the grid of units.
std::unique_ptr<PatternComponents> bigBirdComponents(const PatternRequest& request) {
    const BigBirdGrid grid = bigBirdGrid(request.shape, *request.params);
    const std::int64_t radius = std::min(grid.units, grid.radius), b = grid.block, n = grid.n, globals = grid.globals;
    // The random layer is each row's drawn keys exactly (its pattern row minus window and globals), so
    // that as a head of its own it holds the random keys only.
    const std::shared_ptr<const Pattern> drawn = bigBirdPattern(request);
    std::vector<LayeredComponents::Layer> layers = {
        [n, b, radius, units = grid.units](std::int64_t i, std::vector<ColumnRange>& out) {
            const std::int64_t unit = i / b;
            appendBlockRanges({{std::max<std::int64_t>(0, unit - radius), std::min(units, unit + radius + 1)}}, b, n, out);
        },
        [n, b, globals](std::int64_t i, std::vector<ColumnRange>& out) { appendRange(out, 0, i / b < globals ? n : globals * b, n); },
        [drawn, grid](std::int64_t i, std::vector<ColumnRange>& out) {
            RangeList row, random;
            drawn->rowRanges(i, row);
            subtractInto(row, tokenBaseRanges(i, grid), random);
            out.insert(out.end(), random.begin(), random.end());
        }};
    return std::make_unique<LayeredComponents>(drawn, std::move(layers));
}

// A decoding step is row n − 1 of the causal pattern: its block's window and globals plus min(r, the
// blocks left) random blocks, every block but the last b keys wide, counted without building the O(n)
// pattern (so `cost` allocates nothing that grows with n).
std::shared_ptr<const DecodeInfo> bigBirdDecode() {
    auto info = std::make_shared<DecodeInfo>();
    info->cost = [](const ProblemShape& shape, const ParamSet& params) {
        ProblemShape causalShape = shape;
        causalShape.causal = true;
        const BigBirdGrid grid = bigBirdGrid(causalShape, params);
        const std::int64_t lastBlock = grid.units - 1;
        std::int64_t blocks = 0;
        for (const auto& r : baseRanges(lastBlock, grid.units, grid.radius, grid.globals, true)) blocks += r.size();
        blocks += std::min(grid.extra, lastBlock + 1 - blocks);
        // The last block (always in the row's window) holds only the keys up to n − 1.
        const std::int64_t keys = blocks * grid.block - (grid.units * grid.block - grid.n);
        return maskedCoreCost(shape, static_cast<double>(keys));
    };
    return info;
}

} // namespace

VariantInfo makeBigBirdVariant() {
    VariantInfo v;
    v.id = "bigbird";
    v.displayName = "BigBird";
    v.family = "Sparse patterns";
    v.summary = "Sliding window + global tokens + r random keys per query: O(n·(w+g+r)·d).";
    v.params = {integerParam("window", "Window size w; each query sees floor(w/2) positions on each side", "6",
                             [](const ShapeContext&, const ParamSet&) { return std::int64_t{6}; }, 0, ">= 0"),
                integerParam("globals", "Global tokens g: positions 0..g-1 (clamped to n)", "2",
                             [](const ShapeContext&, const ParamSet&) { return std::int64_t{2}; }, 0, ">= 0"),
                integerParam("random", "Random extra keys r per query", "3",
                             [](const ShapeContext&, const ParamSet&) { return std::int64_t{3}; }, 0, ">= 0"),
                seedParam(),
                integerParam("block", "Block size b: window, globals and random keys count blocks of b tokens (1: tokens)", "1",
                             [](const ShapeContext&, const ParamSet&) { return std::int64_t{1}; }, 1, ">= 1")};
    v.pattern = bigBirdPattern;
    v.reachTheory = [](const ProblemShape& shape, const ParamSet& params, int) {
        if (shape.causal || params.integer("globals") == 0) return ReachTheory{};
        return ReachTheory{"bigbird: all pairs in 2 layers via a global token (Zaheer et al. 2020)", {}, 2};
    };
    v.plan = bigBirdPlan;
    v.run = softmaxOverPattern(bigBirdPattern, v.plan);
    v.cost = bigBirdCost;
    v.componentNames = {"window", "globals", "random"};
    v.components = bigBirdComponents;
    v.decode = bigBirdDecode();
    return v;
}

} // namespace attnlab
