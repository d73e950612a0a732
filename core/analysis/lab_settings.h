#pragma once

#include "core/param_schema.h"
#include "core/variant.h"

#include <cstdint>
#include <string>
#include <utility>
#include <variant>
#include <vector>

namespace attnlab {

// Where Q, K, V come from.
enum class InputSource { RandomGaussian, LocalSimilarity, NpyFiles };

// What the timing view measures: the chosen variants' attention cores, or one Transformer layer's parts.
enum class TimingMode { Variants, Layer };

// Everything the user has chosen: the immutable value every view and job is computed from.
// Parameter values are kept as text exactly as a user would type them with --set.
struct LabSettings {
    std::string variant = "full";
    ParamOverrides params;                   // only the keys the user changed from their defaults
    std::int64_t n = 256;
    std::int64_t d = 64;
    int heads = 1;
    int kvHeads = 0;                         // key/value heads, dividing heads; 0: as many as heads
    bool causal = false;
    int head = 0;                            // head shown by per-head views
    InputSource source = InputSource::LocalSimilarity;
    std::uint64_t inputSeed = 0;
    std::string qPath, kPath, vPath;         // for InputSource::NpyFiles
    std::vector<std::string> compareVariants; // compare mode: 2–4 ids (empty: off)
    // Per compare entry, its own overrides (same index as compareVariants; may be shorter). An entry
    // without one uses `params` when its id is `variant`, else the defaults.
    std::vector<ParamOverrides> compareParams;
    // Per compare entry, the panel's title as a paper prints it, e.g. "(b) sliding window" (same index as
    // compareVariants; may be shorter; an empty or missing title shows the variant's name).
    std::vector<std::string> panelTitles;
    // Per compare entry, its own token order on the settings' grid as --order takes it (same index as
    // compareVariants; may be shorter; empty or missing: `order`), so that one pattern can be compared in
    // several orders.
    std::vector<std::string> panelOrders;
    // The figure preset these settings came from (its command-line id), or empty; and, when that preset
    // keeps its parameters whatever n is, the n they were chosen for (else 0).
    std::string preset;
    std::int64_t presetN = 0;
    // Whitespace-separated tokens that label the pattern's rows and columns when their count equals n.
    std::string tokens;
    std::int64_t layers = 2;                  // receptive field depth
    bool showWeights = false;                 // pattern view: weights heatmap instead of the mask
    bool showMaskOutline = true;              // pattern view with weights: mask outline drawn over them
    bool showComponents = false;              // pattern view: each cell in its component's colour
    bool splitComponents = false;             // pattern view: each component in a panel of its own
    std::int64_t blockView = 0;               // pattern view: the B × B block grid drawn over the pattern (0: off)
    bool flopsAsMacs = true;                  // FLOP view unit
    // FLOP view: relu2 and mixed_chunk costed in the standard attention + FFN layer instead of FLASH's GAU
    // layer, their default (other variants have the standard layer only).
    bool flopsStandardLayer = false;
    // FLOP and timing views: the block size B of the block kernel's cost (core/analysis/block_cost.h).
    std::int64_t blockCost = 64;
    std::int64_t timingMaxN = 4096;           // timing view: n = 64, 128, … up to this
    TimingMode timingMode = TimingMode::Variants;
    bool timingGuides = false;                // timing view: n², n√n and n guide lines
    bool timingBlockModel = false;            // timing view: the block kernel's prediction beside the cost model's
    // Accuracy view: Q and K multiplied by this (logits by its square). 0.5 is where the random-feature
    // methods change regime: performer's error still falls with its features there, and at s = 1 no
    // longer does.
    double accuracyInputScale = 0.5;
    bool accuracyOnWeights = false;           // accuracy view: error of the effective weights instead of the output
    std::int64_t modelLayers = 1;             // inference view: layers of the whole model (a preset's depth)
    std::int64_t memoryBudget = 0;            // inference view: bytes the KV cache may take; 0: physical RAM
    std::string kvDtype = "f32";              // inference and roofline views: the KV cache's precision, f32, f16 or bf16
    // Pattern view: only the last `queries` rows query (an m × n rectangle: a chunk of prefill over a
    // cache); 0: every row.
    std::int64_t queries = 0;
    // The token grid as --grid and --order take them ("H,W" or "T,H,W"; empty: a plain sequence) and its
    // order (empty: raster). The grid's cell count must equal n (settingsProblem says so otherwise).
    std::string grid;
    std::string order;
    // The query cell of the grid views as a sequence position (`--query P`); -1: the centre cell, the
    // position of (⌊T/2⌋, ⌊H/2⌋, ⌊W/2⌋). Ignored without a grid.
    std::int64_t gridQuery = -1;

    bool operator==(const LabSettings&) const = default;
};

// The accuracy view's input scales that the panel, sessions and `attnlab figure` accept: [1/64, 16].
inline constexpr double kMinInputScale = 1.0 / 64, kMaxInputScale = 16;

// One variant as a view draws it: the id and the overrides that apply to it.
struct VariantChoice {
    std::string variant;
    ParamOverrides params;
    std::string order = {}; // the panel's own token order (LabSettings::panelOrders); empty: the settings'
};

// The settings a choice is computed with: its own token order in place of the settings' when it has one.
LabSettings choiceSettings(const LabSettings& settings, const VariantChoice& choice);

// The variants a per-variant view shows: the compare entries when compare mode is on, else the one variant.
std::vector<VariantChoice> chosenVariants(const LabSettings& settings);

// The problem shape of the settings (dv = d) with the causal flag forced where the variant requires it,
// on the settings' token grid when its cell count is n (a sweep over n leaves it); throws InputError for
// grid or order text that is not valid.
ProblemShape problemShape(const LabSettings& settings, const VariantInfo& variant);

// The settings' problem at n for the sweeps over n of the timing and FLOP views: with a grid, the grid
// scaled to n cells (ProblemShape::setScaledLength), so that the sweep is one over image sizes; a plain
// sequence at an n no scaled copy of the grid has.
ProblemShape sweepShape(const LabSettings& settings, const VariantInfo& variant, std::int64_t n);

// The causal choice a figure shows: the settings' flag in compare mode; for one variant alone the form
// that variant has (xl is causal whatever the flag says).
bool askedCausal(const LabSettings& settings);

// The files the settings read (Q, and K and V when given, for NPY input) as (option, path) pairs: the
// inputs every output is compared with (refuseOverlappingFiles).
std::vector<std::pair<std::string, std::string>> settingsInputFiles(const LabSettings& settings);

// In compare mode a variant with no form for the causal choice asked (linformer has no causal form, xl
// no bidirectional one) is left out of every figure, with a note saying why, rather than drawn in its
// other form.
bool leftOutOfComparison(const LabSettings& settings, const VariantInfo& variant);

// What a consumer's result depends on. Each field of LabSettings names the uses it affects in
// settingsFields(); change detection and cache keys derive from that one table.
enum class SettingsUse : unsigned {
    LabPattern = 1u << 0,     // one variant's pattern of the shown head (the ImGui lab's canvas)
    PatternFigure = 1u << 1,  // the pattern view's panels: patterns, weights, compare mode
    Reach = 1u << 2,          // the receptive-field view
    AccuracyInputs = 1u << 3, // Q, K, V and exact attention (the accuracy view)
    TimingSweep = 1u << 4,    // the timing view's measurement
    CostShape = 1u << 5,      // the cost model's shape apart from variant, parameters and n
    CostFigure = 1u << 6,     // the FLOP view: the chosen variants' costs over n and at n
    Inference = 1u << 7,      // the inference and roofline views: KV cache, decoding steps, measured rates
};
constexpr unsigned operator|(SettingsUse a, SettingsUse b) { return static_cast<unsigned>(a) | static_cast<unsigned>(b); }
constexpr unsigned operator|(unsigned a, SettingsUse b) { return a | static_cast<unsigned>(b); }

// One field of LabSettings: its name in session files, the uses it affects and the member itself.
struct SettingsField {
    const char* name;
    unsigned uses;
    std::variant<std::string LabSettings::*, ParamOverrides LabSettings::*, std::int64_t LabSettings::*, int LabSettings::*,
                 bool LabSettings::*, InputSource LabSettings::*, std::uint64_t LabSettings::*,
                 std::vector<std::string> LabSettings::*, std::vector<ParamOverrides> LabSettings::*, TimingMode LabSettings::*,
                 double LabSettings::*>
        member;
};

// Every field of LabSettings, in session order. A new field is added here and nowhere else.
const std::vector<SettingsField>& settingsFields();

// True when every field that affects `use` is equal in a and b.
bool sameFields(const LabSettings& a, const LabSettings& b, SettingsUse use);
// The fields that affect `use`, as text: equal keys mean equal fields (a cache key).
std::string fieldsKey(const LabSettings& settings, SettingsUse use);

std::string inputSourceName(InputSource source); // "gaussian", "local", "npy"
InputSource inputSourceFromName(const std::string& name); // throws InputError
std::string timingModeName(TimingMode mode); // "variants", "layer"
TimingMode timingModeFromName(const std::string& name); // throws InputError

} // namespace attnlab
