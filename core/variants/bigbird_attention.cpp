// bigbird: Longformer window (δ = 1, radius ⌊w/2⌋) ∪ the first g tokens as global rows and columns
// (∧ j ≤ i if causal); then each row draws r distinct extra keys uniformly, without replacement, from the
// columns it does not yet allow (j ≤ i if causal), fewer if fewer remain. One mask for all heads.
#include "core/kernels/block_plan.h"
#include "core/patterns/range_algebra.h"
#include "core/random/random.h"
#include "core/variants/variant_support.h"

#include <algorithm>
#include <unordered_set>

namespace attnlab {

namespace {

// The deterministic part of row i: window and globals, as sorted ranges.
std::vector<ColumnRange> baseRanges(std::int64_t i, std::int64_t n, std::int64_t radius, std::int64_t globals,
                                    bool causal) {
    const std::int64_t last = causal ? i : n - 1;
    std::vector<ColumnRange> window, global;
    if (i < globals) return {{0, last + 1}};
    appendRange(window, i - radius, std::min(i + radius, last) + 1, n);
    appendRange(global, 0, std::min(globals, last + 1), n);
    return unionRanges(global, window);
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

std::unique_ptr<Pattern> bigBirdPattern(const PatternRequest& request) {
    const std::int64_t n = request.shape.n;
    const std::int64_t radius = request.params->integer("window") / 2;
    const std::int64_t globals = std::min(n, request.params->integer("globals"));
    const std::int64_t extra = request.params->integer("random");
    const auto seed = static_cast<std::uint64_t>(request.params->integer("seed"));
    const bool causal = request.shape.causal;
    std::vector<std::vector<ColumnRange>> rows(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        auto ranges = baseRanges(i, n, radius, globals, causal);
        std::int64_t covered = 0;
        for (const auto& r : ranges) covered += r.size();
        const std::int64_t available = (causal ? i + 1 : n) - covered;
        const std::int64_t draws = std::min(extra, available);
        // Floyd's algorithm: `draws` distinct ranks in [0, available), uniformly.
        SeededRandom random = SeededRandom::stream(seed, BigBirdRandomKeys, static_cast<std::uint64_t>(i));
        std::unordered_set<std::int64_t> chosen;
        for (std::int64_t t = available - draws; t < available; ++t) {
            const auto pick = static_cast<std::int64_t>(random.below(static_cast<std::uint64_t>(t + 1)));
            chosen.insert(chosen.count(pick) ? t : pick);
        }
        std::vector<std::int64_t> columns;
        for (const std::int64_t rank : chosen) columns.push_back(freeColumn(ranges, rank));
        std::sort(columns.begin(), columns.end());
        rows[i] = unionRanges(ranges, rangesOfColumns(columns));
    }
    return std::make_unique<ExplicitPattern>(n, rows);
}

// Windows up to this many keys run row-wise with the random keys (each row dots its own dozen keys);
// wider ones as shared pieces of 64-row blocks, which then compute few cells outside the band.
constexpr std::int64_t kRowWiseWindowKeys = 48;

// Rows in order, each row's window, globals and random keys in one row-wise piece (narrow windows), or
// its window and globals in shared pieces and only its random keys row-wise; the global rows, which
// see every key, split along their keys (PassSpec::splitRows). One pass.
std::shared_ptr<const BlockPlan> bigBirdPlan(const PatternRequest& request) {
    const std::int64_t n = request.shape.n, radius = request.params->integer("window") / 2;
    const std::int64_t globals = std::min(n, request.params->integer("globals"));
    const bool causal = request.shape.causal;
    return cachedPlan(planKey("bigbird", n, causal, *request.params), [&] {
        const auto pattern = bigBirdPattern(request);
        const std::int64_t heavyRows = causal ? 0 : globals; // bidirectional global rows see all n keys
        PlanRowOrder order;
        std::vector<std::int64_t> globalRows;
        for (std::int64_t i = 0; i < n; ++i) (i < heavyRows ? globalRows : order.rows).push_back(i);
        order.segmentEnds.push_back(static_cast<std::int64_t>(order.rows.size()));
        const bool shareWindow = 2 * radius + 1 > kRowWiseWindowKeys;
        RangeList all, base;
        PassSpec pass;
        pass.order = &order;
        pass.splitRows = &globalRows;
        pass.ranges = [&](std::int64_t i, std::vector<ColumnRange>& out) {
            if (i < heavyRows)
                pattern->rowRanges(i, out);
            else if (shareWindow)
                for (const ColumnRange& range : baseRanges(i, n, radius, globals, causal)) out.push_back(range);
        };
        pass.rowWise = [&](std::int64_t i, std::vector<ColumnRange>& out) {
            if (i < heavyRows) return;
            all.clear();
            pattern->rowRanges(i, all);
            if (shareWindow) {
                subtractInto(all, baseRanges(i, n, radius, globals, causal), base);
                all.swap(base);
            }
            out.insert(out.end(), all.begin(), all.end());
        };
        auto plan = std::make_shared<BlockPlan>();
        plan->n = n;
        appendPass(*plan, pass);
        return std::shared_ptr<const BlockPlan>(plan);
    });
}

// Allowed pairs per head without drawing the random keys: row i keeps its window and globals plus
// min(r, columns left), so the count is exact whatever the seed (O(n), no mask built).
CoreCost bigBirdCost(const ProblemShape& shape, const ParamSet& params) {
    const std::int64_t n = shape.n, radius = params.integer("window") / 2;
    const std::int64_t globals = std::min(n, params.integer("globals")), extra = params.integer("random");
    double pairs = 0, longest = 0;
    for (std::int64_t i = shape.firstQuery(); i < n; ++i) {
        std::int64_t covered = 0;
        for (const auto& r : baseRanges(i, n, radius, globals, shape.causal)) covered += r.size();
        const std::int64_t available = (shape.causal ? i + 1 : n) - covered;
        const auto count = static_cast<double>(covered + std::min(extra, available));
        pairs += count;
        longest = std::max(longest, count);
    }
    CoreCost cost = maskedCoreCost(shape, pairs);
    // Bidirectional global rows see every key and are split along them (bigBirdPlan).
    cost.workspaceBytes = rowKernelWorkspace(shape, longest) + splitRowsWorkspace(shape, {shape.causal ? 0 : globals, n});
    // Each row's random keys and values sit at scattered places no neighbouring row shares: read once
    // more per query row (m·r, an upper bound by the few early causal rows that draw fewer).
    const auto draws = static_cast<double>(std::min(extra, n));
    cost.extraMinBytes = 4.0 * shape.heads * static_cast<double>(shape.queryRows()) * draws * static_cast<double>(shape.d + shape.dv);
    return cost;
}

// Component 1 the window, 2 the global rows and columns, 3 the random keys.
std::unique_ptr<PatternComponents> bigBirdComponents(const PatternRequest& request) {
    const std::int64_t n = request.shape.n, radius = std::min(n, request.params->integer("window") / 2);
    const std::int64_t globals = std::min(n, request.params->integer("globals"));
    // The random layer is each row's drawn keys exactly (its pattern row minus window and globals), so
    // that as a head of its own it holds the random keys only.
    const std::shared_ptr<const Pattern> drawn = bigBirdPattern(request);
    const bool causal = request.shape.causal;
    std::vector<LayeredComponents::Layer> layers = {
        [n, radius](std::int64_t i, std::vector<ColumnRange>& out) { appendRange(out, i - radius, i + radius + 1, n); },
        [n, globals](std::int64_t i, std::vector<ColumnRange>& out) { appendRange(out, 0, i < globals ? n : globals, n); },
        [drawn, n, radius, globals, causal](std::int64_t i, std::vector<ColumnRange>& out) {
            RangeList row, random;
            drawn->rowRanges(i, row);
            subtractInto(row, baseRanges(i, n, radius, globals, causal), random);
            out.insert(out.end(), random.begin(), random.end());
        }};
    return std::make_unique<LayeredComponents>(drawn, std::move(layers));
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
                seedParam()};
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
    return v;
}

} // namespace attnlab
