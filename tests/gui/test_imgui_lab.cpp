// The Dear ImGui live lab needs an OpenGL 3 context. Run with no display or on the offscreen platform,
// this program re-executes itself under `xvfb-run -a` (Mesa's software GL) when xvfb-run is installed;
// otherwise the OpenGL tests are skipped with the reason printed. One test checks the offscreen
// platform in a child process: the lab reports OpenGL as unavailable and nothing crashes.
// With ATTNLAB_LAB_SNAPSHOTS=DIR set, the rendered frames are also written there as PNG for a look.

#include "views/plot/colormap.h"
#include "views/imgui/imgui_lab_widget.h"
#include "views/imgui/lab_fonts.h"

#include "core/param_schema.h"
#include "core/registry.h"

#include <gtest/gtest.h>
#include <imgui.h>

#include <QApplication>
#include <QDir>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QProcess>
#include <QSignalSpy>
#include <QStandardPaths>
#include <QTest>
#include <QWheelEvent>

#include <cerrno>
#include <cfloat>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <string>
#include <unistd.h>
#include <vector>

namespace attnlab {
namespace {

constexpr const char* kOffscreenProbe = "--offscreen-probe";
constexpr const char* kXvfbChildVariable = "ATTNLAB_LAB_TEST_UNDER_XVFB";

bool sameColor(QRgb a, QRgb b, int tolerance = 2) {
    return std::abs(qRed(a) - qRed(b)) <= tolerance && std::abs(qGreen(a) - qGreen(b)) <= tolerance &&
           std::abs(qBlue(a) - qBlue(b)) <= tolerance;
}

std::string colorText(QRgb c) { return QColor(c).name().toStdString(); }

LabSettings settingsFor(const std::string& variant, std::int64_t n, bool causal = false) {
    LabSettings settings;
    settings.variant = variant;
    settings.n = n;
    settings.causal = causal;
    return settings;
}

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

TEST_F(ImGuiLabWidgetTest, EachWidgetOwnsAnImGuiContext) {
    ASSERT_NE(lab->imguiContext(), nullptr);
    ImGuiLabWidget second;
    EXPECT_NE(second.imguiContext(), nullptr);
    EXPECT_NE(second.imguiContext(), lab->imguiContext());
}

TEST_F(ImGuiLabWidgetTest, DrawsWithDejaVuSansAtTheScreensDpiAndHasChineseGlyphs) {
    frame();
    ImGui::SetCurrentContext(lab->imguiContext());
    const ImGuiIO& io = ImGui::GetIO();
    ASSERT_FALSE(io.Fonts->Fonts.empty());
    const ImFont* font = io.Fonts->Fonts[0];
    ASSERT_GT(font->ConfigDataCount, 0);
    EXPECT_TRUE(std::string(font->ConfigData[0].Name).rfind("DejaVuSans.ttf", 0) == 0) << font->ConfigData[0].Name;
    // 10 pt at the widget's logical DPI, rasterised at its pixel ratio and drawn at 1 / ratio.
    const float ratio = static_cast<float>(lab->devicePixelRatioF());
    EXPECT_NEAR(font->FontSize, 10.0f * static_cast<float>(lab->logicalDpiY()) / 72.0f * ratio, 0.01f);
    EXPECT_NEAR(io.FontGlobalScale, 1.0f / ratio, 1e-6f);
    EXPECT_NE(font->FindGlyphNoFallback(static_cast<ImWchar>(U'√')), nullptr);
    if (!matchFontFile(":lang=zh-cn", U'\u4E2D').isEmpty()) {
        EXPECT_NE(font->FindGlyphNoFallback(static_cast<ImWchar>(U'\u6CE8')), nullptr) << "注 is missing from the merged CJK font";
    }
}

TEST(LabFonts, FontconfigFindsDejaVuSansAndRejectsAFontWithoutTheCharacter) {
    EXPECT_TRUE(matchFontFile("DejaVu Sans").endsWith(QStringLiteral("DejaVuSans.ttf"))) << matchFontFile("DejaVu Sans").toStdString();
    EXPECT_TRUE(matchFontFile("DejaVu Sans", U'\U0010FFFD').isEmpty());
}

TEST_F(ImGuiLabWidgetTest, CausalFullPatternFillsTheLowerTriangleOfTheCanvas) {
    showSettings(settingsFor("full", 64, true));
    const QImage image = frame();
    ASSERT_FALSE(lab->canvasRect().isEmpty());
    EXPECT_FALSE(lab->densityPending());
    const QRgb allowed = densityColor(1.0), empty = emptyCellColor();
    for (const auto& [i, j] : std::vector<std::pair<int, int>>{{0, 0}, {10, 3}, {63, 0}, {63, 63}, {40, 39}})
        EXPECT_TRUE(sameColor(pixelAt(image, cellCentre(i, j)), allowed))
            << "cell (" << i << ", " << j << ") is " << colorText(pixelAt(image, cellCentre(i, j)));
    for (const auto& [i, j] : std::vector<std::pair<int, int>>{{0, 1}, {3, 10}, {0, 63}, {62, 63}})
        EXPECT_TRUE(sameColor(pixelAt(image, cellCentre(i, j)), empty))
            << "cell (" << i << ", " << j << ") is " << colorText(pixelAt(image, cellCentre(i, j)));
}

TEST_F(ImGuiLabWidgetTest, QtMouseAndKeyEventsReachImGui) {
    ImGui::SetCurrentContext(lab->imguiContext());
    const ImGuiIO& io = ImGui::GetIO();
    QMouseEvent move(QEvent::MouseMove, QPointF(123.5, 77.0), lab->mapToGlobal(QPointF(123.5, 77.0)), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    send(move);
    EXPECT_FLOAT_EQ(io.MousePos.x, 123.5f);
    EXPECT_FLOAT_EQ(io.MousePos.y, 77.0f);

    QMouseEvent press(QEvent::MouseButtonPress, QPointF(200, 90), lab->mapToGlobal(QPointF(200, 90)), Qt::RightButton,
                      Qt::RightButton, Qt::ShiftModifier);
    send(press);
    EXPECT_TRUE(io.MouseDown[1]);
    EXPECT_FALSE(io.MouseDown[0]);
    EXPECT_TRUE(io.KeyShift);
    EXPECT_FLOAT_EQ(io.MousePos.x, 200.0f);
    QMouseEvent release(QEvent::MouseButtonRelease, QPointF(200, 90), lab->mapToGlobal(QPointF(200, 90)), Qt::RightButton,
                        Qt::NoButton, Qt::NoModifier);
    send(release);
    EXPECT_FALSE(io.MouseDown[1]);

    wheel(QPointF(300, 100), 2);
    EXPECT_FLOAT_EQ(io.MouseWheel, 2.0f);

    QKeyEvent tab(QEvent::KeyPress, Qt::Key_Tab, Qt::ControlModifier);
    send(tab);
    EXPECT_TRUE(io.KeysDown[io.KeyMap[ImGuiKey_Tab]]);
    EXPECT_TRUE(io.KeyCtrl);
    QKeyEvent tabUp(QEvent::KeyRelease, Qt::Key_Tab, Qt::NoModifier);
    send(tabUp);
    EXPECT_FALSE(io.KeysDown[io.KeyMap[ImGuiKey_Tab]]);

    QEvent leave(QEvent::Leave);
    send(leave);
    EXPECT_EQ(io.MousePos.x, -FLT_MAX);

    frame();
    EXPECT_FLOAT_EQ(io.DisplaySize.x, static_cast<float>(lab->width()));
    EXPECT_FLOAT_EQ(io.DisplaySize.y, static_cast<float>(lab->height()));
    EXPECT_FLOAT_EQ(io.DisplayFramebufferScale.x, static_cast<float>(lab->devicePixelRatioF()));
    EXPECT_GT(io.DeltaTime, 0.0f);
}

// Bidirectional strided with stride l: |i − j| ≤ l or |i − j| mod l = 0 (spec, variants.md).
bool stridedAllows(std::int64_t i, std::int64_t j, std::int64_t l) {
    const std::int64_t distance = i > j ? i - j : j - i;
    return distance <= l || distance % l == 0;
}

TEST_F(ImGuiLabWidgetTest, HoverNamesTheCellUnderTheMouseAtSeveralZooms) {
    showSettings(settingsFor("strided", 256)); // stride ceil(sqrt(256)) = 16
    struct Case {
        double zoom;
        QPointF origin;
        std::vector<std::pair<std::int64_t, std::int64_t>> cells;
    };
    const std::vector<Case> cases{{1.0, {0, 0}, {{0, 0}, {255, 0}, {17, 200}, {100, 116}}},
                                  {4.0, {20, 100}, {{100, 20}, {130, 50}, {163, 83}, {120, 40}}},
                                  {16.0, {33, 47}, {{47, 33}, {50, 40}, {62, 48}, {55, 35}}}};
    for (const Case& c : cases) {
        lab->setCanvasView(c.zoom, c.origin);
        frame();
        ASSERT_DOUBLE_EQ(lab->canvasViewport().zoom(), c.zoom);
        ASSERT_EQ(lab->canvasViewport().origin(), c.origin);
        for (const auto& [i, j] : c.cells) {
            moveMouse(cellCentre(i, j));
            const auto hover = lab->hoveredCell();
            ASSERT_TRUE(hover.has_value()) << "zoom " << c.zoom << " cell (" << i << ", " << j << ")";
            EXPECT_EQ(*hover, (CanvasHover{i, j, stridedAllows(i, j, 16)})) << "zoom " << c.zoom << " at (" << i << ", " << j
                                                                            << ") got (" << hover->row << ", " << hover->col << ")";
        }
    }
    moveMouse(lab->canvasRect().topLeft() - QPointF(5, 5));
    EXPECT_FALSE(lab->hoveredCell().has_value());
}

TEST_F(ImGuiLabWidgetTest, WheelZoomsAtTheCursorAndDragPans) {
    // ImGui floors the mouse position to whole pixels, so the test works in whole pixels too.
    showSettings(settingsFor("chunk", 512));
    const QPoint at = cellCentre(300, 120).toPoint();
    moveMouse(at);
    ASSERT_TRUE(lab->hoveredCell().has_value());
    const CanvasHover before = *lab->hoveredCell();
    EXPECT_LE(std::abs(before.row - 300), 1);
    EXPECT_LE(std::abs(before.col - 120), 1);
    wheel(at, 3);
    frame();
    EXPECT_NEAR(lab->canvasViewport().zoom(), 1.25 * 1.25 * 1.25, 1e-9);
    moveMouse(at);
    ASSERT_TRUE(lab->hoveredCell().has_value());
    EXPECT_EQ(*lab->hoveredCell(), before) << "the cell under the cursor stays under it";

    const double cell = lab->canvasViewport().cellSize();
    const QPointF origin = lab->canvasViewport().origin();
    const QPoint drag(40, 0);
    pressMouse(at);
    moveMouse(at + drag, Qt::LeftButton);
    releaseMouse(at + drag);
    EXPECT_NEAR(lab->canvasViewport().origin().x(), origin.x() - drag.x() / cell, 1e-6);
    EXPECT_NEAR(lab->canvasViewport().origin().y(), origin.y(), 1e-6);
    moveMouse(at + drag);
    ASSERT_TRUE(lab->hoveredCell().has_value());
    EXPECT_EQ(*lab->hoveredCell(), before) << "a drag carries the cell along with the cursor";
}

TEST_F(ImGuiLabWidgetTest, SetSettingsShowsValuesWithoutSignallingBack) {
    QSignalSpy edited(lab.get(), &ImGuiLabWidget::settingsEdited);
    LabSettings settings = settingsFor("strided", 1024, true);
    settings.d = 32;
    settings.heads = 4;
    settings.head = 2;
    showSettings(settings);
    EXPECT_EQ(lab->controlValue("variant"), "strided");
    EXPECT_EQ(lab->controlValue("n"), "1024");
    EXPECT_EQ(lab->controlValue("d"), "32");
    EXPECT_EQ(lab->controlValue("h"), "4");
    EXPECT_EQ(lab->controlValue("head"), "2");
    EXPECT_EQ(lab->controlValue("causal"), "true");
    EXPECT_EQ(lab->controlValue("stride"), "32"); // default ceil(sqrt(1024))
    settings.params["stride"] = "7";
    showSettings(settings);
    EXPECT_EQ(lab->controlValue("stride"), "7");
    frame();
    EXPECT_EQ(edited.count(), 0);
    EXPECT_EQ(lab->settings(), settings);
}

TEST_F(ImGuiLabWidgetTest, EveryParameterOfEveryVariantHasAControlShowingItsValue) {
    for (const VariantInfo& variant : allVariants()) {
        LabSettings settings = settingsFor(variant.id, 300, variant.causalSupport == CausalSupport::CausalOnly);
        showSettings(settings);
        const ProblemShape shape{1, 300, settings.d, settings.d, settings.causal};
        const ParamSet defaults = resolveParams(variant.id, variant.params, {}, shape.context());
        for (const ParamSpec& spec : variant.params) {
            const QString key = QString::fromStdString(spec.key);
            EXPECT_FALSE(lab->controlRect(key).isEmpty()) << variant.id << " has no control for " << spec.key;
            EXPECT_EQ(lab->controlValue(key).toStdString(), paramValueText(defaults.values().at(spec.key))) << variant.id << "." << spec.key;
        }
        EXPECT_TRUE(lab->errorMessage().isEmpty()) << variant.id << ": " << lab->errorMessage().toStdString();
    }
}

TEST_F(ImGuiLabWidgetTest, ClickingCausalEmitsTheEditedSettings) {
    showSettings(settingsFor("full", 64));
    QSignalSpy edited(lab.get(), &ImGuiLabWidget::settingsEdited);
    click(lab->controlRect("causal").center());
    ASSERT_EQ(edited.count(), 1);
    const auto emitted = edited.at(0).at(0).value<LabSettings>();
    EXPECT_TRUE(emitted.causal);
    EXPECT_EQ(emitted.variant, "full");
    EXPECT_TRUE(lab->settings().causal);
    frame();
    EXPECT_EQ(edited.count(), 1);
}

TEST_F(ImGuiLabWidgetTest, DraggingAParameterSliderToItsLeftEndSetsItsMinimum) {
    showSettings(settingsFor("strided", 256));
    QSignalSpy edited(lab.get(), &ImGuiLabWidget::settingsEdited);
    const QRectF slider = lab->controlRect("stride");
    ASSERT_FALSE(slider.isEmpty());
    const QPointF start = slider.center();
    moveMouse(start);
    pressMouse(start);
    moveMouse(QPointF(slider.left() - 40, start.y()), Qt::LeftButton);
    releaseMouse(QPointF(slider.left() - 40, start.y()));
    ASSERT_GE(edited.count(), 1);
    EXPECT_EQ(lab->settings().params.at("stride"), "1");
    EXPECT_EQ(edited.last().at(0).value<LabSettings>().params.at("stride"), "1");
    frame();
    EXPECT_EQ(lab->controlValue("stride"), "1");
}

TEST_F(ImGuiLabWidgetTest, TypedIndexListIsAppliedOnEnter) {
    showSettings(settingsFor("longformer", 128));
    QSignalSpy edited(lab.get(), &ImGuiLabWidget::settingsEdited);
    click(lab->controlRect("globals").center());
    for (const QString& character : {QStringLiteral("0"), QStringLiteral(","), QStringLiteral("5")})
        pressKey(character == "," ? Qt::Key_Comma : Qt::Key_0 + character.toInt(), character);
    EXPECT_EQ(edited.count(), 0);
    pressKey(Qt::Key_Return);
    ASSERT_EQ(edited.count(), 1);
    EXPECT_EQ(lab->settings().params.at("globals"), "0,5");
    frame();
    frame();
    moveMouse(cellCentre(100, 5));
    ASSERT_TRUE(lab->hoveredCell().has_value());
    EXPECT_TRUE(lab->hoveredCell()->allowed); // column 5 is global now
}

TEST_F(ImGuiLabWidgetTest, InvalidCombinationShowsTheErrorInsteadOfAPattern) {
    LabSettings settings = settingsFor("fixed", 256);
    settings.params = {{"block", "4"}, {"summary", "9"}};
    showSettings(settings);
    EXPECT_NE(lab->errorMessage().indexOf("summary"), -1) << lab->errorMessage().toStdString();
    EXPECT_EQ(lab->errorMessage().count('\n'), 0);
    moveMouse(lab->canvasRect().center());
    EXPECT_FALSE(lab->hoveredCell().has_value());
    settings.params["summary"] = "2";
    showSettings(settings);
    EXPECT_TRUE(lab->errorMessage().isEmpty()) << lab->errorMessage().toStdString();
}

TEST_F(ImGuiLabWidgetTest, LargePatternIsComputedInTheBackgroundAndTheLastImageStays) {
    showSettings(settingsFor("full", 65536, true));
    QTRY_VERIFY_WITH_TIMEOUT(!lab->densityPending(), 60000);
    QImage image = frame();
    const QRgb empty = emptyCellColor();
    EXPECT_FALSE(sameColor(pixelAt(image, cellCentre(60000, 1000)), empty));
    EXPECT_TRUE(sameColor(pixelAt(image, cellCentre(1000, 60000)), empty));

    lab->setSettings(settingsFor("full", 65536, false));
    image = frame();
    EXPECT_TRUE(lab->densityPending());
    EXPECT_FALSE(sameColor(pixelAt(image, cellCentre(60000, 1000)), empty)) << "the last image is kept while computing";
    QTRY_VERIFY_WITH_TIMEOUT(!lab->densityPending(), 60000);
    image = frame();
    EXPECT_FALSE(sameColor(pixelAt(image, cellCentre(1000, 60000)), empty));
}

TEST(ImGuiLabWithoutOpenGl, OffscreenPlatformReportsTheLabUnavailable) {
    QProcess probe;
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    environment.insert("QT_QPA_PLATFORM", "offscreen");
    environment.insert(kXvfbChildVariable, "1");
    probe.setProcessEnvironment(environment);
    probe.start(QCoreApplication::applicationFilePath(), {kOffscreenProbe});
    ASSERT_TRUE(probe.waitForFinished(60000));
    const QString output = QString::fromUtf8(probe.readAllStandardOutput());
    EXPECT_EQ(probe.exitCode(), 0) << output.toStdString() << probe.readAllStandardError().toStdString();
    EXPECT_TRUE(output.contains("openGlAvailable=false")) << output.toStdString();
}

// Child process of the test above: the offscreen platform has no usable OpenGL for the lab. (The main
// window then shows a note instead of the lab; tests/gui/test_main_window.cpp checks that.)
int runOffscreenProbe(int argc, char** argv) {
    QApplication app(argc, argv);
    const bool available = ImGuiLabWidget::openGlAvailable();
    std::printf("openGlAvailable=%s\n", available ? "true" : "false");
    return available ? 1 : 0;
}

// Replaces this process by `xvfb-run -a <this program> <args>` on the xcb platform when there is no
// display to open an OpenGL context on. Returns when that is not needed or not possible.
void reexecUnderXvfbWhenNeeded(int argc, char** argv) {
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

} // namespace
} // namespace attnlab

int main(int argc, char** argv) {
    if (argc >= 2 && std::strcmp(argv[1], attnlab::kOffscreenProbe) == 0) return attnlab::runOffscreenProbe(argc, argv);
    attnlab::reexecUnderXvfbWhenNeeded(argc, argv);
    QApplication app(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
