// The ImGui lab's drawing: one ImGui context per widget, DejaVu Sans at the screen's DPI with Chinese
// glyphs merged, the canvas's cells in the pattern's colours, a large pattern computed in the background
// with the last image kept meanwhile, and (in a child process, imgui_lab_main.cpp) the offscreen platform reporting OpenGL as
// unavailable without a crash.

#include "gui/imgui_lab_fixture.h"

#include "views/imgui/lab_fonts.h"

#include <QProcess>

namespace attnlab::labtest {
namespace {

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

} // namespace
} // namespace attnlab::labtest
