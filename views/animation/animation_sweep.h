#pragma once

#include "views/figures/figure_view.h"

#include "core/analysis/lab_settings.h"

#include <QString>
#include <QStringList>

#include <cstddef>
#include <string>
#include <vector>

namespace attnlab {

// What one animation sweeps: a parameter of a view over the frame values of its range
// (core/analysis/animation_range.h). The parameters by view (docs/command_line.md, "Animations"):
// - n: pattern, reach, flops, accuracy, roofline; in timing it plays the measured sweep point by point;
// - d, h, h_kv: pattern, flops, inference, roofline (d also accuracy);
// - layers (the receptive field's L): reach; model_layers: inference; input_scale: accuracy;
// - query: the query row marked in the pattern, or with a grid the query cell (pattern, reach);
// - decode: the decoding step, the new token's position (pattern, causal; inference);
// - every integer parameter of the chosen (or a compared) variant: pattern, reach, flops, inference,
// roofline.
struct AnimationSweep {
    QString view;
    std::string param;
    std::string range;          // as typed after '='
    std::vector<double> values; // one per frame
    bool integral = true;
};

// The sweep `option` ("PARAM=FROM:TO[:STEP|:*FACTOR]") asks of `view` under `base`. Throws InputError (one
// line) for a malformed or empty range, more than 600 frames, a parameter the view does not have, and a
// frame whose settings are not valid or whose jobs exceed their budgets (the frame's value named).
AnimationSweep parseAnimationSweep(const QString& view, const LabSettings& base, const std::string& option);

// The parameters `view` animates under `settings`, for messages and the app's dialog.
std::vector<std::string> animationParams(const QString& view, const LabSettings& settings);

// What frame `index` shows: the settings and the view's frame mark.
struct AnimationFrameState {
    LabSettings settings;
    FrameMark mark;
};
AnimationFrameState animationFrameState(const AnimationSweep& sweep, const LabSettings& base,
                                        std::size_t index);

// The value of frame `index` as the frame writes it ("layers L = 3", "decoding step: token 37").
QString animationFrameLabel(const AnimationSweep& sweep, std::size_t index);

} // namespace attnlab
