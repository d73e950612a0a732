// Figure layout: at the default sizes (the export default 900 × 600 and the view's size in the default
// 1280 × 820 window), in English and in Chinese, no two pieces of painted text overlap and every piece
// lies inside the figure. The texts and their rectangles come from a recording paint device, so the
// test reads what each figure really paints (title, axes, ticks, legends, notes, caption).
#include "text_recorder.h"

#include "views/i18n/language.h"
#include "views/shell/main_window.h"
#include "views/shell/model_presets.h"

#include "gui_test_main.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <sstream>

namespace attnlab {
namespace {

constexpr int kIdleTimeoutMs = 120000;
// Rectangles may touch: glyph boxes include the font's leading, so only a real overlap counts.
constexpr double kTolerance = 1.0;

std::string describe(const testing::PaintedText& text) {
    std::ostringstream out;
    out << '"' << text.text.toStdString() << "\" at (" << text.rect.x() << ", " << text.rect.y() << ") " << text.rect.width()
        << " x " << text.rect.height();
    return out.str();
}

// Every overlap and every piece outside `figure`, one line each.
std::string layoutProblems(const std::vector<testing::PaintedText>& texts, const QRectF& figure) {
    std::string problems;
    const QRectF inside = figure.adjusted(-kTolerance, -kTolerance, kTolerance, kTolerance);
    for (std::size_t a = 0; a < texts.size(); ++a) {
        if (!inside.contains(texts[a].rect)) problems += "  outside the figure: " + describe(texts[a]) + "\n";
        for (std::size_t b = a + 1; b < texts.size(); ++b) {
            const QRectF common = texts[a].rect.adjusted(kTolerance, kTolerance, -kTolerance, -kTolerance)
                                      .intersected(texts[b].rect.adjusted(kTolerance, kTolerance, -kTolerance, -kTolerance));
            if (!common.isEmpty()) problems += "  overlap: " + describe(texts[a]) + " and " + describe(texts[b]) + "\n";
        }
    }
    return problems;
}

struct Case {
    std::string name;
    LabSettings settings;
    QString view;
};

std::vector<Case> defaultCases() {
    std::vector<Case> cases;
    LabSettings defaults;
    defaults.timingMaxN = 256; // a short sweep; the layout is the same as for longer ones
    for (const QString& view : figureViewNames()) cases.push_back({"defaults", defaults, view});
    for (const auto& preset : figurePresets()) {
        LabSettings settings = preset.settings;
        settings.timingMaxN = 256;
        for (const QString& view : figureViewNames()) cases.push_back({preset.name.toStdString(), settings, view});
    }
    LabSettings layer = defaults;
    layer.timingMode = TimingMode::Layer;
    cases.push_back({"layer timing", layer, QStringLiteral("timing")});
    return cases;
}

class FigureLayout : public ::testing::TestWithParam<const char*> {
protected:
    void SetUp() override {
        QSettings().clear();
        ASSERT_TRUE(installLanguage(QString::fromLatin1(GetParam())));
    }
    void TearDown() override { installLanguage(QStringLiteral("en")); }
};

TEST_P(FigureLayout, NoTextOverlapsOrLeavesTheFigureAtTheDefaultSizes) {
    MainWindow window(false);
    window.resize(1280, 820);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    std::string problems;
    for (const Case& test : defaultCases()) {
        window.applySettings(test.settings);
        ASSERT_TRUE(window.selectView(test.view));
        ASSERT_TRUE(window.waitUntilIdle(kIdleTimeoutMs)) << test.name << " " << test.view.toStdString();
        const FigureView& view = *window.view(test.view);
        for (const QSize size : {QSize(900, 600), view.size()}) {
            const std::string found = layoutProblems(testing::paintedTexts(view, size), QRectF(QPointF(0, 0), QSizeF(size)));
            if (!found.empty())
                problems += test.view.toStdString() + " view, " + test.name + ", " + std::to_string(size.width()) + " x " +
                            std::to_string(size.height()) + ":\n" + found;
        }
    }
    EXPECT_TRUE(problems.empty()) << problems;
}

INSTANTIATE_TEST_SUITE_P(Languages, FigureLayout, ::testing::Values("en", "zh_CN"));

} // namespace
} // namespace attnlab

int main(int argc, char** argv) { return attnlab::guitest::runGuiTests(argc, argv, "test_figure_layout"); }
