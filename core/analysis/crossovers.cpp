#include "core/analysis/crossovers.h"

#include "core/cost/cost_model.h"
#include "core/errors.h"
#include "core/patterns/range_work.h"
#include "core/registry.h"

#include <cmath>
#include <functional>

namespace attnlab {

namespace {

// Whether the statement holds at n; false where the parameters are invalid at that n (e.g. a global
// index ≥ n), so such n never count as "after the crossover".
using Holds = std::function<bool(std::int64_t n)>;

// Largest n in [0, limit) at which the statement fails, for a statement that holds at the limit and
// changes at most once between two consecutive powers of two; nullopt when it fails at the limit. The
// search doubles upwards from n = 1, so its cost follows the crossover, not the limit.
std::optional<std::int64_t> thresholdOf(const Holds& holds, std::int64_t limit) {
    if (!holds(limit)) return std::nullopt;
    if (holds(1)) return 0;
    std::int64_t lower = 1; // fails here
    std::int64_t upper = 2;
    while (upper < limit && !holds(upper)) {
        lower = upper;
        upper *= 2;
    }
    upper = std::min(upper, limit);
    while (upper - lower > 1) {
        const std::int64_t middle = lower + (upper - lower) / 2;
        (holds(middle) ? upper : lower) = middle;
    }
    return lower;
}

ProblemShape atLength(ProblemShape shape, std::int64_t n) {
    shape.setLength(n);
    return shape;
}

// Nothing where the parameters are invalid at this n, or where counting the pattern's cells passes
// kCrossoverEvaluationWork (only possible below the search's top for a pattern whose work is not
// monotone in n: that n counts as "the statement fails").
std::optional<LayerCost> costAt(const VariantInfo& variant, const ProblemShape& shape, const ParamOverrides& overrides) {
    try {
        const RangeWorkLimit limit(kCrossoverEvaluationWork);
        return layerCost(variant, shape, prepareParams(variant, shape, overrides));
    } catch (const InputError&) {
        return std::nullopt;
    }
}

// The largest power of two n <= kCrossoverSearchLimit at which one cost of `variant` is counted within
// kCrossoverEvaluationWork (the limit itself for closed-form costs). Doubling up from 1, so its work
// follows the answer.
std::int64_t searchTop(const VariantInfo& variant, const ProblemShape& shape, const ParamOverrides& overrides) {
    std::int64_t n = 1;
    for (; n < kCrossoverSearchLimit; n *= 2) {
        try {
            const RangeWorkLimit limit(kCrossoverEvaluationWork);
            const ProblemShape atN = atLength(shape, 2 * n);
            layerCost(variant, atN, prepareParams(variant, atN, overrides));
        } catch (const RangeWorkExceeded&) {
            return n;
        } catch (const InputError&) {
            // parameters invalid at this n: no work counted, the search goes on
        }
    }
    return n;
}

double projectionMacs(const LayerCost& cost) { return cost.terms.at("qkv_proj") + cost.terms.at("out_proj"); }

bool hasScoreMatrix(const VariantInfo& variant, const ProblemShape& shape, const ParamOverrides& overrides,
                    std::int64_t top) {
    const auto cost = costAt(variant, atLength(shape, std::min<std::int64_t>(4096, top)), overrides);
    return cost && cost->terms.count("scores") && cost->terms.at("scores") > 0;
}

// One crossover as a function of the shape, so the closed form can be read off at doubled h and d.
using Search = std::function<std::optional<std::int64_t>(const ProblemShape&)>;

// threshold(h, d) = a·hd + b or a·d + b with integer a > 0, checked at (2h, d) and (h, 2d). Key/value
// heads double with the query heads (an explicit h_kv = h must stay h, not become grouped).
std::string closedFormOf(const Search& search, const ProblemShape& shape, std::int64_t threshold) {
    ProblemShape twiceHeads = shape, twiceWidth = shape;
    twiceHeads.heads *= 2;
    twiceHeads.kvHeads *= 2;
    twiceWidth.d *= 2;
    twiceWidth.dv *= 2;
    const auto byHeads = search(twiceHeads), byWidth = search(twiceWidth);
    if (!byHeads || !byWidth) return {};
    const std::int64_t hd = shape.heads * shape.d, stepD = *byWidth - threshold;
    auto form = [](std::int64_t a, const char* unit, std::int64_t b) {
        std::string text = std::to_string(a) + unit;
        if (b != 0) text += (b < 0 ? " - " : " + ") + std::to_string(std::llabs(b));
        return text;
    };
    auto small = [](std::int64_t b, std::int64_t unit) { return std::llabs(b) < unit; };
    if (*byHeads - threshold == stepD && stepD > 0 && stepD % hd == 0) {
        const std::int64_t a = stepD / hd, b = threshold - a * hd;
        if (small(b, hd)) return form(a, "hd", b);
    }
    if (*byHeads == threshold && stepD > 0 && stepD % shape.d == 0) {
        const std::int64_t a = stepD / shape.d, b = threshold - a * shape.d;
        if (small(b, shape.d)) return form(a, "d", b);
    }
    return {};
}

Crossover crossoverOf(const Search& search, const ProblemShape& shape, std::int64_t top) {
    Crossover crossover;
    crossover.searchedTo = top;
    crossover.threshold = search(shape);
    if (crossover.threshold && *crossover.threshold > 0)
        crossover.closedForm = closedFormOf(search, shape, *crossover.threshold);
    return crossover;
}

Search layerSearch(const VariantInfo& variant, const ParamOverrides& overrides, std::int64_t top,
                   std::function<bool(const LayerCost&)> statement) {
    return [variant = &variant, overrides, top, statement](const ProblemShape& shape) {
        return thresholdOf(
            [&](std::int64_t n) {
                const auto cost = costAt(*variant, atLength(shape, n), overrides);
                return cost && statement(*cost);
            },
            top);
    };
}

// Full attention's core at head size d against a linear-cost core at 4d.
Search linearSearch(const VariantInfo& linearVariant, const ParamOverrides& linearOverrides, const VariantInfo& full,
                    const ParamOverrides& fullOverrides, std::int64_t top) {
    return [linear = &linearVariant, full = &full, linearOverrides, fullOverrides, top](const ProblemShape& shape) {
        ProblemShape wide = shape;
        wide.d *= 4;
        wide.dv *= 4;
        return thresholdOf(
            [&](std::int64_t n) {
                const auto fullCost = costAt(*full, atLength(shape, n), fullOverrides);
                const auto linearCost = costAt(*linear, atLength(wide, n), linearOverrides);
                return fullCost && linearCost && linearCost->attentionMacs < fullCost->attentionMacs;
            },
            top);
    };
}

} // namespace

LayerCrossovers layerCrossovers(const VariantInfo& variant, const ProblemShape& shape, const ParamOverrides& overrides) {
    LayerCrossovers result;
    const std::int64_t top = searchTop(variant, shape, overrides);
    result.attentionExceedsFfn = crossoverOf(
        layerSearch(variant, overrides, top,
                    [](const LayerCost& c) { return projectionMacs(c) + c.attentionMacs > c.terms.at("ffn"); }),
        shape, top);
    result.coreDominates = crossoverOf(layerSearch(variant, overrides, top,
                                                   [](const LayerCost& c) { return c.attentionMacs > c.layerMacs - c.attentionMacs; }),
                                       shape, top);
    const VariantInfo& full = requireVariant("full");
    if (!hasScoreMatrix(variant, shape, overrides, top))
        result.linearBeatsFull = crossoverOf(linearSearch(variant, overrides, full, {}, top), shape, top);
    else if (&variant == &full)
        result.linearBeatsFull = crossoverOf(linearSearch(requireVariant("linear"), {}, full, overrides, top), shape, top);
    return result;
}

std::string crossoverStatement(const Crossover& crossover) {
    return crossoverClaim(crossover) + (crossover.stoppedEarly() ? " " + searchStopNote(crossover.searchedTo) : "");
}

std::string crossoverClaim(const Crossover& crossover) {
    if (!crossover.threshold) return "never for n <= " + std::to_string(crossover.searchedTo);
    if (*crossover.threshold == 0) return "for every n";
    const std::string number = std::to_string(*crossover.threshold);
    return "n > " + (crossover.closedForm.empty() ? number : crossover.closedForm + " = " + number);
}

std::string searchStopNote(std::int64_t searchedTo) {
    return "(searched up to n = " + std::to_string(searchedTo) + " only: counting this pattern's cells beyond takes more than " +
           std::to_string(kCrossoverEvaluationWork) + " column ranges of work)";
}

} // namespace attnlab
