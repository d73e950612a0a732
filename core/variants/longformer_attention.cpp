// longformer: sliding window of radius r = ⌊w/2⌋ with dilation δ, plus global tokens G.
// Bidirectional: (|i−j| ≤ r·δ ∧ (i−j) mod δ = 0) ∨ i ∈ G ∨ j ∈ G. Causal: that ∧ j ≤ i.
#include "core/decode/decode.h"
#include "core/kernels/block_plan.h"
#include "core/variants/variant_support.h"

#include <algorithm>
#include <optional>

namespace attnlab {

namespace {

// Segments of rows on which a row's count is affine in the row. The window's reach back and forward
// changes slope at r from either end (δ = 1) or steps every δ rows within r·δ of them; a global token g
// starts being a column at row g (causal), and leaves and rejoins the window around it: at g ± r when
// δ = 1, at every row from g − r·δ to g + r·δ when δ > 1 (the window holds g only in g's residue class).
// Nullopt when the segments would cost more than kMaxCountSegmentWork rowCount work (each rowCount
// visits every global).
constexpr double kMaxCountSegmentWork = 1 << 24;
std::optional<std::vector<std::int64_t>> longformerBreaks(std::int64_t n, std::int64_t radius, std::int64_t delta, bool causal,
                                                          const std::vector<std::int64_t>& globals) {
    const std::int64_t steps = std::min(radius, (n - 1) / delta); // r·δ, saturated at the sequence: steps·δ < n
    const std::int64_t reach = steps * delta;
    const auto perGlobal = static_cast<double>(delta == 1 ? 4 : 2 * reach + 2);
    const auto segments = (delta == 1 ? 2.0 : 2.0 * static_cast<double>(steps)) + static_cast<double>(globals.size()) * perGlobal;
    if (segments * static_cast<double>(globals.size() + 1) > kMaxCountSegmentWork) return std::nullopt;
    std::vector<std::int64_t> breaks;
    for (std::int64_t k = delta == 1 ? steps : 1; k <= steps; ++k) {
        breaks.push_back(k * delta);
        if (!causal) breaks.push_back(n - k * delta);
    }
    for (const std::int64_t g : globals) {
        breaks.insert(breaks.end(), {g, g + 1, g - reach, g + reach + 1});
        if (delta > 1)
            for (std::int64_t i = g - reach; i <= g + reach; ++i) breaks.push_back(i);
    }
    return breaks;
}

std::unique_ptr<Pattern> longformerPattern(const PatternRequest& request) {
    const std::int64_t n = request.shape.n, delta = request.params->integer("dilation");
    const std::int64_t radius = request.params->integer("window") / 2;
    const bool causal = request.shape.causal;
    const std::vector<std::int64_t> globals = request.params->indices("globals"); // sorted, distinct
    auto isGlobal = [globals](std::int64_t x) { return std::binary_search(globals.begin(), globals.end(), x); };
    auto inWindow = [radius, delta](std::int64_t i, std::int64_t j) {
        const std::int64_t distance = i > j ? i - j : j - i;
        return distance / delta <= radius && distance % delta == 0;
    };
    auto allowed = [=](std::int64_t i, std::int64_t j) {
        if (causal && j > i) return false;
        return inWindow(i, j) || isGlobal(i) || isGlobal(j);
    };
    auto ranges = [=](std::int64_t i, std::vector<ColumnRange>& out) {
        const std::int64_t last = causal ? i : n - 1;
        if (isGlobal(i)) {
            out.push_back({0, last + 1});
            return;
        }
        std::vector<ColumnRange> window;
        const std::int64_t reach = std::min(radius, i / delta);
        const std::int64_t forward = causal ? 0 : std::min(radius, (n - 1 - i) / delta);
        if (delta == 1)
            appendRange(window, i - reach, i + forward + 1, n);
        else
            for (std::int64_t t = -reach; t <= forward; ++t) appendRange(window, i + t * delta, i + t * delta + 1, n);
        std::vector<ColumnRange> globalColumns;
        for (const std::int64_t g : globals)
            if (g <= last) appendRange(globalColumns, g, g + 1, n);
        const auto merged = unionRanges(window, globalColumns);
        out.insert(out.end(), merged.begin(), merged.end());
    };
    auto count = [=](std::int64_t i) {
        const std::int64_t last = causal ? i : n - 1;
        if (isGlobal(i)) return last + 1;
        const std::int64_t reach = std::min(radius, i / delta);
        const std::int64_t forward = causal ? 0 : std::min(radius, (n - 1 - i) / delta);
        std::int64_t total = reach + forward + 1;
        for (const std::int64_t g : globals)
            if (g <= last && !inWindow(i, g)) ++total;
        return total;
    };
    const auto breaks = longformerBreaks(n, radius, delta, causal, globals);
    if (!breaks) return std::make_unique<ClosedFormPattern>(n, allowed, ranges, count);
    return std::make_unique<ClosedFormPattern>(n, allowed, ranges, count,
                                               [n, count, breaks](const CountRunVisitor& visit) { affineRuns(n, *breaks, count, visit); });
}

// r·δ as text, or "r·δ" spelled out when the product passes 2^63 − 1.
std::string spanText(std::int64_t radius, std::int64_t dilation) {
    std::int64_t span = 0;
    if (__builtin_mul_overflow(radius, dilation, &span)) return std::to_string(radius) + "·" + std::to_string(dilation);
    return std::to_string(span);
}

// Without globals the reachable inputs are i ± multiples of δ up to l·⌊w/2⌋·δ away, the farthest
// clipped to the sequence; with globals (bidirectional) every pair meets at a global token.
ReachTheory longformerReach(const ProblemShape& shape, const ParamSet& params, int layers) {
    ReachTheory theory;
    if (!params.indices("globals").empty()) {
        if (!shape.causal) theory = {"longformer: all pairs in 2 layers via a global token (Beltagy et al. 2020)", {}, 2};
        return theory;
    }
    const std::int64_t radius = params.integer("window") / 2, dilation = params.integer("dilation");
    const std::int64_t limit = dilation * ((shape.n - 1) / dilation);
    for (int l = 0; l <= layers; ++l)
        theory.maxReach.emplace_back(l, std::min(static_cast<double>(l) * static_cast<double>(radius) * static_cast<double>(dilation),
                                                 static_cast<double>(limit)));
    theory.label = dilation == 1 ? "longformer: reach l·⌊w/2⌋ = " + std::to_string(radius) + "·l (Beltagy et al. 2020: field l × w)"
                                 : "longformer: reach l·⌊w/2⌋·δ = " + spanText(radius, dilation) +
                                       "·l (Beltagy et al. 2020: field l × δ × w)";
    return theory;
}

// Keys a decoder keeps after token n − 1: the window's span r·δ + 1 and the globals before it; every key
// while a global token is still to come (a global query sees every key).
std::int64_t longformerRetainedKeys(const ProblemShape& shape, const ParamSet& params) {
    // r·δ, saturated at n (a window that long reaches every key; the product itself may overflow).
    const std::int64_t radius = params.integer("window") / 2, dilation = params.integer("dilation");
    const std::int64_t span = radius > 0 && dilation > shape.n / radius ? shape.n : std::min(shape.n, radius * dilation);
    const std::vector<std::int64_t> globals = params.indices("globals");
    if (std::any_of(globals.begin(), globals.end(), [&](std::int64_t g) { return g >= shape.n - 1; })) return shape.n;
    const auto before = std::count_if(globals.begin(), globals.end(), [&](std::int64_t g) { return g < shape.n - 1 - span; });
    return std::min(shape.n, span + 1) + before;
}

// Component 1 the (dilated) window, 2 the global rows and columns.
std::string longformerExpression(const PatternRequest& request) {
    const std::int64_t radius = request.params->integer("window") / 2, delta = request.params->integer("dilation");
    std::vector<std::string> terms = {"dilated(" + std::to_string(radius) + ", " + std::to_string(delta) + ")"};
    const auto& globals = request.params->indices("globals");
    if (!globals.empty()) terms.push_back("global(" + paramValueText(globals) + ")");
    return termsExpression(terms, request.shape.causal);
}

// Keys of a row's window (causal: up to its own position).
double windowKeys(const ProblemShape& shape, const ParamSet& params) {
    const std::int64_t radius = params.integer("window") / 2;
    return static_cast<double>(shape.causal ? radius + 1 : 2 * radius + 1);
}

// An undilated window this narrow is a band that the generic plan runs row-wise, faster than this plan;
// wider ones are faster here (docs/execution_plans.md, "The plans", longformer).
bool runsGenericPlan(const ProblemShape& shape, const ParamSet& params) {
    return params.integer("dilation") == 1 && windowKeys(shape, params) <= kRowWiseRowKeys;
}

// The global rows longformerPlan splits (the generic plan's heavy rows where it runs that). Causal and
// dilated, their positions are counted up to n: the plan sees them in residue-class order.
std::optional<SplitRowsExtent> longformerSplit(const ProblemShape& shape, const ParamSet& params) {
    if (runsGenericPlan(shape, params)) return std::nullopt;
    const auto& globals = params.indices("globals");
    SplitRowsExtent split{static_cast<std::int64_t>(globals.size()), shape.n};
    if (shape.causal && params.integer("dilation") == 1) split.seen = globals.empty() ? 0 : globals.back() + 1;
    return split;
}

// Rows and keys taken by residue class i mod δ (identity when δ = 1), where the dilated window is a
// band of radius r; the global columns a row sees outside its window are gathered into its block's
// pieces, and the global rows, which see every key (causal: every key up to their own), are split along
// their keys, or stay whole where those keys make one chunk. One pass.
std::shared_ptr<const BlockPlan> longformerPlan(const PatternRequest& request) {
    // δ ≥ n allows only j = i in the window, as δ = n does: clamped so there are at most n residue classes.
    const std::int64_t n = request.shape.n, delta = std::min(request.params->integer("dilation"), request.shape.n);
    const std::int64_t radius = request.params->integer("window") / 2;
    const bool causal = request.shape.causal;
    if (runsGenericPlan(request.shape, *request.params))
        return cachedGenericPlan("longformer narrow", longformerPattern)(request);
    const std::vector<std::int64_t> globals = request.params->indices("globals"); // sorted, distinct
    return cachedPlan(planKey("longformer", n, causal, *request.params), [=] {
        const PlanRowOrder classes = residueOrder(n, delta);
        auto isGlobal = [&globals](std::int64_t x) { return std::binary_search(globals.begin(), globals.end(), x); };
        PlanRowOrder order;
        for (std::size_t c = 0, begin = 0; c < classes.segmentEnds.size(); ++c) {
            const auto end = static_cast<std::size_t>(classes.segmentEnds[c]);
            for (std::size_t k = begin; k < end; ++k)
                if (!isGlobal(classes.rows[k])) order.rows.push_back(classes.rows[k]);
            order.segmentEnds.push_back(static_cast<std::int64_t>(order.rows.size()));
            begin = end;
        }
        PassSpec pass;
        pass.order = &order;
        pass.splitRows = &globals;
        pass.columnOrder = delta > 1 ? &classes.rows : nullptr;
        pass.blockRows = blockRowsForRowKeys(windowKeys(request.shape, *request.params));
        pass.ranges = [&](std::int64_t i, std::vector<ColumnRange>& out) {
            const std::int64_t last = causal ? i : n - 1;
            if (isGlobal(i)) { // every column ≤ last, class by class
                for (std::int64_t a = 0; a < std::min(delta, last + 1); ++a) {
                    const std::int64_t start = residuePosition(a, n, delta);
                    out.push_back({start, start + (last - a) / delta + 1});
                }
                return;
            }
            const std::int64_t start = residuePosition(i % delta, n, delta), t = i / delta;
            const std::int64_t size = (n - 1 - i % delta) / delta + 1;
            std::vector<ColumnRange> seen{{start + std::max<std::int64_t>(0, t - radius),
                                           start + std::min(size, t + (causal ? 0 : radius) + 1)}};
            for (const std::int64_t g : globals)
                if (g <= last) {
                    const std::int64_t position = residuePosition(g, n, delta);
                    seen.push_back({position, position + 1});
                }
            std::sort(seen.begin(), seen.end(), [](const ColumnRange& x, const ColumnRange& y) { return x.begin < y.begin; });
            for (const ColumnRange& range : seen)
                if (!out.empty() && range.begin <= out.back().end)
                    out.back().end = std::max(out.back().end, range.end);
                else
                    out.push_back(range);
        };
        auto plan = std::make_shared<BlockPlan>();
        plan->n = n;
        appendPass(*plan, pass);
        return std::shared_ptr<const BlockPlan>(std::move(plan));
    });
}

} // namespace

VariantInfo makeLongformerVariant() {
    VariantInfo v;
    v.id = "longformer";
    v.displayName = "Longformer";
    v.family = "Sparse patterns";
    v.summary = "Sliding window of w positions (optionally dilated by δ) plus global tokens that see and are seen by all.";
    ParamSpec globals;
    globals.key = "globals";
    globals.type = ParamType::IndexList;
    globals.description = "Comma list of global token indices in [0, n)";
    globals.defaultText = "none";
    globals.defaultValue = [](const ShapeContext&, const ParamSet&) -> ParamValue { return std::vector<std::int64_t>{}; };
    globals.rangeText = "indices in [0, n)";
    v.params = {integerParam("window", "Window size w; each query sees floor(w/2) positions on each side",
                             "2*ceil(sqrt(n))",
                             [](const ShapeContext& s, const ParamSet&) { return 2 * ceilSqrt(s.n); }, 0, ">= 0"),
                integerParam("dilation", "Dilation δ: gap between attended positions in the window", "1",
                             [](const ShapeContext&, const ParamSet&) { return std::int64_t{1}; }, 1, ">= 1"),
                globals};
    v.validate = [](const ProblemShape& shape, const ParamSet& params) {
        for (const std::int64_t g : params.indices("globals"))
            if (g < 0 || g >= shape.n)
                throw InputError("longformer parameter 'globals' has index " + std::to_string(g) +
                                 " outside [0, " + std::to_string(shape.n) + ")");
    };
    v.pattern = longformerPattern;
    v.reachTheory = longformerReach;
    v.plan = longformerPlan;
    v.run = softmaxOverPattern(longformerPattern, longformerPlan);
    v.cost = softmaxPatternCost(longformerPattern, longformerSplit);
    v.decode = decodeKeeping(longformerRetainedKeys);
    v.printExpr = longformerExpression;
    v.componentNames = {"window", "globals"};
    v.components = componentsFromExpression(longformerPattern, longformerExpression);
    return v;
}

} // namespace attnlab
