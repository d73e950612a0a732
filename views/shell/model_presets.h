#pragma once

#include "core/analysis/lab_settings.h"

#include <QString>

#include <functional>
#include <string>
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

// Settings that redraw a classic figure of the literature, and the view that shows it. Compare panels
// carry the paper's panel titles ("(b) sliding window").
struct FigurePreset {
    QString id;   // command-line name (attnlab figure --preset ID), also LabSettings::preset
    QString name;
    QString view; // FigureView::viewName()
    LabSettings settings; // at the n of the paper's drawing
    // Set when the preset scales with n: the settings at another n, parameters recomputed the way the paper
    // ties them to n (e.g. stride = ceil(sqrt(n))). Null: the parameters are constants of the model.
    std::function<LabSettings(std::int64_t n)> atLength;
};

const std::vector<FigurePreset>& figurePresets();
const FigurePreset* findFigurePreset(const std::string& id); // null when unknown

// The preset's settings at length n: recomputed when it scales with n, else its settings with only n changed.
LabSettings presetSettingsAt(const FigurePreset& preset, std::int64_t n);

// A preset's name in the UI language (names are kept in English, marked for translation, context
// "ModelPresets").
QString presetText(const QString& name);

} // namespace attnlab
