// strided: Sparse Transformer's strided pattern. Causal: j ≤ i ∧ (i−j ≤ l ∨ (i−j) mod l = 0);
// bidirectional is the symmetric closure |i−j| ≤ l ∨ |i−j| mod l = 0.
#include "core/kernels/block_plan.h"
#include "core/variants/variant_support.h"

namespace attnlab {

namespace {

// Causal rows: 1 … l for i < l, then l + ⌊i/l⌋ (the band's l + 1 and one strided column per earlier period).
void stridedCausalRuns(std::int64_t n, std::int64_t l, const CountRunVisitor& visit) {
    visit(consecutiveRun(0, std::min(n, l), 1, 1));
    if (n <= l) return;
    const std::int64_t periods = (n - l) / l, tail = (n - l) % l;
    CountRun rows = consecutiveRun(l, l, l + 1);
    rows.repeats = periods;
    rows.perRepeat = 1;
    if (periods > 0) visit(rows);
    if (tail > 0) visit(consecutiveRun(l + periods * l, tail, l + 1 + periods));
}

// Bidirectional rows with strided columns (n − 1 = Q·l + R, Q ≥ 2): inside [l, n − l) row i sees
// 2l − 1 + ⌊(n − 1 − i mod l)/l⌋, Q or Q − 1 by i mod l ≤ R; row i < l sees i + l + Q (i ≤ R) or one fewer;
// row n − 1 − i as many as row i (the pattern is symmetric under reversal).
void stridedRuns(std::int64_t n, std::int64_t l, const CountRunVisitor& visit) {
    const std::int64_t q = (n - 1) / l, r = (n - 1) % l;
    visit(consecutiveRun(0, r + 1, l + q, 1));
    visit(consecutiveRun(n - 1 - r, r + 1, r + l + q, -1));
    if (r + 1 < l) {
        visit(consecutiveRun(r + 1, l - 1 - r, r + l + q, 1));
        visit(consecutiveRun(n - l, l - 1 - r, 2 * l + q - 2, -1));
    }
    CountRun low = consecutiveRun(l, r + 1, 2 * l - 1 + q);
    low.period = l;
    low.repeats = q - 1;
    visit(low);
    if (q >= 3 && r + 1 < l) {
        CountRun high = consecutiveRun(l + r + 1, l - 1 - r, 2 * l - 2 + q);
        high.period = l;
        high.repeats = q - 2;
        visit(high);
    }
}

std::unique_ptr<Pattern> stridedPattern(const PatternRequest& request) {
    // A stride l ≥ n lets every pair into the band |i−j| ≤ l, exactly as l = n does: bounding it keeps
    // i + l and the strided-column arithmetic far from overflow for any int64 stride.
    const std::int64_t n = request.shape.n, l = std::min(request.params->integer("stride"), n);
    const bool causal = request.shape.causal;
    auto allowed = [l, causal](std::int64_t i, std::int64_t j) {
        if (causal && j > i) return false;
        const std::int64_t distance = i > j ? i - j : j - i;
        return distance <= l || distance % l == 0;
    };
    // Columns ≡ i (mod l) outside the local band, then the band [i−l, i+l].
    auto ranges = [n, l, causal](std::int64_t i, std::vector<ColumnRange>& out) {
        const std::int64_t bandBegin = i - l, bandEnd = causal ? i + 1 : i + l + 1;
        for (std::int64_t j = i % l; j < bandBegin; j += l) appendRange(out, j, j + 1, n);
        appendRange(out, bandBegin, bandEnd, n);
        if (!causal)
            for (std::int64_t j = i + ((bandEnd - 1 - i) / l + 1) * l; j < n; j += l) appendRange(out, j, j + 1, n);
    };
    auto count = [n, l, causal](std::int64_t i) {
        const std::int64_t below = countCongruent(0, i - l - 1, i % l, l);
        if (causal) return std::min(i, l) + 1 + below;
        return std::min(i, l) + std::min(n - 1 - i, l) + 1 + below + countCongruent(i + l + 1, n - 1, i % l, l);
    };
    return std::make_unique<ClosedFormPattern>(n, allowed, ranges, count, [n, l, causal, count](const CountRunVisitor& visit) {
        if (causal) return stridedCausalRuns(n, l, visit);
        if (n - 1 < 2 * l) return affineRuns(n, {l, n - l}, count, visit); // the band alone
        stridedRuns(n, l, visit);
    });
}

// Component 1 the band, 2 the strided columns.
std::string stridedExpression(const PatternRequest& request) {
    const std::string l = std::to_string(request.params->integer("stride"));
    return termsExpression({"band(" + l + ")", "stride(" + l + ")"}, request.shape.causal);
}

// Pass 1, the strided columns: per residue class i mod l, dense (causal) attention over that
// subsequence, the Sparse Transformer's factorised head: rows and keys taken class by class, position
// t of a class seeing positions s with |s − t| ≥ 2 (s < t when causal). Pass 2, the band |i − j| ≤ l
// in natural order, merged into the same softmax. With n − 1 < 2l there are no strided columns.
std::shared_ptr<const BlockPlan> stridedPlan(const PatternRequest& request) {
    // A stride l ≥ n means what l = n means (no strided columns, the band holds every pair); clamped so the
    // residue classes stay n at most.
    const std::int64_t n = request.shape.n, l = std::min(request.params->integer("stride"), n);
    const bool causal = request.shape.causal;
    return cachedPlan(planKey("strided", n, causal, *request.params), [n, l, causal] {
        auto plan = std::make_shared<BlockPlan>();
        plan->n = n;
        const bool strided = n - 1 >= 2 * l;
        const PlanRowOrder classes = residueOrder(n, l);
        PassSpec columns;
        columns.order = &classes;
        columns.columnOrder = &classes.rows;
        columns.finish = false;
        columns.ranges = [n, l, causal](std::int64_t i, std::vector<ColumnRange>& out) {
            const std::int64_t start = residuePosition(i % l, n, l), t = i / l, size = (n - 1 - i % l) / l + 1;
            if (t >= 2) out.push_back({start, start + t - 1});
            if (!causal && t + 2 < size) out.push_back({start + t + 2, start + size});
        };
        if (strided) appendPass(*plan, columns);
        const PlanRowOrder natural = residueOrder(n, 1);
        PassSpec band;
        band.order = &natural;
        band.resume = strided;
        band.ranges = [n, l, causal](std::int64_t i, std::vector<ColumnRange>& out) {
            out.push_back({std::max<std::int64_t>(0, i - l), causal ? i + 1 : std::min(n, i + l + 1)});
        };
        appendPass(*plan, band);
        return std::shared_ptr<const BlockPlan>(std::move(plan));
    });
}

} // namespace

VariantInfo makeStridedVariant() {
    VariantInfo v;
    v.id = "strided";
    v.displayName = "Sparse Transformer (strided)";
    v.family = "Sparse patterns";
    v.summary = "Local band of width l plus every l-th earlier position: O(n·√n·d) at l = √n.";
    v.params = {integerParam("stride", "Stride l: local band width and step of the strided columns", "ceil(sqrt(n))",
                             [](const ShapeContext& s, const ParamSet&) { return ceilSqrt(s.n); }, 1, ">= 1")};
    v.pattern = stridedPattern;
    v.reachTheory = [](const ProblemShape&, const ParamSet&, int) {
        return ReachTheory{"strided: all pairs in 2 layers (Child et al. 2019: ≤ p + 1 hops, p = 2)", {}, 2};
    };
    v.plan = stridedPlan;
    v.run = softmaxOverPattern(stridedPattern, stridedPlan);
    v.cost = softmaxPatternCost(stridedPattern, splitsNoRows);
    v.printExpr = stridedExpression;
    v.componentNames = {"band", "strided columns"};
    v.components = componentsFromExpression(stridedPattern, stridedExpression);
    return v;
}

} // namespace attnlab
