#include "views/shell/model_presets.h"

#include <QCoreApplication>

#include <algorithm>

namespace attnlab {

namespace {

LabSettings comparison(std::int64_t n, bool causal, const std::vector<VariantChoice>& panels) {
    LabSettings settings;
    settings.n = n;
    settings.causal = causal;
    settings.variant = panels.front().variant;
    settings.params = panels.front().params;
    for (const auto& panel : panels) {
        settings.compareVariants.push_back(panel.variant);
        settings.compareParams.push_back(panel.params);
    }
    return settings;
}

LabSettings sparseTransformer() { return comparison(64, true, {{"strided", {{"stride", "8"}}}, {"fixed", {{"block", "8"}, {"summary", "2"}}}}); }

LabSettings longformer() {
    return comparison(64, false, {{"full", {}},
                                  {"longformer", {{"window", "8"}}},
                                  {"longformer", {{"window", "8"}, {"dilation", "2"}}},
                                  {"longformer", {{"window", "8"}, {"globals", "0,1,32"}}}});
}

LabSettings bigBird() {
    return comparison(64, false, {{"bigbird", {{"window", "0"}, {"globals", "0"}, {"random", "3"}}},
                                  {"bigbird", {{"window", "6"}, {"globals", "0"}, {"random", "0"}}},
                                  {"bigbird", {{"window", "0"}, {"globals", "2"}, {"random", "0"}}},
                                  {"bigbird", {{"window", "6"}, {"globals", "2"}, {"random", "3"}}}});
}

LabSettings flash() {
    LabSettings settings = comparison(64, false, {{"relu2", {}}, {"linear", {}}, {"mixed_chunk", {{"chunk", "16"}}}});
    settings.showWeights = true;
    return settings;
}

LabSettings transformerXl() {
    LabSettings settings;
    settings.variant = "xl";
    settings.params = {{"segment", "16"}, {"memory", "16"}};
    settings.n = 64;
    settings.causal = true;
    return settings;
}

// A custom pattern drawn by component, n = 64: each term of the expression in its own colour.
LabSettings expressionFigure(const std::string& expression, bool causal) {
    LabSettings settings;
    settings.variant = "custom";
    settings.params = {{"expr", expression}};
    settings.n = 64;
    settings.causal = causal;
    settings.showComponents = true;
    return settings;
}

LabSettings bigBirdByComponent() {
    LabSettings settings;
    settings.variant = "bigbird";
    settings.params = {{"window", "6"}, {"globals", "2"}, {"random", "3"}};
    settings.n = 64;
    settings.showComponents = true;
    return settings;
}

LabSettings sparseTransformerHeads() {
    LabSettings settings;
    settings.variant = "strided";
    settings.params = {{"stride", "8"}};
    settings.n = 64;
    settings.causal = true;
    settings.showComponents = true;
    settings.splitComponents = true;
    return settings;
}

LabSettings bertLayerFlops() {
    LabSettings settings;
    settings.heads = 12;
    settings.d = 64;
    settings.n = 512;
    return settings;
}

} // namespace

const std::vector<ModelPreset>& modelPresets() {
    static const std::vector<ModelPreset> presets = {
        {QStringLiteral("BERT-base (12 × 64, n = 512)"), 12, 64, 512},
        {QStringLiteral("GPT-2 small (12 × 64, n = 1024)"), 12, 64, 1024},
        {QStringLiteral("LLaMA-7B (32 × 128, n = 2048)"), 32, 128, 2048},
    };
    return presets;
}

LabSettings applyModelPreset(const LabSettings& settings, const ModelPreset& preset) {
    LabSettings applied = settings;
    applied.heads = preset.heads;
    applied.d = preset.d;
    applied.n = preset.contextLength;
    applied.head = std::min(applied.head, preset.heads - 1);
    return applied;
}

const std::vector<FigurePreset>& figurePresets() {
    static const std::vector<FigurePreset> presets = {
        {QStringLiteral("Sparse Transformer: strided vs fixed"), QStringLiteral("pattern"), sparseTransformer()},
        {QStringLiteral("Longformer: full / sliding / dilated / global"), QStringLiteral("pattern"), longformer()},
        {QStringLiteral("BigBird: random / window / global / combined"), QStringLiteral("pattern"), bigBird()},
        {QStringLiteral("FLASH: quad / linear / mixed chunk"), QStringLiteral("pattern"), flash()},
        {QStringLiteral("Transformer-XL: segments with memory"), QStringLiteral("pattern"), transformerXl()},
        {QStringLiteral("BERT-base layer FLOP breakdown"), QStringLiteral("flops"), bertLayerFlops()},
        {QCoreApplication::translate("FigurePresets", "StreamingLLM: sliding window + attention sinks"), QStringLiteral("pattern"),
         expressionFigure("band(8) | sink(4)", true)},
        {QCoreApplication::translate("FigurePresets", "Prefix-LM: bidirectional prefix, causal continuation"), QStringLiteral("pattern"),
         expressionFigure("prefix(24) | causal", false)},
        {QCoreApplication::translate("FigurePresets", "Document masking: packed sequences"), QStringLiteral("pattern"),
         expressionFigure("docs(20, 12, 32)", true)},
        {QCoreApplication::translate("FigurePresets", "Dilated window + global tokens"), QStringLiteral("pattern"),
         expressionFigure("dilated(4, 2) | global(0, 32)", false)},
        {QCoreApplication::translate("FigurePresets", "BigBird coloured by random / window / global"), QStringLiteral("pattern"),
         bigBirdByComponent()},
        {QCoreApplication::translate("FigurePresets", "Sparse Transformer factorised: A(1) band, A(2) strided columns"),
         QStringLiteral("pattern"), sparseTransformerHeads()},
    };
    return presets;
}

} // namespace attnlab
