#include "core/variants/variant_support.h"

#include "core/kernels/block_attention.h"
#include "core/kernels/block_plan.h"
#include "core/kernels/grid_plan.h"
#include "core/patterns/expression_pattern.h"
#include "core/patterns/query_rows.h"
#include "core/patterns/range_algebra.h"
#include "core/patterns/range_work.h"

#include <algorithm>
#include <functional>
#include <utility>

namespace attnlab {

ParamSpec integerParam(std::string key, std::string description, std::string defaultText, IntegerDefault value,
                       std::int64_t minValue, std::string rangeText) {
    ParamSpec spec;
    spec.key = std::move(key);
    spec.type = ParamType::Integer;
    spec.description = std::move(description);
    spec.defaultText = std::move(defaultText);
    spec.defaultValue = [value](const ShapeContext& shape, const ParamSet& earlier) -> ParamValue {
        return value(shape, earlier);
    };
    spec.minValue = minValue;
    spec.rangeText = std::move(rangeText);
    return spec;
}

ParamSpec seedParam() {
    return integerParam("seed", "Seed of the random draws; the same seed gives the same numbers", "0",
                        [](const ShapeContext&, const ParamSet&) { return std::int64_t{0}; }, 0, ">= 0");
}

ParamSpec choiceParam(std::string key, std::string description, std::vector<std::string> choices,
                      std::string defaultChoice) {
    ParamSpec spec;
    spec.key = std::move(key);
    spec.type = ParamType::Choice;
    spec.description = std::move(description);
    spec.defaultText = defaultChoice;
    spec.defaultValue = [defaultChoice](const ShapeContext&, const ParamSet&) -> ParamValue { return defaultChoice; };
    spec.choices = std::move(choices);
    std::string range;
    for (const auto& choice : spec.choices) range += (range.empty() ? "" : "|") + choice;
    spec.rangeText = range;
    return spec;
}

ParamSpec boolParam(std::string key, std::string description, bool defaultValue) {
    ParamSpec spec;
    spec.key = std::move(key);
    spec.type = ParamType::Boolean;
    spec.description = std::move(description);
    spec.defaultText = defaultValue ? "true" : "false";
    spec.defaultValue = [defaultValue](const ShapeContext&, const ParamSet&) -> ParamValue { return defaultValue; };
    spec.choices = {"true", "false"};
    spec.rangeText = "true|false";
    return spec;
}

double fullPairs(const ProblemShape& shape) {
    const auto n = static_cast<double>(shape.n), m = static_cast<double>(shape.queryRows());
    // Causal: rows n − m … n − 1 see n − m + 1 … n keys.
    return shape.causal ? m * (n - m) + m * (m + 1) / 2 : m * n;
}

double rowKernelWorkspace(const ProblemShape& shape, double longestRow) {
    constexpr double threads = 2;
    return threads * 4.0 * (longestRow + static_cast<double>(shape.dv));
}

double splitRowsWorkspace(const ProblemShape& shape, const SplitRowsExtent& split) {
    const auto slots = static_cast<double>(splitRowSlots(shape.n, split.rows, split.seen));
    return 4.0 * shape.heads * slots * static_cast<double>(partialSlotFloats(shape.dv));
}

std::unique_ptr<Pattern> allPairsPattern(std::int64_t n, bool causal) {
    return std::make_unique<RangePattern>(
        n, [causal](std::int64_t i, std::int64_t j) { return !causal || j <= i; },
        [n, causal](std::int64_t i, std::vector<ColumnRange>& out) { out.push_back({0, causal ? i + 1 : n}); });
}

std::shared_ptr<const BlockPlan> allPairsPlan(std::int64_t n, bool causal) {
    return cachedPlan(planKey("all pairs", n, causal, {}), [n, causal] { return genericBlockPlan(*allPairsPattern(n, causal)); });
}

} // namespace attnlab

namespace attnlab {

std::function<RunResult(const AttentionInputs&, const RunOptions&)> softmaxOverPattern(PatternFunction pattern,
                                                                                       PlanFunction plan) {
    return [pattern, plan](const AttentionInputs& inputs, const RunOptions& options) {
        PatternRequest request;
        request.shape = inputs.shape(options.causal);
        request.shape.grid = options.grid;
        request.params = &options.params;
        request.inputs = &inputs;
        MaskedScoring scoring;
        scoring.scale = 1.0 / std::sqrt(static_cast<double>(inputs.q->cols));
        if (options.useReference || !plan || request.shape.queries > 0)
            return runMasked(inputs, queryRowsPattern(pattern, request), scoring, options);
        return runPlannedOverPattern(inputs, plan(request), pattern, request, scoring, options);
    };
}

RunResult runPlannedOverPattern(const AttentionInputs& inputs, std::shared_ptr<const BlockPlan> plan,
                                const PatternFunction& pattern, const PatternRequest& request,
                                const MaskedScoring& scoring, const RunOptions& options) {
    RunResult result = runPlannedAttention(inputs, {std::move(plan)}, scoring, options);
    if (hasNonFiniteRow(result, options.threads)) redoNonFiniteRows(inputs, queryRowsPattern(pattern, request), scoring, result);
    return result;
}

HeadPatterns queryRowsPattern(const PatternFunction& pattern, const PatternRequest& request) {
    return sharedPattern(lastQueryRows(pattern(request), request.shape.queryRows()));
}

PlanFunction cachedGenericPlan(std::string kind, PatternFunction pattern) {
    return [kind, pattern](const PatternRequest& request) {
        const TokenGrid* grid = request.shape.grid.get();
        const std::string onGrid = grid ? " on grid " + grid->sizeText() + " " + grid->orderText() : "";
        return cachedPlan(planKey(kind + onGrid, request.shape.n, request.shape.causal, *request.params),
                          [&] { return gridAwareBlockPlan(*pattern(request), grid); });
    };
}

} // namespace attnlab

namespace attnlab {

std::int64_t countCongruent(std::int64_t lo, std::int64_t hi, std::int64_t residue, std::int64_t period) {
    lo = std::max<std::int64_t>(lo, 0);
    if (lo > hi) return 0;
    // Every intermediate stays within (−period, period) or [lo, hi]: no overflow for any int64 period.
    std::int64_t offset = residue % period;
    if (offset < 0) offset += period;
    offset -= lo % period;
    if (offset < 0) offset += period;
    if (offset > hi - lo) return 0;
    return (hi - lo - offset) / period + 1;
}

namespace {

// The kMaxSplitRows + 1 longest rows seen so far (count, row), the shortest first: every heavy row is
// among them unless more than kMaxSplitRows rows are heavy (isHeavyRow grows with the count), so the
// split is known without a count per row.
class LongestRows {
public:
    void add(double count, std::int64_t row) {
        if (m_rows.size() == kCapacity && count <= m_rows.front().first) return;
        if (m_rows.size() == kCapacity) {
            std::pop_heap(m_rows.begin(), m_rows.end(), std::greater<>());
            m_rows.pop_back();
        }
        m_rows.emplace_back(count, row);
        std::push_heap(m_rows.begin(), m_rows.end(), std::greater<>());
    }
    // genericBlockPlan's split: its heavy rows, if few enough to split, and the positions they see.
    SplitRowsExtent split(const Pattern& mask, double nnz) const {
        const double meanKeys = nnz / static_cast<double>(std::max<std::int64_t>(mask.rows(), 1));
        SplitRowsExtent extent;
        for (const auto& [count, row] : m_rows) extent.rows += isHeavyRow(count, meanKeys) ? 1 : 0;
        if (extent.rows > kMaxSplitRows) return extent;
        RangeList ranges;
        for (const auto& [count, row] : m_rows) {
            if (!isHeavyRow(count, meanKeys)) continue;
            ranges.clear();
            mask.rowRanges(row, ranges);
            for (const ColumnRange& range : ranges) extent.seen = std::max(extent.seen, range.end);
        }
        return extent;
    }

private:
    static constexpr std::size_t kCapacity = kMaxSplitRows + 1;
    std::vector<std::pair<double, std::int64_t>> m_rows;
};

} // namespace

std::function<CoreCost(const ProblemShape&, const ParamSet&)> softmaxPatternCost(PatternFunction pattern,
                                                                                 PlanSplitFunction planSplit) {
    return [pattern, planSplit](const ProblemShape& shape, const ParamSet& params) {
        PatternRequest request;
        request.shape = shape;
        request.params = &params;
        const auto mask = lastQueryRows(pattern(request), shape.queryRows());
        requireRangeWork(*mask);
        const RangeWorkLimit limit(jobRangeLimit());
        LongestRows longestRows;
        double nnz = 0, longest = 0;
        for (std::int64_t i = 0; i < mask->rows(); ++i) {
            const auto count = static_cast<double>(mask->rowCount(i));
            longestRows.add(count, i);
            nnz += count;
            longest = std::max(longest, count);
        }
        CoreCost cost = maskedCoreCost(shape, nnz);
        std::optional<SplitRowsExtent> split = planSplit ? planSplit(shape, params) : std::nullopt;
        if (!split) split = longestRows.split(*mask, nnz);
        cost.workspaceBytes = rowKernelWorkspace(shape, longest) + splitRowsWorkspace(shape, *split);
        return cost;
    };
}

} // namespace attnlab

namespace attnlab {

std::shared_ptr<const BlockPlan> blockLocalPlan(std::int64_t n, std::int64_t c, bool causal) {
    return cachedPlan(planKey("block local c=" + std::to_string(c), n, causal, {}),
                      [n, c, causal] { return genericBlockPlan(*blockLocalPattern(n, c, causal)); });
}

} // namespace attnlab

namespace attnlab {

std::string termsExpression(const std::vector<std::string>& terms, bool causal) {
    std::string text;
    for (const auto& term : terms) text += (text.empty() ? "" : " | ") + term + (causal ? " & causal" : "");
    if (text.size() > kMaxExpressionLength)
        throw InputError("the equivalent expression would be " + std::to_string(text.size()) +
                         " characters, more than the " + std::to_string(kMaxExpressionLength) + " an expression may have");
    return text;
}

ComponentsFunction componentsFromExpression(PatternFunction pattern, ExpressionFunction print) {
    return [pattern, print](const PatternRequest& request) {
        return componentsByExpression(pattern(request), print(request), request.shape.causal);
    };
}

ComponentsFunction oneComponent(PatternFunction pattern) {
    return [pattern](const PatternRequest& request) { return singleComponent(pattern(request)); };
}

} // namespace attnlab
