#include "core/variants/variant_support.h"

#include "core/kernels/block_attention.h"
#include "core/kernels/block_plan.h"
#include "core/kernels/grid_plan.h"
#include "core/patterns/expression_pattern.h"
#include "core/patterns/query_rows.h"
#include "core/patterns/range_algebra.h"
#include "core/patterns/range_work.h"

#include <algorithm>
#include <deque>
#include <functional>
#include <mutex>
#include <string>
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
    bool nonFiniteOutput = false;
    RunResult result = runPlannedAttention(inputs, {std::move(plan)}, scoring, options, &nonFiniteOutput);
    if (hasNonFiniteRow(result, options.threads, nonFiniteOutput)) redoNonFiniteRows(inputs, queryRowsPattern(pattern, request), scoring, result);
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
    // False when the row was not kept (the list is full of rows at least as long).
    bool add(double count, std::int64_t row) {
        if (m_rows.size() == kCapacity && count <= m_rows.front().first) return false;
        if (m_rows.size() == kCapacity) {
            std::pop_heap(m_rows.begin(), m_rows.end(), std::greater<>());
            m_rows.pop_back();
        }
        m_rows.emplace_back(count, row);
        std::push_heap(m_rows.begin(), m_rows.end(), std::greater<>());
        return true;
    }
    // The run's rows longest first, along both of its axes, until one is not kept: a repeat whose longest
    // row is not kept holds no row that would be, and each kept row leaves one fewer repeat to look at,
    // so at most kCapacity + 1 repeats of at most kCapacity + 1 rows are looked at.
    void addRun(const CountRun& run) {
        for (std::int64_t a = 0; a < run.repeats; ++a) {
            const std::int64_t k = run.perRepeat >= 0 ? run.repeats - 1 - a : a;
            std::int64_t kept = 0;
            for (std::int64_t b = 0; b < run.length; ++b, ++kept) {
                const std::int64_t t = run.perRow >= 0 ? run.length - 1 - b : b;
                if (!add(static_cast<double>(run.count(k, t)), run.row(k, t))) break;
            }
            if (kept == 0) return;
        }
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

// What a cost reads of a pattern's rows: their total, the longest and the generic plan's split.
struct RowTotals {
    double nnz = 0;
    double longest = 0;
    SplitRowsExtent split;
};

// From the pattern's count runs, O(runs) and the sum exact, or else from rowCount of every row within the
// job's range limit.
RowTotals countRowTotals(const Pattern& mask) {
    LongestRows longestRows;
    RowTotals totals;
    long double total = 0;
    const bool described = mask.countRuns([&](const CountRun& run) {
        if (run.length <= 0 || run.repeats <= 0) return;
        total += run.total();
        totals.longest = std::max(totals.longest, static_cast<double>(run.longest()));
        longestRows.addRun(run);
    });
    totals.nnz = static_cast<double>(total);
    if (!described) {
        // A row counted one by one costs its evaluation on top of its ranges, worth two ranges: a limit
        // sized for ranges would otherwise let one-range rows near n = 2^31 count for minutes.
        requireRangeWork(mask, 2);
        const RangeWorkLimit limit(jobRangeLimit());
        for (std::int64_t i = 0; i < mask.rows(); ++i) {
            const auto count = static_cast<double>(mask.rowCount(i));
            longestRows.add(count, i);
            totals.nnz += count;
            totals.longest = std::max(totals.longest, count);
        }
    }
    totals.split = longestRows.split(mask, totals.nnz);
    return totals;
}

// The totals of the last few patterns counted row by row, by problem (n, causal, query rows, grid,
// parameters) and range limit: a figure asks one panel's cost several times (the figure's limits, its
// pattern's, its statistics), and counting a pattern with many ranges per row is what takes the time.
class RowTotalsCache {
public:
    RowTotals totals(const Pattern& mask, const ProblemShape& shape, const ParamSet& params) {
        const std::int64_t limit = jobRangeLimit(); // a bad ATTNLAB_MAX_RANGES is bad input even where runs need no limit
        if (mask.countRuns([](const CountRun&) {})) return countRowTotals(mask);
        const TokenGrid* grid = shape.grid.get();
        const std::string key = planKey(grid ? grid->sizeText() + " " + grid->orderText() : "", shape.n, shape.causal, params) +
                                " rows=" + std::to_string(shape.queryRows()) + " limit=" + std::to_string(limit);
        {
            const std::lock_guard lock(m_mutex);
            for (const auto& [known, value] : m_entries)
                if (known == key) return value;
        }
        const RowTotals counted = countRowTotals(mask);
        const std::lock_guard lock(m_mutex);
        if (m_entries.size() == kCapacity) m_entries.pop_front();
        m_entries.emplace_back(key, counted);
        return counted;
    }

private:
    static constexpr std::size_t kCapacity = 8;
    std::mutex m_mutex;
    std::deque<std::pair<std::string, RowTotals>> m_entries;
};

} // namespace

std::function<CoreCost(const ProblemShape&, const ParamSet&)> softmaxPatternCost(PatternFunction pattern,
                                                                                 PlanSplitFunction planSplit) {
    auto cache = std::make_shared<RowTotalsCache>();
    return [pattern, planSplit, cache](const ProblemShape& shape, const ParamSet& params) {
        PatternRequest request;
        request.shape = shape;
        request.params = &params;
        const auto mask = lastQueryRows(pattern(request), shape.queryRows());
        const RowTotals totals = cache->totals(*mask, shape, params);
        CoreCost cost = maskedCoreCost(shape, totals.nnz);
        const std::optional<SplitRowsExtent> split = planSplit ? planSplit(shape, params) : std::nullopt;
        cost.workspaceBytes = rowKernelWorkspace(shape, totals.longest) + splitRowsWorkspace(shape, split ? *split : totals.split);
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
