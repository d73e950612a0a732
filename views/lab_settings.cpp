#include "views/lab_settings.h"

#include "core/errors.h"

namespace attnlab {

std::vector<VariantChoice> chosenVariants(const LabSettings& settings) {
    if (settings.compareVariants.empty()) return {{settings.variant, settings.params}};
    std::vector<VariantChoice> choices;
    for (std::size_t k = 0; k < settings.compareVariants.size(); ++k) {
        const std::string& id = settings.compareVariants[k];
        if (k < settings.compareParams.size())
            choices.push_back({id, settings.compareParams[k]});
        else
            choices.push_back({id, id == settings.variant ? settings.params : ParamOverrides{}});
    }
    return choices;
}

ProblemShape problemShape(const LabSettings& settings, const VariantInfo& variant) {
    ProblemShape shape;
    shape.heads = settings.heads;
    shape.n = settings.n;
    shape.d = settings.d;
    shape.dv = settings.d;
    shape.causal = settings.causal;
    if (variant.causalSupport == CausalSupport::CausalOnly) shape.causal = true;
    if (variant.causalSupport == CausalSupport::BidirectionalOnly) shape.causal = false;
    return shape;
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
