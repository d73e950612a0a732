#include "app/figure_command.h"

#include "app/cli_args.h"
#include "app/headless_qt.h"

#include "views/figures/figure_export.h"
#include "views/i18n/language.h"
#include "views/shell/main_window.h"

#include "core/analysis/settings_check.h"
#include "core/errors.h"
#include "core/registry.h"

#include <QApplication>
#include <QFileInfo>

#include <algorithm>
#include <optional>
#include <cstdio>
#include <sstream>

namespace attnlab {

namespace {

constexpr const char* kFigureHelp = R"(usage: attnlab figure pattern|reach|timing|flops|accuracy -o FILE.{png,svg,pdf,csv}
                      [--variant ID] [--compare ID,ID[,ID[,ID]]] [--n N] [--d D] [--heads H] [--head H]
                      [--causal] [--set KEY=VALUE]... [--layers L] [--weights] [--no-outline] [--flops]
                      [--input gaussian|local|npy] [--seed S] [--q Q.npy --k K.npy --v V.npy]
                      [--timing-max-n N] [--layer] [--dpi DPI] [--width W] [--height H] [--lang en|zh_CN]

Renders one view of the desktop app without a display, through the same painting code as the screen,
and writes it atomically. The format follows the extension: PNG at --dpi (default 300, recorded in the
file), SVG and PDF with the run's parameters in their metadata, CSV with the figure's data.
--width and --height give the figure's size in pixels at 96 dpi (default 900 x 600). With --compare,
each --set applies to every compared variant that has the parameter.
--weights draws the effective weights W (with the mask outline unless --no-outline); --flops counts
FLOPs (2 x MACs) instead of MACs. Defaults: --variant full --n 256 --d 64 --heads 1 --input local.
timing measures n = 64, 128, ... up to --timing-max-n (default 4096) on this machine before writing;
with --layer it times one Transformer layer's parts (QKV, attention core, output projection, FFN).
--lang zh_CN writes the figure's text (titles, axes, legends, caption) in Chinese; default English.
)";

constexpr int kFigureTimeoutMs = 600000;

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream stream(text);
    for (std::string item; std::getline(stream, item, ',');)
        if (!item.empty()) items.push_back(item);
    return items;
}

// The overrides among `overrides` whose key is a parameter of `id`.
ParamOverrides overridesFor(const std::string& id, const ParamOverrides& overrides) {
    const VariantInfo& variant = requireVariant(id);
    ParamOverrides own;
    for (const auto& [key, value] : overrides)
        if (std::any_of(variant.params.begin(), variant.params.end(), [&](const ParamSpec& spec) { return spec.key == key; }))
            own[key] = value;
    return own;
}

// With --compare, each --set applies to every compared variant that has the key.
void applyCompare(LabSettings& settings, const ParamOverrides& overrides) {
    for (const auto& id : settings.compareVariants) settings.compareParams.push_back(overridesFor(id, overrides));
    for (const auto& [key, value] : overrides)
        if (std::none_of(settings.compareParams.begin(), settings.compareParams.end(),
                         [&](const ParamOverrides& own) { return own.count(key) != 0; }))
            throw InputError("attnlab figure: no compared variant has a parameter '" + key + "'");
    settings.params = overridesFor(settings.variant, overrides);
}

LabSettings settingsFromArgs(const CliArgs& cli) {
    LabSettings settings;
    settings.variant = cli.value("--variant").value_or(settings.variant);
    settings.params = cli.overrides();
    settings.n = cli.integer("--n", settings.n, 1, 65536);
    settings.d = cli.integer("--d", settings.d, 1, 4096);
    settings.heads = static_cast<int>(cli.integer("--heads", settings.heads, 1, 256));
    settings.head = static_cast<int>(cli.integer("--head", 0, 0, settings.heads - 1));
    settings.layers = cli.integer("--layers", settings.layers, 1, 64);
    settings.causal = cli.flag("--causal");
    settings.showWeights = cli.flag("--weights");
    settings.showMaskOutline = !cli.flag("--no-outline");
    settings.flopsAsMacs = !cli.flag("--flops");
    settings.timingMaxN = cli.integer("--timing-max-n", settings.timingMaxN, 64, 65536);
    if (cli.flag("--layer")) settings.timingMode = TimingMode::Layer;
    settings.inputSeed = static_cast<std::uint64_t>(cli.integer("--seed", 0, 0, INT64_MAX));
    if (const auto input = cli.value("--input")) settings.source = inputSourceFromName(*input);
    settings.qPath = cli.value("--q").value_or("");
    settings.kPath = cli.value("--k").value_or("");
    settings.vPath = cli.value("--v").value_or("");
    if (!settings.qPath.empty() && !cli.value("--input")) settings.source = InputSource::NpyFiles;
    if (const auto compare = cli.value("--compare")) {
        settings.compareVariants = splitList(*compare);
        if (settings.compareVariants.size() < 2 || settings.compareVariants.size() > 4)
            throw InputError("attnlab figure: --compare takes 2 to 4 variant ids separated by commas");
        if (!cli.value("--variant")) settings.variant = settings.compareVariants.front();
        applyCompare(settings, cli.overrides());
    }
    if (const std::string problem = settingsProblem(settings); !problem.empty()) throw InputError("attnlab figure: " + problem);
    return settings;
}

} // namespace

int figureCommand(const std::vector<std::string>& args) {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        std::fputs(kFigureHelp, stdout);
        return 0;
    }
    if (args.empty() || args[0].rfind("-", 0) == 0)
        throw InputError("attnlab figure: name the view first: pattern, reach, timing, flops or accuracy");
    const QString name = QString::fromStdString(args[0]);
    if (!figureViewNames().contains(name))
        throw InputError("attnlab figure: unknown view '" + args[0] + "' (pattern, reach, timing, flops, accuracy)");
    const CliArgs cli("figure", std::vector<std::string>(args.begin() + 1, args.end()),
                      {"-o", "--out", "--variant", "--compare", "--n", "--d", "--heads", "--head", "--layers", "--input",
                       "--seed", "--q", "--k", "--v", "--timing-max-n", "--dpi", "--width", "--height", "--lang"},
                      {"--causal", "--weights", "--no-outline", "--flops", "--layer"});
    const auto shortOut = cli.value("-o");
    if (shortOut && cli.value("--out")) throw InputError("attnlab figure: give either -o or --out");
    const std::string out = shortOut ? *shortOut : cli.required("--out");
    const LabSettings settings = settingsFromArgs(cli);
    ExportOptions options;
    options.dpi = static_cast<double>(cli.integer("--dpi", 300, 30, 2400));
    options.size = QSizeF(static_cast<double>(cli.integer("--width", 900, 200, 8000)),
                          static_cast<double>(cli.integer("--height", 600, 150, 8000)));
    const QString language = matchUiLanguage(QString::fromStdString(cli.value("--lang").value_or("en")));
    if (language.isEmpty())
        throw InputError("attnlab figure: unknown --lang '" + cli.value("--lang").value_or("") + "' (en, zh_CN)");
    exportFormatOf(QString::fromStdString(out));
    checkOutputPath("attnlab figure", out);
    for (const std::string* input : {&settings.qPath, &settings.kPath, &settings.vPath})
        if (!input->empty() && QFileInfo(QString::fromStdString(*input)) == QFileInfo(QString::fromStdString(out)))
            throw InputError("attnlab figure: refusing to write over the input '" + *input + "'");

    std::optional<QApplication> ownApp;
    if (!QApplication::instance()) {
        useOffscreenWithoutDisplay();
        quietQtMessages();
        static int argc = 1;
        static char program[] = "attnlab";
        static char* argv[] = {program, nullptr};
        ownApp.emplace(argc, argv);
    }
    // The figure's language for this export only; an app running this in process gets its own back.
    const QString before = currentLanguage();
    installLanguage(language);
    struct LanguageRestore {
        QString language;
        ~LanguageRestore() { installLanguage(language); }
    } restoreLanguage{before};
    const auto view = createFigureView(name);
    view->setAttribute(Qt::WA_DontShowOnScreen);
    view->resize(options.size.toSize());
    view->setSettings(settings);
    view->show();
    if (!waitUntilIdle({view.get()}, kFigureTimeoutMs))
        throw InputError("attnlab figure: the " + args[0] + " view did not finish within " +
                         std::to_string(kFigureTimeoutMs / 1000) + " s");
    exportFigure(*view, QString::fromStdString(out), options);
    return 0;
}

} // namespace attnlab
