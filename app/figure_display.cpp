#include "app/figure_display.h"

#include "views/plot/figure_text.h"

#include "core/errors.h"

#include <cmath>
#include <cstdio>

namespace attnlab {

namespace {

constexpr double kMinLayoutWidth = 200, kMinLayoutHeight = 150;

std::string numberText(double value) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", value);
    return text;
}

} // namespace

double fontScaleOption(const std::string& command, const std::string& text) {
    std::size_t used = 0;
    double scale = 0;
    try {
        scale = std::stod(text, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != text.size()) throw InputError(command + ": --font-scale expects a number, got '" + text + "'");
    if (!(scale >= kMinFontScale && scale <= kMaxFontScale))
        throw InputError(command + ": --font-scale " + text + " is out of range [" + numberText(kMinFontScale) + ", " +
                         numberText(kMaxFontScale) + "]");
    return scale;
}

ExportOptions figureDisplayOptions(const CliArgs& cli, LabSettings& settings) {
    const bool sized = cli.value("--width") || cli.value("--height");
    if (cli.flag("--slide")) {
        if (sized)
            throw InputError("attnlab figure: --slide draws a 1920 x 1080 slide: give either --slide or --width/--height "
                             "(--font-scale sets its text size, --dpi its pixels)");
        settings.slideMode = true;
        settings.fontScale = kSlideFontScale;
    }
    if (const auto scale = cli.value("--font-scale")) settings.fontScale = fontScaleOption("attnlab figure", *scale);
    ExportOptions options;
    const bool slide = settings.slideMode && !sized;
    options.dpi = static_cast<double>(cli.integer("--dpi", slide ? 96 : 300, 30, 2400));
    const QSizeF fallback = slide ? kSlideSize : options.size;
    options.size = QSizeF(static_cast<double>(cli.integer("--width", static_cast<std::int64_t>(fallback.width()), 200, 8000)),
                          static_cast<double>(cli.integer("--height", static_cast<std::int64_t>(fallback.height()), 150, 8000)));
    const QSizeF layout = options.size / settings.fontScale;
    if (layout.width() < kMinLayoutWidth || layout.height() < kMinLayoutHeight)
        throw InputError("attnlab figure: --font-scale " + numberText(settings.fontScale) + " lays a " +
                         numberText(options.size.width()) + " x " + numberText(options.size.height()) + " figure out in " +
                         numberText(std::floor(layout.width())) + " x " + numberText(std::floor(layout.height())) +
                         " pixels, less than the 200 x 150 a figure needs: lower the scale or enlarge the figure");
    return options;
}

} // namespace attnlab
