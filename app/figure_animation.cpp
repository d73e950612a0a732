#include "app/figure_animation.h"

#include "views/shell/main_window.h"

#include "core/analysis/animation_range.h"
#include "core/errors.h"

#include <QEventLoop>

namespace attnlab {

namespace {

double numberOption(const CliArgs& cli, const std::string& name, double fallback) {
    const auto text = cli.value(name);
    if (!text) return fallback;
    const auto value = parseAnimationNumber(*text);
    if (!value) throw InputError("attnlab figure: " + name + " expects a number, got '" + *text + "'");
    return *value;
}

// The command line as typed, for the snippet's comment: arguments with spaces in single quotes.
std::string commandText(const std::vector<std::string>& args) {
    std::string text = "attnlab figure";
    for (const std::string& arg : args)
        text += " " + (arg.find_first_of(" |'\"") == std::string::npos ? arg : "'" + arg + "'");
    return text;
}

} // namespace

std::optional<FigureAnimation> figureAnimation(const CliArgs& cli, const QString& view,
                                               const LabSettings& settings,
                                               const std::vector<NamedPath>& outs,
                                               const std::vector<NamedPath>& inputs,
                                               const std::vector<std::string>& args) {
    const auto option = cli.value("--animate");
    if (!option) {
        for (const char* name : {"--fps", "--hold-last"})
            if (cli.value(name))
                throw InputError(std::string("attnlab figure: ") + name +
                                 " is for animations: give it with --animate");
        if (cli.flag("--free-axes"))
            throw InputError("attnlab figure: --free-axes is for animations: give it with --animate");
        return std::nullopt;
    }
    if (outs.size() != 1)
        throw InputError(
            "attnlab figure: --animate writes one animation: give one -o FILE.gif, FILE.mp4 or FILE.tex");
    FigureAnimation animation;
    animation.output.path = QString::fromStdString(outs.front().second);
    animation.output.fps = numberOption(cli, "--fps", 2);
    animation.output.holdLastSeconds = numberOption(cli, "--hold-last", 0);
    animation.output.freeAxes = cli.flag("--free-axes");
    // One frame pixel per figure pixel unless --dpi says otherwise: a slide shows the frame as it is.
    animation.output.options.dpi = static_cast<double>(cli.integer("--dpi", 96, 30, 2400));
    animation.output.options.size = QSizeF(static_cast<double>(cli.integer("--width", 900, 200, 8000)),
                                           static_cast<double>(cli.integer("--height", 600, 150, 8000)));
    animation.output.inputs = inputs;
    animation.output.description = commandText(args);
    try {
        animationFormatOf(animation.output.path);
        animation.sweep = parseAnimationSweep(view, settings, *option);
        requireAnimationOutput(animation.output, animation.sweep.values.size());
    } catch (const InputError& error) {
        throw InputError(std::string("attnlab figure: ") + error.what());
    }
    refuseOverlappingFiles(outs, inputs);
    return animation;
}

void writeFigureAnimation(const FigureAnimation& animation, const QString& view,
                          const LabSettings& settings) {
    AnimationRenderer renderer(createFigureView(view), animation.sweep, settings, animation.output);
    QEventLoop loop;
    QString error;
    QObject::connect(&renderer, &AnimationRenderer::finished, &loop, &QEventLoop::quit);
    QObject::connect(&renderer, &AnimationRenderer::failed, &loop, [&](const QString& message) {
        error = message;
        loop.quit();
    });
    renderer.start();
    if (renderer.running()) loop.exec();
    if (!error.isEmpty()) throw InputError("attnlab figure: " + error.toStdString() + "; no file written");
}

} // namespace attnlab
