#pragma once

#include "app/cli_args.h"

#include "core/analysis/lab_settings.h"
#include "views/figures/figure_export.h"

#include <string>

namespace attnlab {

// The text of --font-scale S as a font scale in [kMinFontScale, kMaxFontScale]; InputError naming
// `command` otherwise (0, -1, abc, 1e9, inf).
double fontScaleOption(const std::string& command, const std::string& text);

// The figure's frame and text: --slide (1920 × 1080 at 96 dpi, font scale 2; refused with --width or
// --height), --font-scale S, --width, --height and --dpi, into `settings` (slideMode, fontScale) and
// the export options. A session's slide mode gives the slide's size unless --width or --height name
// another. The layout a font scale leaves (the size over S) must be at least 200 × 150. Throws InputError.
ExportOptions figureDisplayOptions(const CliArgs& cli, LabSettings& settings);

} // namespace attnlab
