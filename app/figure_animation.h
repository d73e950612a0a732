#pragma once

#include "app/cli_args.h"

#include "views/animation/animation_renderer.h"

#include <optional>
#include <string>
#include <vector>

namespace attnlab {

// `attnlab figure VIEW ... --animate PARAM=FROM:TO[:STEP|:*FACTOR] [--fps F] [--hold-last S] [--free-axes]
// -o FILE.{gif,mp4,tex}`: the view's frames over the sweep as one animation.
struct FigureAnimation {
    AnimationSweep sweep;
    AnimationOutput output;
};

// The animation the options ask for, every frame's settings, budgets and the output checked; nullopt
// without --animate (then --fps, --hold-last and --free-axes are refused). `args` is the command line
// after `figure`, named in a .tex snippet. Throws InputError (one line).
std::optional<FigureAnimation> figureAnimation(const CliArgs& cli, const QString& view,
                                               const LabSettings& settings,
                                               const std::vector<NamedPath>& outs,
                                               const std::vector<NamedPath>& inputs,
                                               const std::vector<std::string>& args);

// Renders and writes it (the QApplication must exist); throws InputError when a frame or the file fails.
void writeFigureAnimation(const FigureAnimation& animation, const QString& view, const LabSettings& settings);

} // namespace attnlab
