#pragma once

#include "core/param_schema.h"

#include <string>
#include <utility>
#include <vector>

namespace attnlab {

// What a variant states about the reach of a stack of layers that all use its pattern (with a
// residual path), kept to what holds exactly for the pattern in use. Empty label: nothing to state.
struct ReachTheory {
    std::string label;                               // the formula with its source paper, as a legend shows it
    std::vector<std::pair<double, double>> maxReach; // (l, max over queries of the farthest |i − j|) where exact
    int allPairsBy = 0; // > 0: every pair (j ≤ i when causal) is connected within this many layers
};

// One series of the accuracy comparison against exact softmax attention: the variant run with `fixed`
// and `parameter` set to each of `values` in turn. A budget sweep (budget = true) is a curve over its
// numeric values in its variant's own panel (budget axis `axis`); otherwise each value is one reference
// line (e.g. linear attention's kernels). The error-vs-input-scale panel runs a budget sweep at
// `scaleBudget` only and a reference line at each of its values.
struct AccuracySweep {
    std::string family;               // the series' id in the CSV, e.g. "linformer_pool"
    std::string label;                // the legend text
    std::string parameter;            // the swept key
    std::vector<std::string> values;  // as typed with --set
    ParamOverrides fixed;             // the other overrides of the series
    bool budget = true;
    bool seeded = true;               // random method: averaged over seeds (the variant's `seed` key)
    bool atMostN = false;             // values above n are left out (and named)
    std::string axis;                 // the budget axis' title, e.g. "random features m"
    std::string scaleBudget;          // the value the error-vs-scale panel uses (budget sweeps)
    std::string note;                 // what the figure says about the series beside its legend (may be empty)
};

} // namespace attnlab
