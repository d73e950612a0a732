#pragma once

// Where one cost curve of a Transformer layer passes another, found by searching the cost model itself
// for the case shown: the variant, the user's parameter overrides (every other parameter re-resolved
// to its default at each n), causal or not, h and d. Nothing here is a constant of one variant.

#include "core/param_schema.h"
#include "core/variant.h"

#include <cstdint>
#include <optional>
#include <string>

namespace attnlab {

inline constexpr std::int64_t kCrossoverSearchLimit = std::int64_t{1} << 20;
// The work one cost evaluation of the search may take counting a pattern's cells by range algebra
// (core/patterns/range_work.h): a pattern with many ranges per row (stride(2), random(1000, 1)) is
// searched only up to the largest power of two n whose count fits, and the result says so.
inline constexpr std::int64_t kCrossoverEvaluationWork = std::int64_t{1} << 23;

// The statement "curve A exceeds curve B" holds exactly for n > threshold inside the searched range
// [1, searchedTo]. threshold = 0: it holds from n = 1 on. No threshold: it does not hold at the top of
// the range (or the case has no such comparison).
struct Crossover {
    std::optional<std::int64_t> threshold;
    // kCrossoverSearchLimit, or the lower power of two where counting the cost stopped the search.
    std::int64_t searchedTo = kCrossoverSearchLimit;
    // "2hd", "4hd - 1", "16d", …: a formula in h and d that gives the threshold for every shape, found by
    // repeating the search at doubled h and doubled d. Empty when the threshold follows no such line.
    std::string closedForm;
    bool exists() const { return threshold.has_value(); }
    bool stoppedEarly() const { return searchedTo < kCrossoverSearchLimit; }
};

struct LayerCrossovers {
    // Projections + attention core (the layer's self-attention) exceed the FFN.
    Crossover attentionExceedsFfn;
    // The attention core's own terms (n² for full attention, the variant's growing terms otherwise)
    // exceed the rest of the layer.
    Crossover coreDominates;
    // A linear-cost attention core (one without a score matrix) given a 4× larger head, 4d, costs less
    // than full attention's core at d (Katharopoulos et al. need the larger head to keep quality). For
    // full attention the comparison is with linear attention (elu); for variants with a score matrix
    // other than full it does not apply.
    Crossover linearBeatsFull;
};

// The three crossovers of `variant` for the shape's h, d, d_v and causal flag (shape.n is not used).
// Throws InputError when the overrides are invalid for every n searched.
LayerCrossovers layerCrossovers(const VariantInfo& variant, const ProblemShape& shape, const ParamOverrides& overrides);

// The text a figure or the command line states for a crossover, e.g. "n > 2hd = 1536" or "never for
// n <= 1048576": crossoverClaim, then searchStopNote when the search stopped early.
std::string crossoverStatement(const Crossover& crossover);
std::string crossoverClaim(const Crossover& crossover);
// "(searched up to n = 2048 only: …)": why a search over n stopped below kCrossoverSearchLimit.
std::string searchStopNote(std::int64_t searchedTo);

} // namespace attnlab
