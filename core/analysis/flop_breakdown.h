#pragma once

#include "core/analysis/block_cost.h"
#include "core/analysis/crossovers.h"
#include "core/analysis/lab_settings.h"
#include "core/cost/cost_model.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

// What the FLOP view draws, from the cost model alone: one layer's terms for the chosen variant over a
// sweep of n, and every registry variant's attention-core cost at the settings' n. At n = 65,536 the
// sparse patterns' exact counts take a noticeable fraction of a second, so the views compute this on a
// worker.
struct FlopBreakdown {
    struct SweepPoint {
        std::int64_t n = 0;
        LayerCost cost;
        // A GAU sweep: one layer of full attention + FFN 4hd at this n and the settings' h and d, the layer
        // FLASH puts two GAU layers in place of (Hua et al. 2022); 0 in a standard sweep.
        double standardLayerMacs = 0;
    };
    struct CoreBar {
        std::string variant;
        double attentionMacs = 0;
        bool chosen = false; // one of the variants the settings choose (with their overrides)
        // A block kernel's cost at the settings' blockCost (hasBlockKernelCost variants only).
        std::optional<BlockKernelCost> block;
        std::string order; // a compared panel's own token order (order=), costed on it; empty: the settings'
    };
    // The layer the sweep and `current` cost: FLASH's GAU layer for relu2 and mixed_chunk (hasGauLayer)
    // unless the settings ask for the standard one (flopsStandardLayer), the standard attention + FFN layer
    // otherwise. The bars always compare standard attention cores.
    LayerKind layer = LayerKind::Standard;
    std::vector<SweepPoint> sweep;   // n where the parameters are valid
    std::vector<std::string> terms;  // stacking order bottom to top: projections, the variant's own terms, the rest
    std::optional<LayerCost> current; // the chosen variant at the settings' n
    std::vector<CoreBar> bars;        // registry order (a variant compared in several panels: one bar per panel), in the causal form asked (askedCausal)
    std::vector<std::string> leftOut; // variants without a form for the causal choice asked: no bar
    LayerCrossovers crossovers;       // the chosen variant's, searched in the cost model for this case (none for a GAU layer)
    std::string error;                // why `current` is missing
    // What was left out because counting a pattern's cells passed kCrossoverEvaluationWork (the sweep's
    // top, a bar, the crossovers above some n), "; "-separated; empty when nothing was.
    std::string note;
};

// n from 64 up, two points per octave, to 2^16 or far enough past 6hd to show the quadratic regime; on a
// grid, the cell counts of its scaled copies up to there (scaledGridSizes), each costed on its copy.
std::vector<std::int64_t> flopSweepSizes(int heads, std::int64_t d, const TokenGrid* grid = nullptr);

// In compare mode a chosen variant left out of the comparison (leftOutOfComparison) has no sweep, no
// `current` and no crossovers. Polls `cancelled` between costs; a cancelled breakdown is incomplete.
FlopBreakdown flopBreakdown(const LabSettings& settings, const CancelCheck& cancelled = {});

} // namespace attnlab
