// Slide mode: every view drawn as a 1920 × 1080 slide at font scale 2 (the defaults and every preset),
// read back through the recording device and as pixels. No text is smaller than 1/45 of the height, no
// two pieces of text overlap, and a figure of several panels (compare mode, a pattern with its grid
// pictures) fills the 16:9 frame with no blank band across it.
#include "text_recorder.h"

#include "views/figures/figure_export.h"
#include "views/plot/figure_text.h"
#include "views/shell/main_window.h"
#include "views/shell/model_presets.h"
#include "views/shell/session_file.h"

#include "core/errors.h"

#include <gtest/gtest.h>

#include <QAction>
#include <QSettings>
#include <QTemporaryDir>
#include <QTest>

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab {
namespace {

constexpr int kIdleTimeoutMs = 120000;
// The widest band of blank rows a filled slide may keep, as a share of its height.
constexpr double kMaxBlankBand = 0.15;

struct Case {
    std::string name;
    LabSettings settings;
    QString view;
};

LabSettings onSlide(LabSettings settings) {
    settings.slideMode = true;
    settings.fontScale = kSlideFontScale;
    settings.timingMaxN = 256; // a short sweep; the layout is the same as for longer ones
    return settings;
}

std::vector<Case> slideCases() {
    std::vector<Case> cases;
    for (const QString& view : figureViewNames()) cases.push_back({"defaults", onSlide(LabSettings{}), view});
    for (const auto& preset : figurePresets()) cases.push_back({preset.id.toStdString(), onSlide(preset.settings), preset.view});
    return cases;
}

// A figure of several panels side by side, or one with grid pictures above its matrices.
bool multiPanel(const Case& test) {
    const bool panels = test.settings.compareVariants.size() > 1 || test.settings.splitComponents || !test.settings.grid.empty();
    return panels && (test.view == QStringLiteral("pattern") || test.view == QStringLiteral("reach"));
}

// The tallest run of rows of `image` in which every pixel is white.
int tallestBlankBand(const QImage& image) {
    int tallest = 0, run = 0;
    for (int y = 0; y < image.height(); ++y) {
        const QRgb* row = reinterpret_cast<const QRgb*>(image.constScanLine(y));
        const bool blank = std::all_of(row, row + image.width(), [](QRgb pixel) { return qRed(pixel) == 255 && qGreen(pixel) == 255 && qBlue(pixel) == 255; });
        run = blank ? run + 1 : 0;
        tallest = std::max(tallest, run);
    }
    return tallest;
}

class SlideMode : public ::testing::Test {
protected:
    void SetUp() override { QSettings().clear(); }
};

TEST_F(SlideMode, EveryViewIsReadableFillsTheFrameAndKeepsItsTextApart) {
    MainWindow window(false);
    window.resize(1280, 820);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    const QRectF slide(QPointF(0, 0), kSlideSize);
    const double smallest = kSlideSize.height() / 45;
    std::string problems;
    int multiPanelCases = 0;
    for (const Case& test : slideCases()) {
        const std::string where = test.view.toStdString() + " view, " + test.name;
        window.applySettings(test.settings);
        ASSERT_TRUE(window.selectView(test.view));
        ASSERT_TRUE(window.waitUntilIdle(kIdleTimeoutMs)) << where;
        const FigureView& view = *window.view(test.view);
        const auto texts = testing::paintedTexts(view, kSlideSize.toSize());
        ASSERT_FALSE(texts.empty()) << where;
        for (const auto& text : texts)
            if (text.pixels < smallest)
                problems += where + ": " + std::to_string(text.pixels) + " px text " + testing::describe(text) + "\n";
        if (const std::string found = testing::layoutProblems(texts, slide); !found.empty()) problems += where + ":\n" + found;
        if (!multiPanel(test)) continue;
        ++multiPanelCases;
        const QImage image = renderFigure(view, kSlideSize, 96).convertToFormat(QImage::Format_RGB32);
        ASSERT_EQ(image.size(), kSlideSize.toSize());
        const int band = tallestBlankBand(image);
        if (band > kMaxBlankBand * image.height())
            problems += where + ": a blank band " + std::to_string(band) + " px tall across the slide\n";
    }
    EXPECT_GE(multiPanelCases, 5) << "compare and grid presets are among the cases";
    EXPECT_TRUE(problems.empty()) << problems;
}

// Font scale 1 paints as before: the smallest text of the default pattern figure stays small print, and
// at scale 2 every piece of text is at least the body text, twice over.
TEST_F(SlideMode, FontScaleScalesTextAndRaisesSmallPrintAboveOne) {
    MainWindow window(false);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    ASSERT_TRUE(window.selectView(QStringLiteral("pattern")));
    LabSettings settings;
    settings.n = 32;
    window.applySettings(settings);
    ASSERT_TRUE(window.waitUntilIdle(kIdleTimeoutMs));
    const auto smallestOf = [](const std::vector<testing::PaintedText>& texts) {
        double smallest = 1e9;
        for (const auto& text : texts) smallest = std::min(smallest, text.pixels);
        return smallest;
    };
    const FigureView& view = *window.view(QStringLiteral("pattern"));
    const double plain = smallestOf(testing::paintedTexts(view, QSize(900, 600)));
    EXPECT_LT(plain, kBodyPoints * 96 / 72) << "small print at the default scale";
    settings.fontScale = 2;
    window.applySettings(settings);
    ASSERT_TRUE(window.waitUntilIdle(kIdleTimeoutMs));
    EXPECT_GE(smallestOf(testing::paintedTexts(view, QSize(1800, 1200))), 2 * kBodyPoints * 96 / 72);
    settings.fontScale = 1.5;
    window.applySettings(settings);
    EXPECT_GE(smallestOf(testing::paintedTexts(view, QSize(900, 600))), 1.5 * kBodyPoints * 96 / 72);
}

// View → Slide mode turns slide mode and its font scale on and off, exports 1920 × 1080, and a session
// keeps both.
TEST_F(SlideMode, TheViewMenuEntryAndSessionsKeepIt) {
    MainWindow window(false);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    auto* action = window.findChild<QAction*>(QStringLiteral("slideMode"));
    ASSERT_NE(action, nullptr);
    EXPECT_FALSE(action->isChecked());
    action->trigger();
    EXPECT_TRUE(window.labSettings().slideMode);
    EXPECT_EQ(window.labSettings().fontScale, kSlideFontScale);

    QTemporaryDir dir;
    ASSERT_TRUE(dir.isValid());
    const QString file = dir.filePath(QStringLiteral("slide.attnlab.json"));
    LabSettings saved = window.labSettings();
    saved.fontScale = 2.5;
    saveSession(file, Session{saved, QStringLiteral("flops")});
    const Session loaded = loadSession(file);
    EXPECT_TRUE(loaded.settings.slideMode);
    EXPECT_EQ(loaded.settings.fontScale, 2.5);

    action->trigger();
    EXPECT_FALSE(window.labSettings().slideMode);
    EXPECT_EQ(window.labSettings().fontScale, 1.0);
    ASSERT_TRUE(window.openSession(file));
    EXPECT_TRUE(action->isChecked()) << "the menu entry follows the session";
    EXPECT_EQ(window.labSettings().fontScale, 2.5);

    for (const double bad : {0.0, -1.0, 1e9}) {
        LabSettings wrong = saved;
        wrong.fontScale = bad;
        const QString badFile = dir.filePath(QStringLiteral("bad.attnlab.json"));
        saveSession(badFile, Session{wrong, QStringLiteral("flops")});
        EXPECT_THROW(loadSession(badFile), InputError) << bad;
    }
}

} // namespace
} // namespace attnlab
