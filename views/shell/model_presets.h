#pragma once

#include "core/analysis/lab_settings.h"

#include <QString>

#include <vector>

namespace attnlab {

// Head shape and context length of a real model (per layer: h heads of size d, model width h·d).
struct ModelPreset {
    QString name;
    int heads = 1;
    std::int64_t d = 64;
    std::int64_t contextLength = 512;
};

const std::vector<ModelPreset>& modelPresets(); // BERT-base, GPT-2 small, LLaMA-7B

// The settings with the model's h, d and n (the context length).
LabSettings applyModelPreset(const LabSettings& settings, const ModelPreset& preset);

// Settings that redraw a classic figure of the literature, and the view that shows it.
struct FigurePreset {
    QString name;
    QString view; // FigureView::viewName()
    LabSettings settings;
};

const std::vector<FigurePreset>& figurePresets();

// A preset's name in the UI language (names are kept in English, marked for translation, context
// "ModelPresets").
QString presetText(const QString& name);

} // namespace attnlab
