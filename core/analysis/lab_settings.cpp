#include "core/analysis/lab_settings.h"

#include "core/errors.h"
#include "core/registry.h"

#include <cstdio>
#include <type_traits>

namespace attnlab {

std::vector<VariantChoice> chosenVariants(const LabSettings& settings) {
    if (settings.compareVariants.empty()) return {{settings.variant, settings.params, {}}};
    std::vector<VariantChoice> choices;
    for (std::size_t k = 0; k < settings.compareVariants.size(); ++k) {
        const std::string& id = settings.compareVariants[k];
        const std::string order = k < settings.panelOrders.size() ? settings.panelOrders[k] : std::string();
        if (k < settings.compareParams.size())
            choices.push_back({id, settings.compareParams[k], order});
        else
            choices.push_back({id, id == settings.variant ? settings.params : ParamOverrides{}, order});
    }
    return choices;
}

LabSettings choiceSettings(const LabSettings& settings, const VariantChoice& choice) {
    if (choice.order.empty()) return settings;
    LabSettings own = settings;
    own.order = choice.order;
    return own;
}

ProblemShape problemShape(const LabSettings& settings, const VariantInfo& variant) {
    ProblemShape shape;
    shape.heads = settings.heads;
    shape.kvHeads = settings.kvHeads;
    shape.n = settings.n;
    shape.d = settings.d;
    shape.dv = settings.d;
    shape.causal = settings.causal;
    if (!settings.grid.empty()) {
        shape.grid = makeTokenGrid(settings.grid, settings.order);
        shape.setLength(settings.n);
    } else if (!settings.order.empty()) {
        throw InputError("a token order (" + settings.order + ") needs a grid");
    }
    if (variant.causalSupport == CausalSupport::CausalOnly) shape.causal = true;
    if (variant.causalSupport == CausalSupport::BidirectionalOnly) shape.causal = false;
    return shape;
}

ProblemShape sweepShape(const LabSettings& settings, const VariantInfo& variant, std::int64_t n) {
    ProblemShape shape = problemShape(settings, variant);
    shape.setScaledLength(n);
    return shape;
}

bool askedCausal(const LabSettings& settings) {
    if (!settings.compareVariants.empty()) return settings.causal;
    const VariantInfo* variant = findVariant(settings.variant);
    return variant ? problemShape(settings, *variant).causal : settings.causal;
}

std::vector<std::pair<std::string, std::string>> settingsInputFiles(const LabSettings& settings) {
    std::vector<std::pair<std::string, std::string>> files;
    if (settings.source != InputSource::NpyFiles) return files;
    for (const auto& [option, path] : {std::pair{"--q", &settings.qPath}, {"--k", &settings.kPath}, {"--v", &settings.vPath}})
        if (!path->empty()) files.emplace_back(option, *path);
    return files;
}

bool leftOutOfComparison(const LabSettings& settings, const VariantInfo& variant) {
    return !settings.compareVariants.empty() && !hasCausalForm(variant, settings.causal);
}

const std::vector<SettingsField>& settingsFields() {
    using U = SettingsUse;
    constexpr unsigned pattern = U::LabPattern | U::PatternFigure | U::Reach | U::CostFigure;
    constexpr unsigned inputs = U::LabPattern | U::PatternFigure | U::Reach | U::AccuracyInputs;
    constexpr unsigned shape = pattern | inputs | U::TimingSweep | U::CostShape | U::Inference;
    constexpr unsigned chosen = pattern | U::TimingSweep | U::Inference;
    constexpr unsigned figure = static_cast<unsigned>(U::PatternFigure) | U::Reach;
    static const std::vector<SettingsField> fields = {
        {"variant", chosen, &LabSettings::variant},
        {"params", chosen, &LabSettings::params},
        {"n", inputs | U::CostFigure | U::Inference, &LabSettings::n},
        {"d", shape, &LabSettings::d},
        {"heads", shape, &LabSettings::heads},
        {"kv_heads", shape, &LabSettings::kvHeads},
        {"causal", shape, &LabSettings::causal},
        {"head", U::LabPattern | U::PatternFigure | U::Reach, &LabSettings::head},
        {"source", inputs, &LabSettings::source},
        {"input_seed", inputs, &LabSettings::inputSeed},
        {"q_path", inputs, &LabSettings::qPath},
        {"k_path", inputs, &LabSettings::kPath},
        {"v_path", figure | U::AccuracyInputs, &LabSettings::vPath},
        {"compare", figure | U::TimingSweep | U::CostFigure | U::Inference, &LabSettings::compareVariants},
        {"compare_params", figure | U::TimingSweep | U::CostFigure | U::Inference, &LabSettings::compareParams},
        {"panel_titles", figure, &LabSettings::panelTitles},
        {"panel_orders", figure | U::TimingSweep | U::Inference, &LabSettings::panelOrders},
        {"preset", figure, &LabSettings::preset},
        {"preset_n", figure, &LabSettings::presetN},
        {"tokens", static_cast<unsigned>(U::PatternFigure), &LabSettings::tokens},
        {"layers", static_cast<unsigned>(U::Reach), &LabSettings::layers},
        {"show_weights", static_cast<unsigned>(U::PatternFigure), &LabSettings::showWeights},
        {"show_mask_outline", static_cast<unsigned>(U::PatternFigure), &LabSettings::showMaskOutline},
        {"show_components", static_cast<unsigned>(U::PatternFigure), &LabSettings::showComponents},
        {"split_components", static_cast<unsigned>(U::PatternFigure), &LabSettings::splitComponents},
        {"block_view", static_cast<unsigned>(U::PatternFigure), &LabSettings::blockView},
        {"flops_as_macs", 0u, &LabSettings::flopsAsMacs},
        {"flops_standard_layer", static_cast<unsigned>(U::CostFigure), &LabSettings::flopsStandardLayer},
        {"block_cost", static_cast<unsigned>(U::CostFigure), &LabSettings::blockCost},
        {"timing_max_n", U::TimingSweep | U::Inference, &LabSettings::timingMaxN},
        {"timing_mode", static_cast<unsigned>(U::TimingSweep), &LabSettings::timingMode},
        {"timing_guides", 0u, &LabSettings::timingGuides},
        {"timing_block_model", 0u, &LabSettings::timingBlockModel},
        {"accuracy_input_scale", static_cast<unsigned>(U::AccuracyInputs), &LabSettings::accuracyInputScale},
        {"accuracy_on_weights", static_cast<unsigned>(U::AccuracyInputs), &LabSettings::accuracyOnWeights},
        {"model_layers", static_cast<unsigned>(U::Inference), &LabSettings::modelLayers},
        {"memory_budget", static_cast<unsigned>(U::Inference), &LabSettings::memoryBudget},
        {"kv_dtype", static_cast<unsigned>(U::Inference), &LabSettings::kvDtype},
        {"queries", static_cast<unsigned>(U::PatternFigure), &LabSettings::queries},
        {"grid", shape, &LabSettings::grid},
        {"order", shape, &LabSettings::order},
        {"grid_query", figure, &LabSettings::gridQuery},
    };
    return fields;
}

namespace {

bool affects(const SettingsField& field, SettingsUse use) { return (field.uses & static_cast<unsigned>(use)) != 0; }

std::string overridesText(const ParamOverrides& params) {
    std::string text = "{";
    for (const auto& [key, value] : params) text += key + "=" + value + ";";
    return text + "}";
}

template <class Value>
std::string valueText(const Value& value) {
    if constexpr (std::is_same_v<Value, std::string>)
        return value;
    else if constexpr (std::is_same_v<Value, ParamOverrides>)
        return overridesText(value);
    else if constexpr (std::is_same_v<Value, bool>)
        return value ? "1" : "0";
    else if constexpr (std::is_same_v<Value, InputSource>)
        return inputSourceName(value);
    else if constexpr (std::is_same_v<Value, TimingMode>)
        return timingModeName(value);
    else if constexpr (std::is_integral_v<Value>)
        return std::to_string(value);
    else if constexpr (std::is_floating_point_v<Value>) {
        char text[32];
        std::snprintf(text, sizeof text, "%.17g", value);
        return text;
    }
    else {
        std::string text = "[";
        for (const auto& item : value) text += valueText(item) + ",";
        return text + "]";
    }
}

} // namespace

bool sameFields(const LabSettings& a, const LabSettings& b, SettingsUse use) {
    for (const SettingsField& field : settingsFields())
        if (affects(field, use) && !std::visit([&](auto member) { return a.*member == b.*member; }, field.member)) return false;
    return true;
}

std::string fieldsKey(const LabSettings& settings, SettingsUse use) {
    std::string key;
    for (const SettingsField& field : settingsFields())
        if (affects(field, use))
            key += std::string(field.name) + "=" +
                   std::visit([&](auto member) { return valueText(settings.*member); }, field.member) + "\x1f";
    return key;
}

std::string inputSourceName(InputSource source) {
    switch (source) {
    case InputSource::RandomGaussian: return "gaussian";
    case InputSource::LocalSimilarity: return "local";
    case InputSource::NpyFiles: return "npy";
    }
    return "local";
}

InputSource inputSourceFromName(const std::string& name) {
    if (name == "gaussian") return InputSource::RandomGaussian;
    if (name == "local") return InputSource::LocalSimilarity;
    if (name == "npy") return InputSource::NpyFiles;
    throw InputError("unknown input source '" + name + "' (expected gaussian, local or npy)");
}

std::string timingModeName(TimingMode mode) { return mode == TimingMode::Layer ? "layer" : "variants"; }

TimingMode timingModeFromName(const std::string& name) {
    if (name == "variants") return TimingMode::Variants;
    if (name == "layer") return TimingMode::Layer;
    throw InputError("unknown timing mode '" + name + "' (expected variants or layer)");
}

} // namespace attnlab
