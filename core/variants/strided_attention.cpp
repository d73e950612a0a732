// strided: Sparse Transformer's strided pattern. Causal: j ≤ i ∧ (i−j ≤ l ∨ (i−j) mod l = 0);
// bidirectional is the symmetric closure |i−j| ≤ l ∨ |i−j| mod l = 0.
#include "core/variant_support.h"

namespace attnlab {

namespace {

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
    return std::make_unique<ClosedFormPattern>(n, allowed, ranges, count);
}

// Component 1 the band, 2 the strided columns.
std::string stridedExpression(const PatternRequest& request) {
    const std::string l = std::to_string(request.params->integer("stride"));
    return termsExpression({"band(" + l + ")", "stride(" + l + ")"}, request.shape.causal);
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
    v.run = softmaxOverPattern(stridedPattern);
    v.cost = softmaxPatternCost(stridedPattern);
    v.printExpr = stridedExpression;
    v.components = componentsFromExpression(stridedPattern, stridedExpression);
    return v;
}

} // namespace attnlab
