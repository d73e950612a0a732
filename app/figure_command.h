#pragma once

#include "app/figure_animation.h"

#include "core/io/output_file.h"
#include "views/figures/figure_export.h"
#include "views/figures/figure_view.h"
#include "core/analysis/lab_settings.h"

#include <QString>

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

// `attnlab figure VIEW [parameters] -o FILE`: renders one view headless through the screen's painting
// code and writes it atomically. Uses the running QApplication when there is one (tests drive it in
// process), else starts its own on the offscreen platform. Bad input throws InputError.
int figureCommand(const std::vector<std::string>& args);

// What `figure`'s options ask for, every check made before any work.
struct FigureRequest {
    QString view;
    LabSettings settings;
    ExportOptions options;
    QString language;
    std::vector<NamedPath> inputs; // the files the figure is computed from
    std::vector<NamedPath> outs;   // -o FILE ... (empty for a figure kept in memory)
    std::optional<FigureAnimation> animation;
};

// The options after `figure` read and checked; `toFiles`: -o is required (and --animate allowed), else
// they are refused (a figure kept in memory, exported later). nullopt when they asked for a listing
// (--preset list, --model list), which is then printed. Throws InputError.
std::optional<FigureRequest> figureRequest(const std::vector<std::string>& args, bool toFiles);

// The request's view computed offscreen until idle (the QApplication must exist, with the request's
// language installed); throws InputError when it times out or its job fails.
std::unique_ptr<FigureView> computeFigure(const FigureRequest& request);

// Installs a figure's language for its lifetime and puts the previous one back.
class FigureLanguage {
public:
    explicit FigureLanguage(const QString& language);
    ~FigureLanguage();
    FigureLanguage(const FigureLanguage&) = delete;
    FigureLanguage& operator=(const FigureLanguage&) = delete;

private:
    QString m_before;
};

} // namespace attnlab
