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
        {QT_TRANSLATE_NOOP("ModelPresets", "BERT-base (12 × 64, n = 512)"), 12, 64, 512},
        {QT_TRANSLATE_NOOP("ModelPresets", "GPT-2 small (12 × 64, n = 1024)"), 12, 64, 1024},
        {QT_TRANSLATE_NOOP("ModelPresets", "LLaMA-7B (32 × 128, n = 2048)"), 32, 128, 2048},
    };
    return presets;
}

QString presetText(const QString& name) { return QCoreApplication::translate("ModelPresets", name.toUtf8().constData()); }

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
        {QT_TRANSLATE_NOOP("ModelPresets", "Sparse Transformer: strided vs fixed"), QStringLiteral("pattern"), sparseTransformer()},
        {QT_TRANSLATE_NOOP("ModelPresets", "Longformer: full / sliding / dilated / global"), QStringLiteral("pattern"), longformer()},
        {QT_TRANSLATE_NOOP("ModelPresets", "BigBird: random / window / global / combined"), QStringLiteral("pattern"), bigBird()},
        {QT_TRANSLATE_NOOP("ModelPresets", "FLASH: quad / linear / mixed chunk"), QStringLiteral("pattern"), flash()},
        {QT_TRANSLATE_NOOP("ModelPresets", "Transformer-XL: segments with memory"), QStringLiteral("pattern"), transformerXl()},
        {QT_TRANSLATE_NOOP("ModelPresets", "BERT-base layer FLOP breakdown"), QStringLiteral("flops"), bertLayerFlops()},
    };
    return presets;
}

} // namespace attnlab
