#pragma once

// What the Dear ImGui lab's test programs share. The lab needs an OpenGL 3 context: run with no display or
// on the offscreen platform, a program re-executes itself under `xvfb-run -a` (Mesa's software GL) when
// xvfb-run is installed; otherwise the OpenGL tests are skipped with the reason printed. With
// ATTNLAB_LAB_SNAPSHOTS=DIR set, the rendered frames are also written there as PNG for a look.

#include "gui/gui_test_main.h"
#include "gui/pixel_colors.h"
#include "views/imgui/imgui_lab_widget.h"
#include "views/plot/colormap.h"

#include <gtest/gtest.h>
#include <imgui.h>

#include <QApplication>
#include <QDir>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QStandardPaths>
#include <QTest>
#include <QWheelEvent>

#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

namespace attnlab::labtest {

using guitest::colorText;
using guitest::sameColor;

// Set in the environment of a program re-executed under xvfb-run (and of child processes that must not
// re-execute).
constexpr const char* kXvfbChildVariable = "ATTNLAB_LAB_TEST_UNDER_XVFB";

inline LabSettings settingsFor(const std::string& variant, std::int64_t n, bool causal = false) {
    LabSettings settings;
    settings.variant = variant;
    settings.n = n;
    settings.causal = causal;
    return settings;
}

// A shown lab widget driven with Qt events as a user does, one ImGui frame at a time.
class ImGuiLabWidgetTest : public ::testing::Test {
protected:
    void SetUp() override {
        if (!ImGuiLabWidget::openGlAvailable())
            GTEST_SKIP() << "no OpenGL 3 context on the '" << QGuiApplication::platformName().toStdString()
                         << "' platform (install xvfb and Mesa, or run on a display with OpenGL)";
        lab = std::make_unique<ImGuiLabWidget>();
        lab->resize(1000, 720);
        lab->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(lab.get()));
        frame();
    }

    // One ImGui frame (paintGL), returned as the framebuffer image in device pixels.
    QImage frame() {
        QImage image = lab->grabFramebuffer();
        if (const QByteArray dir = qgetenv("ATTNLAB_LAB_SNAPSHOTS"); !dir.isEmpty()) {
            const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
            image.save(QDir(QString::fromLocal8Bit(dir)).filePath(QStringLiteral("%1_%2.png").arg(test->name()).arg(++m_frames)));
        }
        return image;
    }

    void send(QEvent& event) { QApplication::sendEvent(lab.get(), &event); }

    void moveMouse(QPointF position, Qt::MouseButtons buttons = Qt::NoButton) {
        QMouseEvent event(QEvent::MouseMove, position, lab->mapToGlobal(position), Qt::NoButton, buttons, Qt::NoModifier);
        send(event);
        frame();
    }

    void pressMouse(QPointF position, Qt::MouseButton button = Qt::LeftButton) {
        QMouseEvent event(QEvent::MouseButtonPress, position, lab->mapToGlobal(position), button, button, Qt::NoModifier);
        send(event);
        frame();
    }

    void releaseMouse(QPointF position, Qt::MouseButton button = Qt::LeftButton) {
        QMouseEvent event(QEvent::MouseButtonRelease, position, lab->mapToGlobal(position), button, Qt::NoButton, Qt::NoModifier);
        send(event);
        frame();
    }

    void click(QPointF position) {
        moveMouse(position);
        pressMouse(position);
        releaseMouse(position);
    }

    void wheel(QPointF position, int notches) {
        QWheelEvent event(position, lab->mapToGlobal(position), QPoint(), QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        send(event);
    }

    void pressKey(int key, const QString& text = {}) {
        QKeyEvent press(QEvent::KeyPress, key, Qt::NoModifier, text);
        send(press);
        frame();
        QKeyEvent release(QEvent::KeyRelease, key, Qt::NoModifier, text);
        send(release);
        frame();
    }

    // The centre of cell (i, j) on the canvas, from the definition of the view: `zoom` shows n / zoom
    // cells across the canvas's side, starting at the fractional cell `origin` (x = column, y = row).
    QPointF cellCentre(std::int64_t i, std::int64_t j) const {
        const PlaneViewport& view = lab->canvasViewport();
        const double cell = lab->canvasRect().width() * view.zoom() / static_cast<double>(view.n());
        return lab->canvasRect().topLeft() + QPointF((static_cast<double>(j) - view.origin().x() + 0.5) * cell,
                                                     (static_cast<double>(i) - view.origin().y() + 0.5) * cell);
    }

    QRgb pixelAt(const QImage& image, QPointF logical) const {
        const QPointF device = logical * lab->devicePixelRatioF();
        return image.pixel(static_cast<int>(device.x()), static_cast<int>(device.y()));
    }

    void showSettings(const LabSettings& settings) {
        lab->setSettings(settings);
        frame();
        frame(); // the canvas takes the new pattern's n in the frame that builds it
    }

    std::unique_ptr<ImGuiLabWidget> lab;

private:
    int m_frames = 0;
};

// Replaces this process by `xvfb-run -a <this program> <args>` on the xcb platform when there is no
// display to open an OpenGL context on. Returns when that is not needed or not possible.
inline void reexecUnderXvfbWhenNeeded(int argc, char** argv) {
    if (std::getenv(kXvfbChildVariable)) return;
    const QByteArray platform = qgetenv("QT_QPA_PLATFORM");
    const bool hasDisplay = !qgetenv("DISPLAY").isEmpty() || !qgetenv("WAYLAND_DISPLAY").isEmpty();
    if (hasDisplay && platform != "offscreen" && platform != "minimal") return;
    const QString xvfbRun = QStandardPaths::findExecutable("xvfb-run");
    if (xvfbRun.isEmpty()) {
        std::printf("xvfb-run not found: the OpenGL tests of the lab will be skipped\n");
        return;
    }
    setenv(kXvfbChildVariable, "1", 1);
    setenv("QT_QPA_PLATFORM", "xcb", 1);
    const QByteArray program = xvfbRun.toLocal8Bit();
    std::vector<char*> arguments{const_cast<char*>("xvfb-run"), const_cast<char*>("-a"), const_cast<char*>("-s"),
                                 const_cast<char*>("-screen 0 1280x1024x24")};
    for (int i = 0; i < argc; ++i) arguments.push_back(argv[i]);
    arguments.push_back(nullptr);
    std::fflush(stdout);
    execv(program.constData(), arguments.data());
    std::printf("could not start xvfb-run (%s): the OpenGL tests of the lab will be skipped\n", std::strerror(errno));
    unsetenv(kXvfbChildVariable);
    if (platform.isEmpty())
        unsetenv("QT_QPA_PLATFORM");
    else
        setenv("QT_QPA_PLATFORM", platform.constData(), 1);
}

// The argument that makes the lab's test program the child process of ImGuiLabWithoutOpenGl's test.
constexpr const char* kOffscreenProbe = "--offscreen-probe";

} // namespace attnlab::labtest
