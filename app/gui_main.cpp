#include "app/gui_main.h"
#include "app/figure_display.h"
#include "app/headless_qt.h"

#include "views/figures/figure_export.h"
#include "views/i18n/language.h"
#include "views/plot/figure_text.h"
#include "views/shell/main_window.h"
#include "views/shell/model_presets.h"

#include "core/errors.h"
#include "core/io/output_file.h"

#include <QApplication>
#include <QElapsedTimer>
#include <QIcon>
#include <QFileInfo>
#include <QImage>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <optional>
#include <thread>

namespace attnlab {

namespace {

// A screenshot run ends within its time limit: work still running then is cancelled (exit 3, no file),
// and should the cancelled work not stop within the grace period, the process ends anyway.
constexpr int kDefaultScreenshotSeconds = 50;
constexpr int kMaxScreenshotSeconds = 3600;
constexpr int kCancelGraceMs = 5000;
constexpr int kTimedOutExit = 3;

struct GuiOptions {
    QString screenshot; // empty: interactive
    QString view;
    QString session;
    QString timeLimit;
    int timeLimitSeconds = kDefaultScreenshotSeconds;
    QString language; // --lang: empty follows the View → Language choice, else the system locale
    bool slide = false; // --slide: a 1920 × 1080 window in slide mode
    QString fontScaleText;
    std::optional<double> fontScale; // --font-scale S
};

// Parses --screenshot FILE, --view NAME, --session FILE, --time-limit SECONDS, --lang LANGUAGE, --slide and
// --font-scale S; Qt's own options (-platform …) are left to QApplication.
bool parseGuiOptions(int argc, char** argv, GuiOptions& options) {
    for (int a = 1; a < argc; ++a) {
        if (std::strcmp(argv[a], "--slide") == 0) options.slide = true;
        QString* target = nullptr;
        if (std::strcmp(argv[a], "--font-scale") == 0) target = &options.fontScaleText;
        if (std::strcmp(argv[a], "--screenshot") == 0) target = &options.screenshot;
        if (std::strcmp(argv[a], "--view") == 0) target = &options.view;
        if (std::strcmp(argv[a], "--session") == 0) target = &options.session;
        if (std::strcmp(argv[a], "--time-limit") == 0) target = &options.timeLimit;
        if (std::strcmp(argv[a], "--lang") == 0) target = &options.language;
        if (!target) continue;
        if (a + 1 >= argc) {
            std::fprintf(stderr, "attnlab: error: %s needs a value\n", argv[a]);
            return false;
        }
        *target = QString::fromLocal8Bit(argv[++a]);
        if (target == &options.fontScaleText) try {
                options.fontScale = fontScaleOption("attnlab: error", options.fontScaleText.toStdString());
            } catch (const InputError& error) {
                std::fprintf(stderr, "%s\n", error.what());
                return false;
            }
    }
    if (options.timeLimit.isEmpty()) return true;
    bool ok = false;
    options.timeLimitSeconds = options.timeLimit.toInt(&ok);
    if (!ok || options.timeLimitSeconds < 1 || options.timeLimitSeconds > kMaxScreenshotSeconds) {
        std::fprintf(stderr, "attnlab: error: --time-limit expects whole seconds in [1, %d], got '%s'\n",
                     kMaxScreenshotSeconds, qPrintable(options.timeLimit.left(64)));
        return false;
    }
    return true;
}

// The last resort of the time limit: ends the process when the UI thread itself has not returned
// (a computation that ignores its cancellation would otherwise block the exit forever).
void startExitWatchdog(int seconds) {
    std::thread([seconds] {
        std::this_thread::sleep_for(std::chrono::seconds(seconds) + std::chrono::milliseconds(2 * kCancelGraceMs));
        std::fprintf(stderr, "attnlab: error: the screenshot did not finish within its time limit of %d s and its "
                             "work did not stop when cancelled; no file written\n", seconds);
        std::fflush(stderr);
        std::_Exit(kTimedOutExit);
    }).detach();
}

// The files a screenshot reads: the session and the NPY files of its settings.
std::vector<NamedPath> screenshotInputs(const GuiOptions& options, const LabSettings& settings) {
    std::vector<NamedPath> inputs = settingsInputFiles(settings);
    if (!options.session.isEmpty()) inputs.emplace_back("--session", options.session.toStdString());
    return inputs;
}

// Checks what can be checked before Qt starts, so that bad input gives one line on stderr.
bool checkGuiOptions(const GuiOptions& options) {
    QStringList views = figureViewNames();
    views << QStringLiteral("lab");
    if (!options.view.isEmpty() && !views.contains(options.view)) {
        std::fprintf(stderr, "attnlab: error: unknown view '%s' (%s)\n", qPrintable(options.view),
                     qPrintable(views.join(QStringLiteral(", "))));
        return false;
    }
    if (!options.language.isEmpty() && matchUiLanguage(options.language).isEmpty()) {
        std::fprintf(stderr, "attnlab: error: unknown language '%s' (%s)\n", qPrintable(options.language),
                     qPrintable(uiLanguages().join(QStringLiteral(", "))));
        return false;
    }
    if (!options.screenshot.isEmpty()) {
        try {
            checkOutputPath("attnlab --screenshot", options.screenshot.toStdString());
            refuseOverlappingFiles({{"--screenshot", options.screenshot.toStdString()}}, screenshotInputs(options, {}));
        } catch (const InputError& error) {
            std::fprintf(stderr, "attnlab: error: %s\n", error.what());
            return false;
        }
    }
    return true;
}

// --slide and --font-scale over what the session or the stored state chose.
void applyDisplayOptions(MainWindow& window, const GuiOptions& options) {
    if (!options.slide && !options.fontScale) return;
    LabSettings settings = window.labSettings();
    if (options.slide) {
        settings.slideMode = true;
        settings.fontScale = kSlideFontScale;
        window.resize(kSlideSize.toSize());
    }
    if (options.fontScale) settings.fontScale = *options.fontScale;
    window.applySettings(settings);
}

int takeScreenshot(MainWindow& window, const GuiOptions& options, const QElapsedTimer& started) {
    window.show();
    const qint64 remainingMs = std::max<qint64>(0, 1000LL * options.timeLimitSeconds - started.elapsed());
    if (!window.waitUntilIdle(static_cast<int>(remainingMs))) {
        QStringList busy;
        for (const FigureView* view : window.views())
            if (view->busy()) busy << view->viewName();
        window.cancelWork();
        std::fprintf(stderr, "attnlab: error: the screenshot's time limit of %d s was reached; cancelled the work of "
                             "the %s view; no file written (raise the limit with --time-limit SECONDS)\n",
                     options.timeLimitSeconds, qPrintable(busy.join(QStringLiteral(", "))));
        std::fflush(stderr);
        if (!window.waitUntilIdle(kCancelGraceMs)) std::_Exit(kTimedOutExit);
        return kTimedOutExit;
    }
    try {
        const std::string bytes = encodePng(options.screenshot, window.grab().toImage()).toStdString();
        writeWholeFiles({{"--screenshot", options.screenshot.toStdString(), bytes}}, screenshotInputs(options, window.labSettings()));
    } catch (const InputError& error) {
        std::fprintf(stderr, "attnlab: error: %s\n", error.what());
        return 2;
    }
    return 0;
}

} // namespace

int runGui(int argc, char** argv) {
    GuiOptions options;
    if (!parseGuiOptions(argc, argv, options) || !checkGuiOptions(options)) return 2;
    const bool headless = !options.screenshot.isEmpty();
    QElapsedTimer started;
    started.start();
    if (headless) startExitWatchdog(options.timeLimitSeconds);
    // Qt aborts when it cannot open a display; say so in one line instead.
    if (!headless && qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY")) {
        std::fprintf(stderr, "attnlab: error: no display to open the window on (set DISPLAY, or use --screenshot FILE "
                             "or a headless subcommand: attnlab --help)\n");
        return 2;
    }
    if (headless) {
        useOffscreenWithoutDisplay();
        quietQtMessages();
    }
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("attnlab"));
    QApplication::setApplicationName(QStringLiteral("attnlab"));
    QApplication::setWindowIcon(QIcon(QStringLiteral(":/assets/attnlab.svg")));
    // A screenshot follows --lang or the system locale, never the user's stored choice.
    installLanguage(startupLanguage(options.language, !headless));
    // A screenshot shows what a first run shows (or the session given), never the user's last state.
    MainWindow window(!headless);
    if (headless && options.session.isEmpty()) {
        window.applySettings(firstRunPreset().settings);
        window.selectView(firstRunPreset().view);
    }
    if (!options.session.isEmpty() && !window.openSession(options.session)) {
        if (headless) {
            std::fprintf(stderr, "attnlab: error: %s\n", qPrintable(window.lastError()));
            return 2;
        }
    }
    if (!options.view.isEmpty()) window.selectView(options.view);
    applyDisplayOptions(window, options);
    if (headless) return takeScreenshot(window, options, started);
    window.show();
    return app.exec();
}

} // namespace attnlab
