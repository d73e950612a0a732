#include "views/shell/model_presets.h"

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
        {QStringLiteral("BERT-base (12 × 64, 12 layers, n = 512)"), 12, 12, 64, 12, 512},
        {QStringLiteral("GPT-2 small (12 × 64, 12 layers, n = 1024)"), 12, 12, 64, 12, 1024},
        {QStringLiteral("LLaMA-2-7B (32 × 128, 32 layers, n = 4096)"), 32, 32, 128, 32, 4096},
        {QStringLiteral("LLaMA-2-70B (64 × 128, 8 KV heads, 80 layers, n = 4096)"), 64, 8, 128, 80, 4096},
        {QStringLiteral("Mistral-7B (32 × 128, 8 KV heads, 32 layers, window 4096, n = 8192)"), 32, 8, 128, 32, 8192, 4096},
    };
    return presets;
}

LabSettings applyModelPreset(const LabSettings& settings, const ModelPreset& preset) {
    LabSettings applied = settings;
    applied.heads = preset.heads;
    applied.kvHeads = preset.kvHeads == preset.heads ? 0 : preset.kvHeads;
    applied.d = preset.d;
    applied.modelLayers = preset.layers;
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
    };
    return presets;
}

} // namespace attnlab
