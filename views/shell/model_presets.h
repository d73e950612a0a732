#pragma once

#include "core/analysis/lab_settings.h"
#include "core/analysis/model_shapes.h"

#include <QString>

#include <functional>
#include <string>
#include <vector>

namespace attnlab {

// A real model's shape (core/analysis/model_shapes.h, the list `--model` takes) with its name as the
// presets show it: the model's name and its shape, e.g. "LLaMA-2-70B (64 × 128, 8 KV heads, 80 layers,
// n = 4096, f16 cache)", in the UI language.
struct ModelPreset {
    QString name;
    const ModelShape* shape = nullptr;
};

// One per model of modelShapes(), in its order.
std::vector<ModelPreset> modelPresets();

// The settings with the model's h, h_kv, d, layers, n (the context length) and cache precision; the variant stays.
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
// What a first run opens on, and a screenshot without a session shows (README): the Sparse Transformer's
// strided vs fixed figure rather than the flat square of full attention.
const FigurePreset& firstRunPreset();
const FigurePreset* findFigurePreset(const std::string& id); // null when unknown

// The preset's settings at length n: recomputed when it scales with n, else its settings with only n changed.
LabSettings presetSettingsAt(const FigurePreset& preset, std::int64_t n);

// A preset's name in the UI language (names are kept in English, marked for translation, context
// "ModelPresets").
QString presetText(const QString& name);

} // namespace attnlab
