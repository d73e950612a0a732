#include "app/gui_main.h"

#include "views/main_window.h"

#include <QApplication>
#include <QImage>
#include <QSaveFile>

#include <cstdio>
#include <cstring>

namespace attnlab {

namespace {

constexpr int kScreenshotTimeoutMs = 120000;

struct GuiOptions {
    QString screenshot; // empty: interactive
    QString view;
};

// Parses --screenshot FILE and --view NAME; Qt's own options (-platform …) are left to QApplication.
bool parseGuiOptions(int argc, char** argv, GuiOptions& options) {
    for (int a = 1; a < argc; ++a) {
        const bool screenshot = std::strcmp(argv[a], "--screenshot") == 0;
        const bool view = std::strcmp(argv[a], "--view") == 0;
        if (!screenshot && !view) continue;
        if (a + 1 >= argc) {
            std::fprintf(stderr, "attnlab: error: %s needs a value\n", argv[a]);
            return false;
        }
        (screenshot ? options.screenshot : options.view) = QString::fromLocal8Bit(argv[++a]);
    }
    return true;
}

int takeScreenshot(MainWindow& window, const GuiOptions& options) {
    if (!options.view.isEmpty() && !window.selectView(options.view)) {
        std::fprintf(stderr, "attnlab: error: unknown view '%s' (pattern, reach, timing, flops, accuracy, lab)\n",
                     qPrintable(options.view));
        return 2;
    }
    window.show();
    if (!window.waitUntilIdle(kScreenshotTimeoutMs))
        std::fprintf(stderr, "attnlab: warning: views still busy after %d s; saving what is drawn\n", kScreenshotTimeoutMs / 1000);
    const QImage image = window.grab().toImage();
    QSaveFile file(options.screenshot);
    if (!file.open(QIODevice::WriteOnly) || !image.save(&file, "PNG") || !file.commit()) {
        std::fprintf(stderr, "attnlab: error: cannot write '%s': %s\n", qPrintable(options.screenshot), qPrintable(file.errorString()));
        return 1;
    }
    return 0;
}

} // namespace

void useOffscreenWithoutDisplay() {
    if (qEnvironmentVariableIsEmpty("QT_QPA_PLATFORM") && qEnvironmentVariableIsEmpty("DISPLAY") &&
        qEnvironmentVariableIsEmpty("WAYLAND_DISPLAY"))
        qputenv("QT_QPA_PLATFORM", "offscreen");
}

int runGui(int argc, char** argv) {
    GuiOptions options;
    if (!parseGuiOptions(argc, argv, options)) return 2;
    if (!options.screenshot.isEmpty()) useOffscreenWithoutDisplay();
    QApplication app(argc, argv);
    QApplication::setOrganizationName(QStringLiteral("attnlab"));
    QApplication::setApplicationName(QStringLiteral("attnlab"));
    MainWindow window;
    if (!options.screenshot.isEmpty()) return takeScreenshot(window, options);
    if (!options.view.isEmpty()) window.selectView(options.view);
    window.show();
    return app.exec();
}

} // namespace attnlab
