#include "app/figure_command.h"

#include "app/cli_args.h"
#include "app/figure_animation.h"
#include "app/grid_options.h"
#include "app/headless_qt.h"
#include "app/model_option.h"

#include "views/figures/figure_export.h"
#include "views/figures/figure_limits.h"
#include "views/i18n/language.h"
#include "views/shell/main_window.h"
#include "views/shell/model_presets.h"
#include "views/shell/session_file.h"

#include "core/analysis/panel_spec.h"

#include "core/analysis/accuracy.h"
#include "core/analysis/settings_check.h"
#include "core/cost/cost_model.h"
#include "core/decode/kv_cache.h"
#include "core/errors.h"
#include "core/io/output_file.h"
#include "core/jobs/memory_budget.h"
#include "core/registry.h"

#include <QApplication>

#include <algorithm>
#include <optional>
#include <cstdio>
#include <sstream>

namespace attnlab {

namespace {

constexpr const char* kFigureHelp =
    R"(usage: attnlab figure [pattern|reach|timing|flops|accuracy|inference|roofline] -o FILE.{png,svg,pdf,tex,csv}...
                      [--preset NAME | --preset list | --session FILE]
                      [--variant ID] [--compare ID,ID[,ID[,ID]]] [--panel 'ID [KEY=VALUE]... [title=TEXT]']...
                      [--model NAME | --model list] [--n N] [--d D] [--heads H] [--head H] [--kv-heads G]
                      [--model-layers L] [--kv-dtype f32|f16|bf16] [--budget-line BYTES] [--queries M]
                      [--grid H,W | T,H,W [--order raster|tiles:a,b[,c]|morton]] [--query P]
                      [--causal] [--set KEY=VALUE]... [--layers L]
                      [--weights] [--no-outline] [--flops] [--flop-layer gau|standard] [--tokens "TEXT"]
                      [--input gaussian|local|npy] [--seed S] [--q Q.npy --k K.npy --v V.npy]
                      [--timing-max-n N] [--layer] [--guides] [--input-scale S] [--error-measure output|weights]
                      [--components [--split]] [--blocks B] [--block-cost B] [--dpi DPI] [--width W] [--height H] [--lang en|zh_CN]
       attnlab figure VIEW [parameters] --animate PARAM=FROM:TO[:STEP|:*FACTOR] [--fps F] [--hold-last S] [--free-axes]
                      -o FILE.{gif,mp4,tex}

Renders one view of the desktop app without a display, through the same painting code as the screen,
and writes it atomically; -o may be repeated, every file then showing the same computation (one timing
sweep for the PNG and the CSV). The format follows the extension: PNG at --dpi (default 300, recorded in the
file), SVG and PDF as vectors with the run's parameters in their metadata, TeX as a standalone TikZ
picture, CSV with the figure's data.
--width and --height give the figure's size in pixels at 96 dpi (default 900 x 600).
--preset NAME starts from a classic figure (--preset list prints the names) and --session FILE from a
saved session; the view then defaults to theirs, and the other options change what they name.
--panel gives one compare panel its own variant, parameters and title (title=TEXT, the rest of the text;
an expression may hold spaces and '|'); repeat it for 1 to 4 panels.
With --compare, each --set applies to every compared variant that has the parameter.
--weights draws the effective weights W (with the mask outline unless --no-outline); --flops counts
FLOPs (2 x MACs) instead of MACs; --tokens labels the pattern's rows and columns with the words of TEXT
when their count equals n. Defaults: --variant full --n 256 --d 64 --heads 1 --input local.
--components (pattern only) colours each allowed cell by the component it comes from (the first
top-level term of the expression that contains it) with a legend naming each term; --split draws each
component as a separate panel, the factorised heads A(1), A(2), ... of the Sparse Transformer.
--blocks B (pattern only) draws the B x B block grid over the pattern, as a block kernel computes it:
empty blocks clear, partial blocks hatched, full blocks solid, with their counts, computed / allowed
cells and the block density beside nnz (B >= 1; the view offers 16 ... 256, default 64).
--flop-layer (flops, relu2 and mixed_chunk only): the layer their cost is stacked in, gau (FLASH's
gated attention unit, which replaces attention + FFN; the default) or standard (attention + FFN 4hd).
--block-cost B (flops and timing): what a block kernel computes in blocks of B x B (B >= 1): flops sets
the block size of the block-kernel bars beside each exact attention-core bar (default 64); timing adds
the block kernel's prediction (computed cells x (d + dv) x h, fitted to the measured times as the cost
model's) as a dotted line beside each curve.
timing measures n = 64, 128, ... up to --timing-max-n (default 4096) on this machine before writing;
with --layer it times one Transformer layer's parts (QKV, attention core, output projection, FFN);
--guides adds n^2, n*sqrt(n) and n guide lines through the measured range. Points whose threads got
too little CPU (other programs busy) are ringed and named, and never used for a fit or a crossover.
accuracy multiplies Q and K by --input-scale S (default 0.5; logits q.k/sqrt(d) by S^2) in the panels over
each method's budget, and draws the error against S at a fixed budget; --error-measure picks what is
compared with exact softmax: the output (default) or the effective weights W.
--model NAME sets h, h_kv, d, --model-layers, n (the model's context) and the cache precision of a
known model (--model list shows them); the options given with it still override each of them.
--kv-heads G: key/value heads (must divide --heads; default --heads). inference draws the KV cache of
one layer and of --model-layers L layers (default 1) in the precision --kv-dtype (default f32) vs
context length, with the context at which it exceeds --budget-line (e.g. 16G; default this machine's
physical RAM), the measured time of one decoding step for n = 256 ... --timing-max-n and the
bandwidth at which it read its cache beside this machine's triad, and the time to the first token of
a prompt of n tokens prefilled in chunks of 64 ... n queries. roofline measures this machine's FMA
peak and memory bandwidth and places each chosen variant's prefill (a forward at --n) and decoding
step under them.
--queries M (pattern only): only the last M rows query, an M x n rectangle (a chunk of prefill over
a cache of n - M; 1 <= M <= n).
--grid H,W (or T,H,W) lays the n = H*W (T*H*W) tokens on an image (video) grid and --order says which
cell each position holds (docs/grids.md); custom's grid primitives act on it. pattern and reach then
add the grid view for the query cell at sequence position --query P (0 <= P < n; default the centre
cell): pattern draws the cells that query attends above each matrix, reach the cells it reaches in
1 ... L layers. timing and flops sweep image sizes: the grid scaled to each n (frames, aspect and order
kept), from 64 cells up to --timing-max-n (timing) or past 6hd (flops).
--lang zh_CN writes the figure's text (titles, axes, legends, caption) in Chinese; default English.
--animate sweeps one parameter and writes the view's frames as a GIF, an H.264 MP4 or, for Beamer, a PDF
per frame with a .tex snippet using \animategraphics: n, d, h, h_kv, layers (reach), model_layers
(inference), input_scale (accuracy), query (the query row, or the grid's query cell), decode (the
decoding step: pattern with --causal, inference) or an integer parameter of the variant. FROM:TO steps
by 1, :STEP by STEP (negative to descend), :*FACTOR multiplies; 2 to 600 frames. In timing, n plays the
measured sweep point by point. --fps F (default 2), --hold-last S keeps the last frame S seconds
longer; axes and colour scales stay fixed over the sweep unless --free-axes. Frames are --width x
--height pixels (at --dpi, default 96).
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

// --input-scale when given, else `current`.
double inputScale(const CliArgs& cli, double current) {
    const auto given = cli.value("--input-scale");
    if (!given) return current;
    std::size_t used = 0;
    double scale = 0;
    try {
        scale = std::stod(*given, &used);
    } catch (const std::exception&) {
        used = 0;
    }
    if (used == 0 || used != given->size()) throw InputError("--input-scale expects a number, got '" + *given + "'");
    if (!(scale >= kMinInputScale && scale <= kMaxInputScale))
        throw InputError("--input-scale = " + *given + " is out of range [1/64, 16]");
    return scale;
}

// Panels from repeated --panel: their variants, parameters and titles replace the compared variants.
void applyPanels(LabSettings& settings, const std::vector<std::string>& texts) {
    if (texts.size() > 4) throw InputError("attnlab figure: --panel is given " + std::to_string(texts.size()) + " times (at most 4 panels)");
    std::vector<PanelSpec> panels;
    for (const auto& text : texts) {
        try {
            panels.push_back(parsePanelSpec(text));
        } catch (const InputError& error) {
            throw InputError(std::string("attnlab figure: --panel: ") + error.what());
        }
    }
    settings.variant = panels.front().choice.variant;
    settings.params = panels.front().choice.params;
    settings.compareVariants.clear();
    settings.compareParams.clear();
    settings.panelTitles.clear();
    settings.panelOrders.clear();
    if (panels.size() == 1 && !panels.front().choice.order.empty()) settings.order = panels.front().choice.order;
    for (const PanelSpec& panel : panels) {
        if (panels.size() > 1) {
            settings.compareVariants.push_back(panel.choice.variant);
            settings.compareParams.push_back(panel.choice.params);
            settings.panelOrders.push_back(panel.choice.order);
        }
        settings.panelTitles.push_back(panel.title);
    }
}

// The starting point: a preset (at --n when given, so a preset that scales with n recomputes its
// parameters), a session file, or the defaults. Sets `view` to theirs.
LabSettings baseSettings(const CliArgs& cli, QString& view) {
    const auto preset = cli.value("--preset");
    const auto session = cli.value("--session");
    if (preset && session) throw InputError("attnlab figure: give either --preset or --session");
    if (preset) {
        const FigurePreset* found = findFigurePreset(*preset);
        if (!found) throw InputError("attnlab figure: unknown preset '" + *preset + "' (see attnlab figure --preset list)");
        view = found->view;
        return presetSettingsAt(*found, cli.integer("--n", found->settings.n, 1, 65536));
    }
    if (session) {
        const Session loaded = loadSession(QString::fromStdString(*session));
        view = loaded.view;
        return loaded.settings;
    }
    return LabSettings{};
}

LabSettings settingsFromArgs(const CliArgs& cli, LabSettings settings) {
    if (const ModelShape* model = modelOption(cli)) settings = withModelShape(settings, *model);
    const auto panels = cli.values("--panel");
    if (!panels.empty() && (cli.value("--variant") || cli.value("--compare")))
        throw InputError("attnlab figure: give the variants either with --panel or with --variant/--compare");
    if (!panels.empty() && !cli.overrides().empty())
        throw InputError("attnlab figure: with --panel, give each panel's parameters inside it ('--panel \"ID KEY=VALUE\"'), not with --set");
    if (!cli.overrides().empty() && !cli.value("--compare") && settings.compareVariants.size() > 1)
        throw InputError("attnlab figure: this preset or session compares several panels: give their parameters with --panel, not --set");
    if (const auto variant = cli.value("--variant")) {
        settings.variant = *variant;
        settings.params.clear();
    }
    if (!cli.overrides().empty()) settings.params = cli.overrides();
    if (cli.value("--order") && !cli.value("--grid") && !settings.grid.empty()) { // reorders a preset's or session's grid
        settings.order = *cli.value("--order");
        makeTokenGrid(settings.grid, settings.order);
        settings.n = cli.integer("--n", settings.n, 1, 65536);
    } else if (const TokenGridPtr grid = gridOption(cli)) { // the grid gives n; --n, if given, must agree
        if (grid->cells() > 65536)
            throw InputError("attnlab figure: --grid " + grid->sizeText() + " has more than 65536 cells");
        settings.n = sizeWithGrid(cli, grid.get());
        settings.grid = grid->sizeText();
        settings.order = grid->orderText();
        settings.gridQuery = -1; // a new grid: its centre cell unless --query names another
    } else {
        settings.n = cli.integer("--n", settings.n, 1, 65536);
    }
    if (cli.value("--query")) {
        if (settings.grid.empty()) throw InputError("attnlab figure: --query picks the query cell of a grid: give the grid with --grid");
        settings.gridQuery = cli.integer("--query", -1, 0, makeTokenGrid(settings.grid, settings.order)->cells() - 1);
    }
    settings.d = cli.integer("--d", settings.d, 1, 4096);
    settings.heads = static_cast<int>(cli.integer("--heads", settings.heads, 1, 256));
    settings.kvHeads = static_cast<int>(cli.integer("--kv-heads", settings.kvHeads > 0 ? settings.kvHeads : settings.heads, 1, settings.heads));
    if (settings.heads % settings.kvHeads != 0)
        throw InputError("attnlab figure: --kv-heads " + std::to_string(settings.kvHeads) + " must divide --heads " +
                         std::to_string(settings.heads));
    settings.modelLayers = cli.integer("--model-layers", settings.modelLayers, 1, 1024);
    if (const auto dtype = cli.value("--kv-dtype")) settings.kvDtype = kvDtypeName(kvDtypeFromName(*dtype, "attnlab figure: --kv-dtype"));
    if (cli.value("--queries")) settings.queries = cli.integer("--queries", settings.n, 1, settings.n);
    settings.queries = std::min(settings.queries, settings.n);
    // The line the inference view draws the KV cache against; --memory-budget stays the job budget.
    if (const auto line = cli.value("--budget-line")) {
        const auto bytes = parseByteSize(*line);
        if (!bytes || *bytes > static_cast<double>(INT64_MAX))
            throw InputError("attnlab figure: --budget-line expects a byte count such as 16G or 500000000, got '" + *line + "'");
        settings.memoryBudget = static_cast<std::int64_t>(*bytes);
    }
    settings.head = static_cast<int>(cli.integer("--head", std::min(settings.head, settings.heads - 1), 0, settings.heads - 1));
    settings.layers = cli.integer("--layers", settings.layers, 1, 64);
    if (cli.flag("--causal")) settings.causal = true;
    if (cli.flag("--weights")) settings.showWeights = true;
    if (cli.flag("--no-outline")) settings.showMaskOutline = false;
    if (cli.flag("--flops")) settings.flopsAsMacs = false;
    if (const auto layer = cli.value("--flop-layer")) {
        if (*layer != "gau" && *layer != "standard")
            throw InputError("attnlab figure: --flop-layer takes gau or standard, got '" + *layer + "'");
        settings.flopsStandardLayer = *layer == "standard";
    }
    settings.timingMaxN = cli.integer("--timing-max-n", settings.timingMaxN, 64, 65536);
    if (cli.flag("--layer")) settings.timingMode = TimingMode::Layer;
    if (cli.flag("--components")) settings.showComponents = true;
    if (cli.flag("--split")) settings.splitComponents = true;
    settings.blockView = cli.integer("--blocks", settings.blockView, 1, INT32_MAX);
    settings.blockCost = cli.integer("--block-cost", settings.blockCost, 1, INT32_MAX);
    if (cli.value("--block-cost")) settings.timingBlockModel = true;
    if (settings.splitComponents && !settings.showComponents)
        throw InputError("attnlab figure: --split draws the components apart: give it with --components");
    if (settings.showComponents && settings.showWeights)
        throw InputError("attnlab figure: --components colours the mask: it cannot be combined with --weights");
    settings.inputSeed = static_cast<std::uint64_t>(cli.integer("--seed", static_cast<std::int64_t>(settings.inputSeed), 0, INT64_MAX));
    if (const auto input = cli.value("--input")) settings.source = inputSourceFromName(*input);
    settings.qPath = cli.value("--q").value_or(settings.qPath);
    settings.kPath = cli.value("--k").value_or(settings.kPath);
    settings.vPath = cli.value("--v").value_or(settings.vPath);
    if (cli.value("--q") && !cli.value("--input")) settings.source = InputSource::NpyFiles;
    settings.tokens = cli.value("--tokens").value_or(settings.tokens);
    if (cli.flag("--guides")) settings.timingGuides = true;
    settings.accuracyInputScale = inputScale(cli, settings.accuracyInputScale);
    if (const auto measure = cli.value("--error-measure"))
        settings.accuracyOnWeights = accuracyMeasureFromName(*measure) == AccuracyMeasure::Weights;
    if (const auto compare = cli.value("--compare")) {
        settings.compareVariants = splitList(*compare);
        settings.compareParams.clear();
        settings.panelTitles.clear();
        settings.panelOrders.clear();
        if (settings.compareVariants.size() < 2 || settings.compareVariants.size() > 4)
            throw InputError("attnlab figure: --compare takes 2 to 4 variant ids separated by commas");
        if (!cli.value("--variant")) settings.variant = settings.compareVariants.front();
        applyCompare(settings, cli.overrides());
    }
    if (!panels.empty()) applyPanels(settings, panels);
    // One variant follows the rules of `pattern` and `run`; in compare mode each panel says what its
    // variant cannot do instead.
    if (settings.compareVariants.empty())
        if (const std::string problem = causalSupportProblem(requireVariant(settings.variant), settings.causal); !problem.empty())
            throw InputError(problem);
    if (const std::string problem = settingsProblem(settings); !problem.empty()) throw InputError("attnlab figure: " + problem);
    return settings;
}

// Every -o FILE (or --out FILE): the files one measurement is written to, each in its extension's format.
std::vector<NamedPath> figureOutputs(const CliArgs& cli) {
    std::vector<NamedPath> outs;
    for (const char* option : {"-o", "--out"})
        for (const std::string& out : cli.values(option)) outs.emplace_back(option, out);
    if (outs.empty()) throw InputError("attnlab figure: give the output with -o FILE (repeat it for several formats)");
    return outs;
}

void listPresets() {
    for (const FigurePreset& preset : figurePresets()) std::printf("%s\n", preset.id.toUtf8().constData());
}

} // namespace

std::optional<FigureRequest> figureRequest(const std::vector<std::string>& args, bool toFiles) {
    const bool viewFirst = !args.empty() && args[0].rfind("-", 0) != 0;
    const CliArgs cli("figure", std::vector<std::string>(args.begin() + (viewFirst ? 1 : 0), args.end()),
                      {"--variant", "--compare", "--n", "--d", "--heads", "--head", "--layers", "--input",
                       "--seed", "--q", "--k", "--v", "--timing-max-n", "--dpi", "--width", "--height", "--preset", "--session",
                       "--tokens", "--input-scale", "--error-measure", "--kv-heads", "--model-layers", "--lang", "--budget-line",
                       "--grid", "--order", "--blocks", "--query", "--block-cost", "--flop-layer",
                       "--animate", "--fps", "--hold-last", "--model", "--kv-dtype", "--queries"},
                      {"--causal", "--weights", "--no-outline", "--flops", "--layer", "--guides", "--components", "--split", "--free-axes"},
                      {"--panel", "-o", "--out"});
    if (cli.value("--preset") == "list") {
        listPresets();
        return std::nullopt;
    }
    if (cli.value("--model") == "list") {
        std::fputs(modelShapesListing().c_str(), stdout);
        return std::nullopt;
    }
    if (!viewFirst && !cli.value("--preset") && !cli.value("--session"))
        throw InputError("attnlab figure: name the view first: pattern, reach, timing, flops, accuracy, inference or roofline (or give --preset or --session)");
    FigureRequest request;
    QString& name = request.view;
    LabSettings base = baseSettings(cli, name);
    if (viewFirst) name = QString::fromStdString(args[0]);
    if (!figureViewNames().contains(name))
        throw InputError("attnlab figure: unknown view '" + name.toStdString() + "' (pattern, reach, timing, flops, accuracy, inference, roofline)");
    if (toFiles) request.outs = figureOutputs(cli);
    else if (!cli.values("-o").empty() || !cli.values("--out").empty() || cli.value("--animate") || cli.value("--fps") ||
             cli.value("--hold-last") || cli.flag("--free-axes"))
        throw InputError("attnlab figure: a figure kept in memory is one frame, saved to a file later: it takes no -o, --animate, "
                         "--fps, --hold-last or --free-axes");
    request.settings = settingsFromArgs(cli, std::move(base));
    const LabSettings& settings = request.settings;
    if (cli.flag("--components") && name != QStringLiteral("pattern"))
        throw InputError("attnlab figure: --components is for the pattern view");
    if (cli.value("--queries") && name != QStringLiteral("pattern"))
        throw InputError("attnlab figure: --queries draws the last rows of a pattern: it goes with the pattern view");
    if (cli.value("--blocks") && name != QStringLiteral("pattern"))
        throw InputError("attnlab figure: --blocks is for the pattern view");
    if (cli.value("--block-cost") && name != QStringLiteral("flops") && name != QStringLiteral("timing"))
        throw InputError("attnlab figure: --block-cost is for the flops and timing views");
    if (cli.value("--flop-layer") && name != QStringLiteral("flops"))
        throw InputError("attnlab figure: --flop-layer is for the flops view");
    if (const VariantInfo& variant = requireVariant(settings.variant); cli.value("--flop-layer") && !hasGauLayer(variant))
        throw InputError("attnlab figure: --flop-layer chooses the layer of relu2 and mixed_chunk; " + variant.id +
                         " has the standard layer only");
    if (cli.value("--query") && name != QStringLiteral("pattern") && name != QStringLiteral("reach"))
        throw InputError("attnlab figure: --query is for the pattern and reach views");
    request.options.dpi = static_cast<double>(cli.integer("--dpi", 300, 30, 2400));
    request.options.size = QSizeF(static_cast<double>(cli.integer("--width", 900, 200, 8000)),
                                  static_cast<double>(cli.integer("--height", 600, 150, 8000)));
    request.language = matchUiLanguage(QString::fromStdString(cli.value("--lang").value_or("en")));
    if (request.language.isEmpty())
        throw InputError("attnlab figure: unknown --lang '" + cli.value("--lang").value_or("") + "' (en, zh_CN)");
    request.inputs = settingsInputFiles(settings);
    if (const auto session = cli.value("--session")) request.inputs.emplace_back("--session", *session);
    if (toFiles) request.animation = figureAnimation(cli, name, settings, request.outs, request.inputs, args);
    for (const auto& [option, out] : request.outs) {
        if (!request.animation) exportFormatOf(QString::fromStdString(out));
        checkOutputPath("attnlab figure", out);
    }
    refuseOverlappingFiles(request.outs, request.inputs);
    requireFigureLimits(name, settings);
    return request;
}

std::unique_ptr<FigureView> computeFigure(const FigureRequest& request) {
    const std::string name = request.view.toStdString();
    auto view = createFigureView(request.view);
    view->setAttribute(Qt::WA_DontShowOnScreen);
    view->resize(request.options.size.toSize());
    view->setSettings(request.settings);
    view->show();
    if (!waitUntilIdle({view.get()}, kFigureTimeoutMs))
        throw InputError("attnlab figure: the " + name + " view did not finish within " + std::to_string(kFigureTimeoutMs / 1000) + " s");
    if (!view->jobError().isEmpty())
        throw InputError("attnlab figure: the " + name + " view could not be computed: " + view->jobError().toStdString() +
                         "; no file written");
    return view;
}

int figureCommand(const std::vector<std::string>& args) {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        std::fputs(kFigureHelp, stdout);
        return 0;
    }
    const std::optional<FigureRequest> request = figureRequest(args, true);
    if (!request) return 0;
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
    const FigureLanguage language(request->language);
    if (request->animation) {
        writeFigureAnimation(*request->animation, request->view, request->settings);
        return 0;
    }
    const auto view = computeFigure(*request);
    for (const auto& [option, out] : request->outs) exportFigure(*view, QString::fromStdString(out), request->options, request->inputs);
    return 0;
}

FigureLanguage::FigureLanguage(const QString& language) : m_before(currentLanguage()) { installLanguage(language); }

FigureLanguage::~FigureLanguage() { installLanguage(m_before); }

} // namespace attnlab
