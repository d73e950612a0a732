#pragma once

#include "core/analysis/lab_settings.h"

#include <QString>

#include <vector>

namespace attnlab {

// Head shape, depth and context length of a real model (per layer: h query heads and h_kv key/value heads
// of size d, model width h·d), as its paper or model card gives them.
struct ModelPreset {
    QString name;
    int heads = 1;
    int kvHeads = 1;
    std::int64_t d = 64;
    std::int64_t layers = 1;
    std::int64_t contextLength = 512;
    std::int64_t slidingWindow = 0; // keys each token attends to (0: all); the inference view's window curve
};

// BERT-base, GPT-2 small, LLaMA-2-7B, LLaMA-2-70B (grouped heads), Mistral-7B (grouped heads, window 4096).
const std::vector<ModelPreset>& modelPresets();

// The settings with the model's h, h_kv, d, layers and n (the context length); the variant stays.
LabSettings applyModelPreset(const LabSettings& settings, const ModelPreset& preset);

// Settings that redraw a classic figure of the literature, and the view that shows it.
struct FigurePreset {
    QString name;
    QString view; // FigureView::viewName()
    LabSettings settings;
};

const std::vector<FigurePreset>& figurePresets();

} // namespace attnlab
