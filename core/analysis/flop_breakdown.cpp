#include "core/analysis/flop_breakdown.h"

#include "core/errors.h"
#include "core/patterns/range_work.h"
#include "core/registry.h"

#include <algorithm>
#include <cmath>
#include <set>

namespace attnlab {

namespace {

// Stacking order bottom to top; a variant's own terms sit between the projections and the scores.
const std::vector<std::string> kLeadingTerms = {"qkv_proj", "uv_proj", "z_proj"};
const std::vector<std::string> kTrailingTerms = {"scores", "weights_v", "out_proj", "ffn"};

bool isOwnTerm(const std::string& term) {
    return std::find(kLeadingTerms.begin(), kLeadingTerms.end(), term) == kLeadingTerms.end() &&
           std::find(kTrailingTerms.begin(), kTrailingTerms.end(), term) == kTrailingTerms.end();
}

// Nothing where the parameters do not fit this n (e.g. a global index ≥ n): the point is left out. Throws
// RangeWorkExceeded where counting the pattern's cells passes kCrossoverEvaluationWork, the bound every
// cost evaluation of this view shares with the crossover search.
std::optional<LayerCost> costAt(const LabSettings& settings, const std::string& id, const ParamOverrides& overrides, std::int64_t n,
                                LayerKind layer = LayerKind::Standard) {
    try {
        const RangeWorkLimit limit(kCrossoverEvaluationWork);
        const VariantInfo& variant = requireVariant(id);
        const ProblemShape shape = sweepShape(settings, variant, n);
        if (layer == LayerKind::Gau) return gauLayerCost(variant, shape, prepareParams(variant, gauCoreShape(shape), overrides));
        return layerCost(variant, shape, prepareParams(variant, shape, overrides));
    } catch (const RangeWorkExceeded&) {
        throw;
    } catch (const InputError&) {
        return std::nullopt;
    }
}

LayerKind layerOf(const LabSettings& settings) {
    const VariantInfo* variant = findVariant(settings.variant);
    return variant && hasGauLayer(*variant) && !settings.flopsStandardLayer ? LayerKind::Gau : LayerKind::Standard;
}

// The layer of full attention + FFN at n that two GAU layers replace.
double standardLayerMacs(const LabSettings& settings, std::int64_t n) {
    const auto cost = costAt(settings, "full", {}, n);
    return cost ? cost->layerMacs : 0.0;
}

// The block kernel's cost at the settings' n and block size, within the same bound; nothing where it is
// not defined or the parameters do not fit.
std::optional<BlockKernelCost> blockCostAt(const LabSettings& settings, const VariantInfo& variant, const ParamOverrides& overrides) {
    if (!hasBlockKernelCost(variant)) return std::nullopt;
    try {
        const RangeWorkLimit limit(kCrossoverEvaluationWork);
        const ProblemShape shape = problemShape(settings, variant);
        return blockKernelCost(variant, shape, prepareParams(variant, shape, overrides), settings.blockCost);
    } catch (const RangeWorkExceeded&) {
        throw;
    } catch (const InputError&) {
        return std::nullopt;
    }
}

void addNote(std::string& notes, const std::string& note) { notes += (notes.empty() ? "" : "; ") + note; }

// The bar of `variant` at the settings' n: `panel`'s overrides on its own token order, or the defaults
// (null). False when counting was too much work (the note says so and the variant gets no more bars).
bool addBar(FlopBreakdown& result, const LabSettings& settings, const VariantInfo& variant, const VariantChoice* panel) {
    const LabSettings own = panel ? choiceSettings(settings, *panel) : settings;
    const ParamOverrides& overrides = panel ? panel->params : ParamOverrides{};
    std::optional<LayerCost> cost;
    try {
        cost = costAt(own, variant.id, overrides, own.n);
    } catch (const RangeWorkExceeded&) {
        addNote(result.note, "no bar for " + variant.id + ": counting its pattern's cells at this n is too much work");
        return false;
    }
    if (!cost) return true;
    result.bars.push_back({variant.id, cost->attentionMacs, panel != nullptr, std::nullopt, panel ? panel->order : std::string()});
    try {
        result.bars.back().block = blockCostAt(own, variant, overrides);
    } catch (const RangeWorkExceeded&) {
        addNote(result.note, "no block-kernel cost for " + variant.id + ": counting its pattern's blocks at this n is too much work");
    }
    return true;
}

} // namespace

std::vector<std::int64_t> flopSweepSizes(int heads, std::int64_t d, const TokenGrid* grid) {
    const double top = std::max(65536.0, std::exp2(std::ceil(std::log2(12.0 * heads * static_cast<double>(d)))));
    if (grid) return scaledGridSizes(*grid, 64, static_cast<std::int64_t>(std::min(top, static_cast<double>(kMaxGridCells))));
    std::vector<std::int64_t> sizes;
    for (int halfOctave = 12; std::exp2(halfOctave / 2.0) <= top * 1.0001; ++halfOctave)
        sizes.push_back(std::llround(std::exp2(halfOctave / 2.0)));
    return sizes;
}

FlopBreakdown flopBreakdown(const LabSettings& asked, const CancelCheck& cancelled) {
    FlopBreakdown result;
    LabSettings settings = asked;
    settings.causal = askedCausal(asked);
    const VariantInfo* chosenVariant = findVariant(settings.variant);
    const bool stackShown = !chosenVariant || !leftOutOfComparison(settings, *chosenVariant);
    std::set<std::string> ownTerms;
    const TokenGridPtr grid = settings.grid.empty() ? nullptr : makeTokenGrid(settings.grid, settings.order);
    const std::vector<std::int64_t> sizes = stackShown ? flopSweepSizes(settings.heads, settings.d, grid.get()) : std::vector<std::int64_t>{};
    result.layer = layerOf(settings);
    for (const std::int64_t n : sizes) {
        if (cancelled && cancelled()) return result;
        try {
            if (auto cost = costAt(settings, settings.variant, settings.params, n, result.layer)) {
                for (const auto& [term, macs] : cost->terms)
                    if (isOwnTerm(term)) ownTerms.insert(term);
                const double standard = result.layer == LayerKind::Gau ? standardLayerMacs(settings, n) : 0.0;
                result.sweep.push_back({n, std::move(*cost), standard});
            }
        } catch (const RangeWorkExceeded&) {
            addNote(result.note, "sweep stops before n = " + std::to_string(n) + ": counting the pattern's cells there is too much work");
            break;
        }
    }
    result.terms = kLeadingTerms;
    result.terms.insert(result.terms.end(), ownTerms.begin(), ownTerms.end());
    result.terms.insert(result.terms.end(), kTrailingTerms.begin(), kTrailingTerms.end());

    try {
        if (stackShown) result.current = costAt(settings, settings.variant, settings.params, settings.n, result.layer);
    } catch (const RangeWorkExceeded& error) {
        result.error = error.what();
    }
    if (result.current) {
        if (result.layer == LayerKind::Standard) {
            const VariantInfo& variant = requireVariant(settings.variant);
            result.crossovers = layerCrossovers(variant, problemShape(settings, variant), settings.params);
            if (result.crossovers.attentionExceedsFfn.stoppedEarly())
                addNote(result.note,
                        "crossovers searched up to n = " + std::to_string(result.crossovers.attentionExceedsFfn.searchedTo) + " only");
        }
    } else if (stackShown && result.error.empty()) {
        try {
            const VariantInfo& variant = requireVariant(settings.variant);
            prepareParams(variant, problemShape(settings, variant), settings.params);
        } catch (const InputError& error) {
            result.error = error.what();
        }
    }

    const std::vector<VariantChoice> chosen = chosenVariants(settings);
    for (const VariantInfo& variant : allVariants()) {
        if (cancelled && cancelled()) return result;
        if (!hasCausalForm(variant, settings.causal)) {
            result.leftOut.push_back(variant.id);
            continue;
        }
        // One bar per compared panel of the variant, each on its panel's own token order; defaults otherwise.
        std::vector<const VariantChoice*> panels;
        for (const VariantChoice& choice : chosen)
            if (choice.variant == variant.id) panels.push_back(&choice);
        if (panels.empty()) panels.push_back(nullptr);
        for (const VariantChoice* panel : panels)
            if (!addBar(result, settings, variant, panel)) break;
    }
    return result;
}

} // namespace attnlab
