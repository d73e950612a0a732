// Figure layout: at the default sizes (the export default 900 × 600 and the view's size in the default
// 1280 × 820 window), in English and in Chinese, no two pieces of painted text overlap and every piece
// lies inside the figure. The texts and their rectangles come from a recording paint device, so the
// test reads what each figure really paints (title, axes, ticks, legends, notes, caption).
#include "text_recorder.h"

#include "views/i18n/language.h"
#include "views/plot/plot_axes.h"
#include "views/shell/grid_presets.h"
#include "views/shell/main_window.h"
#include "views/shell/model_presets.h"


#include <gtest/gtest.h>

#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <QPainter>

#include <algorithm>
#include <cmath>
#include <functional>
#include <map>
#include <set>

namespace attnlab {
namespace {

constexpr int kIdleTimeoutMs = 120000;
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
    LabSettings bigbird = defaults; // block-kernel labels beside long bars, with another variant's under them
    bigbird.compareVariants = {"bigbird", "strided"};
    bigbird.variant = "bigbird";
    cases.push_back({"bigbird compared", bigbird, QStringLiteral("flops")});
    for (const char* flash : {"relu2", "mixed_chunk"}) { // the GAU layer's stack with its comparison under it
        LabSettings gau = defaults;
        gau.variant = flash;
        gau.heads = 12;
        cases.push_back({std::string(flash) + " GAU layer", gau, QStringLiteral("flops")});
    }
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
            const std::string found = testing::layoutProblems(testing::paintedTexts(view, size), QRectF(QPointF(0, 0), QSizeF(size)));
            if (!found.empty())
                problems += test.view.toStdString() + " view, " + test.name + ", " + std::to_string(size.width()) + " x " +
                            std::to_string(size.height()) + ":\n" + found;
        }
    }
    EXPECT_TRUE(problems.empty()) << problems;
}

// The accuracy view's titles, legends and axis labels are whole at the export's default size: none is
// cut to "…".
TEST_P(FigureLayout, AccuracyTextIsWholeAtTheExportAndWindowSizes) {
    MainWindow window(false);
    window.resize(1280, 820);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    ASSERT_TRUE(window.selectView(QStringLiteral("accuracy")));
    ASSERT_TRUE(window.waitUntilIdle(kIdleTimeoutMs));
    const FigureView& view = *window.view(QStringLiteral("accuracy"));
    for (const auto& text : testing::paintedTexts(view, QSize(900, 600)))
        EXPECT_FALSE(text.text.endsWith(QChar(0x2026))) << describe(text);
    // In the window's own tab the key goes under the panels: its names, its notes and the title (shrunk to
    // its line) whole and inside the figure.
    const QSize tab(641, 718);
    const auto texts = testing::paintedTexts(view, tab);
    for (const auto& text : texts)
        EXPECT_FALSE(text.text.endsWith(QChar(0x2026))) << describe(text);
    EXPECT_EQ(testing::layoutProblems(texts, QRectF(QPointF(0, 0), QSizeF(tab))), "");
}

INSTANTIATE_TEST_SUITE_P(Languages, FigureLayout, ::testing::Values("en", "zh_CN"));

// The x tick labels an axis keeps in a panel `width` pixels wide, left to right.
std::vector<testing::PaintedText> xTickLabels(const Axis& x, double width) {
    testing::TextRecordingDevice device(QSize(static_cast<int>(width), 220));
    QRectF plot;
    {
        QPainter painter(&device);
        const PlotAxes axes(painter, QRectF(0, 0, width, 220), x, Axis::fitted(QString(), AxisScale::Linear, {0.0, 1.0}));
        axes.drawAxes();
        plot = axes.plotRect();
    }
    std::vector<testing::PaintedText> labels;
    for (const auto& text : device.texts())
        if (text.rect.top() > plot.bottom() && text.rect.bottom() < plot.bottom() + 2 * text.rect.height() && text.text != x.label)
            labels.push_back(text);
    std::sort(labels.begin(), labels.end(), [](const auto& a, const auto& b) { return a.rect.left() < b.rect.left(); });
    return labels;
}

// Where tick labels must be thinned, every k-th is kept from the first: the kept labels are evenly
// spaced in tick index (equal steps in log2 n, log10 or value), never skipped one by one where they
// happened to collide. Log2 n from 16 to 65,536, a decade axis and a linear axis, from narrow to wide.
TEST(TickLabels, ThinnedLabelsAreEvenlySpacedAndApart) {
    const auto log2Axis = Axis::fitted(QStringLiteral("n"), AxisScale::Log2, {16.0, 65536.0});
    const auto decades = Axis::fitted(QStringLiteral("MACs"), AxisScale::Log10, {1.0, 1e12});
    const auto linear = Axis::fitted(QStringLiteral("value"), AxisScale::Linear, {0.0, 1000.0});
    const std::vector<std::pair<Axis, std::function<double(double)>>> axes = {
        {log2Axis, [](double v) { return std::log2(v); }},
        {decades, [](double v) { return std::log10(v); }},
        {linear, [](double v) { return v; }},
    };
    const auto parse = [](const QString& text) {
        static const std::map<QString, double> suffixes = {{QStringLiteral("k"), 1e3}, {QStringLiteral("M"), 1e6},
                                                           {QStringLiteral("G"), 1e9}, {QStringLiteral("T"), 1e12}};
        const auto suffix = suffixes.find(text.right(1));
        return suffix == suffixes.end() ? text.toDouble() : text.chopped(1).toDouble() * suffix->second;
    };
    for (const auto& [axis, position] : axes) {
        std::set<double> stepsSeen;
        for (double width = 90; width <= 900; width += 15) {
            SCOPED_TRACE(axis.label.toStdString() + " at width " + std::to_string(width));
            const auto labels = xTickLabels(axis, width);
            ASSERT_GE(labels.size(), 2u);
            std::vector<double> steps;
            for (std::size_t k = 1; k < labels.size(); ++k) {
                EXPECT_GT(labels[k].rect.left(), labels[k - 1].rect.right()) << "labels touch";
                steps.push_back(position(parse(labels[k].text.trimmed())) - position(parse(labels[k - 1].text.trimmed())));
            }
            for (const double step : steps) ASSERT_NEAR(step, steps.front(), 1e-6) << "uneven: " << labels.front().text.toStdString();
            EXPECT_NEAR(parse(labels.front().text), axis.min, 1e-9 * axis.max) << "the first tick keeps its label";
            stepsSeen.insert(std::round(steps.front() * 1e6) / 1e6);
        }
        EXPECT_GE(stepsSeen.size(), 2u) << axis.label.toStdString() << ": narrow panels thin the labels further";
    }
}

// The legend of a line panel sits where it hides no plotted point: in the accuracy view at the default
// sizes, no marker of any panel lies under a legend inside a plot, nor under the error-vs-scale
// panel's legend (below its plot: every method's curve crosses that panel).
TEST(LegendPlacement, NoLegendOfTheAccuracyViewHidesAPlottedPoint) {
    QSettings().clear();
    MainWindow window(false);
    window.resize(1280, 820);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    ASSERT_TRUE(window.selectView(QStringLiteral("accuracy")));
    ASSERT_TRUE(window.waitUntilIdle(kIdleTimeoutMs));
    const FigureView* view = window.view(QStringLiteral("accuracy"));
    for (const QSize size : {QSize(900, 600), view->size()}) {
        SCOPED_TRACE(std::to_string(size.width()) + " x " + std::to_string(size.height()));
        testing::TextRecordingDevice device(size);
        {
            QPainter painter(&device);
            view->paintFigure(painter, QRectF(QPointF(0, 0), QSizeF(size)));
        }
        const auto& engine = device.engine();
        ASSERT_GT(engine.ellipses().size(), 10u) << "the panels plot their points";
        const auto hidden = [&](const QRectF& rect) {
            std::string points;
            for (const QRectF& marker : engine.ellipses())
                if (rect.intersects(marker))
                    points += " (" + std::to_string(marker.center().x()) + ", " + std::to_string(marker.center().y()) + ")";
            return points;
        };
        int legends = 0;
        for (const auto& box : engine.rects())
            if (box.pen == QColor(0xBB, 0xBB, 0xBB)) { // the outline of a legend inside a plot
                ++legends;
                EXPECT_EQ(hidden(box.rect), "") << "legend at (" << box.rect.x() << ", " << box.rect.y() << ") hides points";
            }
        EXPECT_GE(legends, 3) << "one legend per method's panel";
        // The error-vs-scale panel names each method with its budget ("…, m = 256").
        int scaleEntries = 0;
        for (const auto& text : engine.texts())
            if (text.text.contains(QStringLiteral(" = ")) && text.text.contains(QStringLiteral(", "))) {
                ++scaleEntries;
                EXPECT_EQ(hidden(text.rect), "") << text.text.toStdString();
            }
        EXPECT_GE(scaleEntries, 3);
    }
}

std::vector<testing::PaintedText> paintedTextsAt(MainWindow& window, const LabSettings& settings, const QString& name, QSize size) {
    window.applySettings(settings);
    EXPECT_TRUE(window.selectView(name));
    EXPECT_TRUE(window.waitUntilIdle(kIdleTimeoutMs)) << name.toStdString();
    return testing::paintedTexts(*window.view(name), size);
}

// With a token grid, the pattern and receptive-field views' titles stay whole at a slide's widths (800
// and 900 pixels): nothing they paint is elided, for one panel on a 16 × 16 image and for every grid
// preset's compared panels (NATTEN's and the sliding tiles' long headings, the image figure's four heads'
// parameter lines and keys among them).
TEST(GridFigureText, TitlesAreWholeWithAGrid) {
    QSettings().clear();
    MainWindow window(false);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    LabSettings one;
    one.variant = "custom";
    one.params = {{"expr", "neighborhood(5)"}};
    one.grid = "16,16";
    one.n = 256;
    std::vector<std::pair<std::string, LabSettings>> cases = {{"one panel", one}};
    for (const auto& preset : gridFigurePresets()) cases.emplace_back(preset.id.toStdString(), preset.settings);
    ASSERT_GE(cases.size(), 6u);
    for (const auto& [name, settings] : cases)
        for (const QString& view : {QStringLiteral("pattern"), QStringLiteral("reach")})
            for (const QSize size : {QSize(800, 533), QSize(900, 600)})
                for (const auto& text : paintedTextsAt(window, settings, view, size))
                    EXPECT_FALSE(text.text.endsWith(QChar(0x2026)))
                        << name << " " << view.toStdString() << " at " << size.width() << ": " << describe(text);
}

// The roofline of a grid preset costs and times its decoding rows on the grid: every compared
// neighbourhood has a decode point, and no row says a grid primitive lacks its grid.
TEST(GridFigureText, RooflineDecodesGridPatternsOnTheirGrid) {
    QSettings().clear();
    MainWindow window(false);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    const auto presets = gridFigurePresets();
    const auto orders = std::find_if(presets.begin(), presets.end(), [](const auto& preset) { return preset.id == QLatin1String("neighbourhood-orders"); });
    ASSERT_NE(orders, presets.end());
    LabSettings settings = orders->settings;
    settings.timingMaxN = 256;
    for (const auto& text : paintedTextsAt(window, settings, QStringLiteral("roofline"), QSize(900, 600)))
        EXPECT_FALSE(text.text.contains(QStringLiteral("token grid"))) << describe(text);
    const QString csv = window.view(QStringLiteral("roofline"))->csvData();
    qsizetype decoded = 0;
    for (const QString& line : csv.split(QLatin1Char('\n')))
        if (line.startsWith(QStringLiteral("decode,")) && line.contains(QStringLiteral("neighborhood"))) ++decoded;
    EXPECT_GE(decoded, 1) << csv.toStdString();
}

} // namespace
} // namespace attnlab
