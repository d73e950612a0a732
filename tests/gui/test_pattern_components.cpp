// The pattern view by component: every allowed cell in the colour of the first term that contains it
// (checked against the core's labels cell by cell), the legend's terms, the factorised heads (one panel
// per component holding every cell its term allows), and the hover naming a cell's component.
#include "pattern_view_fixture.h"

#include "views/shell/model_presets.h"

#include "core/patterns/pattern_components.h"

#include <QFileInfo>
#include <QTemporaryDir>

#include <algorithm>
#include <cstdlib>
#include <map>
#include <set>

namespace attnlab::patternviewtest {
namespace {

LabSettings byComponent(LabSettings settings, bool split = false) {
    settings.showComponents = true;
    settings.splitComponents = split;
    return settings;
}

// The labels of every cell straight from the core (0 = not allowed).
std::vector<std::uint8_t> referenceLabels(const LabSettings& settings) {
    const VariantInfo& variant = requireVariant(settings.variant);
    const ProblemShape shape = problemShape(settings, variant);
    return denseComponents(*buildComponents(variant, shape, prepareParams(variant, shape, settings.params)));
}

// Every cell of panel `panel` has its expected colour: `colourOf(label)` where allowed, the background elsewhere.
template <class ColourOf>
void expectCellColours(const QImage& image, const QRectF& area, std::int64_t n, const std::vector<std::uint8_t>& labels,
                       ColourOf colourOf) {
    ASSERT_GT(area.width(), 4.0 * static_cast<double>(n)) << "cells too small to sample";
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const std::uint8_t label = labels[static_cast<std::size_t>(i * n + j)];
            const QRgb expected = label == 0 ? emptyCellColor() : colourOf(label);
            const QRgb actual = pixelAt(image, cellCentre(area, n, 1.0, QPointF(0, 0), i, j));
            ASSERT_TRUE(sameColor(actual, expected)) << "cell (" << i << ", " << j << ") of component " << int(label) << " is "
                                                     << colorText(actual) << ", expected " << colorText(expected);
        }
}

TEST_F(PatternViewTest, EachCellHasTheColourOfTheFirstTermContainingIt) {
    // The band and the sink overlap in the first columns, the global row crosses both: the first term wins.
    const LabSettings settings =
        byComponent(settingsFor("custom", 48, true, {{"expr", "band(3) | sink(4) | global(30) | stride(16)"}}));
    show(settings);
    const std::vector<std::uint8_t> labels = referenceLabels(settings);
    ASSERT_EQ(labels[5 * 48 + 4], 1) << "(5, 4) is in the band and the sinks: the band comes first";
    ASSERT_EQ(labels[10 * 48 + 2], 2);
    ASSERT_EQ(labels[30 * 48 + 12], 3);
    ASSERT_EQ(labels[40 * 48 + 8], 4);
    expectCellColours(paint(), plot(), 48, labels, [](std::uint8_t label) { return componentColor(label); });
}

TEST_F(PatternViewTest, BigBirdIsColouredByWindowGlobalsAndRandomKeys) {
    const LabSettings settings = byComponent(settingsFor("bigbird", 40, false, {{"window", "4"}, {"globals", "2"}, {"random", "3"}}));
    show(settings);
    const std::vector<std::uint8_t> labels = referenceLabels(settings);
    for (std::uint8_t k : {1, 2, 3}) EXPECT_NE(std::count(labels.begin(), labels.end(), k), 0) << "no cell of component " << int(k);
    expectCellColours(paint(), plot(), 40, labels, [](std::uint8_t label) { return componentColor(label); });
    // The three colours differ, and the hover names the component of the cell under the mouse.
    EXPECT_NE(componentColor(1), componentColor(2));
    EXPECT_NE(componentColor(2), componentColor(3));
    EXPECT_TRUE(hoverMessage(cellCentre(plot(), 40, 1.0, QPointF(0, 0), 20, 20)).contains(QStringLiteral("sliding window (w = 4)")));
    EXPECT_TRUE(hoverMessage(cellCentre(plot(), 40, 1.0, QPointF(0, 0), 20, 0)).contains(QStringLiteral("global (g = 2)")));
}

TEST_F(PatternViewTest, LegendNamesEveryTermAndTheAddedDiagonal) {
    // prefix(4) leaves the rows from 4 on empty: their diagonal is added.
    show(byComponent(settingsFor("custom", 16, false, {{"expr", "band(1) & prefix(4) | rows(2)"}})));
    const QImage image = paint();
    // The legend's swatches lie right of the plot, at its foot, one line each: components 1, 2 and the
    // added diagonal.
    const QRect legendArea = QRectF(plot().right() + 16, plot().bottom() - 50, 10, 50).toRect();
    std::set<QRgb> swatches;
    for (int y = legendArea.top(); y < legendArea.bottom(); ++y)
        for (int x = legendArea.left() + 2; x < legendArea.right() - 1; ++x) {
            const QRgb pixel = image.pixel(x, y) & 0xffffff;
            for (int k : {1, 2, 255})
                if (sameColor(pixel, componentColor(k))) swatches.insert(componentColor(k));
        }
    EXPECT_EQ(swatches.size(), 3u);
}

TEST_F(PatternViewTest, FactorisedHeadsShowOneComponentPerPanel) {
    // The Sparse Transformer's factorisation: A(1) the band, A(2) the strided columns.
    const LabSettings settings = byComponent(settingsFor("strided", 32, true, {{"stride", "4"}}), true);
    view->resize(1100, 650);
    show(settings);
    ASSERT_EQ(view->panelCount(), 2);
    const QImage image = paint();
    // Each head holds everything its term allows (causal, l = 4): A(1) = {i − 4 ≤ j ≤ i}, A(2) =
    // {j ≤ i, (i − j) mod 4 = 0}, so the strided cells inside the band are in both panels.
    for (int panel = 0; panel < 2; ++panel) {
        SCOPED_TRACE(panel);
        const auto component = static_cast<std::uint8_t>(panel + 1);
        std::vector<std::uint8_t> own(32 * 32, 0);
        for (std::int64_t i = 0; i < 32; ++i)
            for (std::int64_t j = 0; j <= i; ++j)
                if (panel == 0 ? i - j <= 4 : (i - j) % 4 == 0) own[static_cast<std::size_t>(i * 32 + j)] = component;
        expectCellColours(image, plot(panel), 32, own, [](std::uint8_t label) { return componentColor(label); });
    }
}

TEST_F(PatternViewTest, BigBirdsRandomHeadHoldsOnlyTheDrawnKeys) {
    const LabSettings settings =
        byComponent(settingsFor("bigbird", 40, false, {{"window", "4"}, {"globals", "2"}, {"random", "3"}}), true);
    show(settings);
    ASSERT_EQ(view->panelCount(), 3);
    // The random head: the pattern's cells outside the window |i − j| ≤ 2 and the globals 0, 1 (rows
    // and columns), three per row but for the global rows, which have none left to draw.
    const VariantInfo& bigbird = requireVariant("bigbird");
    const ProblemShape shape = problemShape(settings, bigbird);
    const auto pattern = buildPattern(bigbird, shape, prepareParams(bigbird, shape, settings.params));
    std::vector<std::uint8_t> random(40 * 40, 0);
    for (std::int64_t i = 2; i < 40; ++i) {
        int drawn = 0;
        for (std::int64_t j = 0; j < 40; ++j)
            if (pattern->allowed(i, j) && std::llabs(i - j) > 2 && j >= 2) {
                random[static_cast<std::size_t>(i * 40 + j)] = 3;
                ++drawn;
            }
        EXPECT_EQ(drawn, 3) << "row " << i;
    }
    expectCellColours(paint(), plot(2), 40, random, [](std::uint8_t label) { return componentColor(label); });
}

TEST_F(PatternViewTest, ComponentsExportToEveryFormat) {
    show(byComponent(settingsFor("custom", 64, true, {{"expr", "band(4) | sink(2)"}})));
    QTemporaryDir dir;
    for (const QString& name : {QStringLiteral("c.png"), QStringLiteral("c.svg"), QStringLiteral("c.pdf")}) {
        const QString file = dir.filePath(name);
        exportFigure(*view, file, ExportOptions{});
        EXPECT_GT(QFileInfo(file).size(), 1000) << name.toStdString();
    }
    const QImage png(dir.filePath(QStringLiteral("c.png")));
    ASSERT_FALSE(png.isNull());
    int blue = 0, orange = 0;
    for (int y = 0; y < png.height(); y += 2)
        for (int x = 0; x < png.width(); x += 2) {
            blue += sameColor(png.pixel(x, y), componentColor(1), 6);
            orange += sameColor(png.pixel(x, y), componentColor(2), 6);
        }
    EXPECT_GT(blue, 100);
    EXPECT_GT(orange, 100);
}

// The classic presets colour their panels by component, as the papers draw them: each panel's legend
// names its variant's parts (Longformer and BigBird in their papers' terms with the parameters that
// shape them; Sparse Transformer: the band A(1) and the strided columns A(2); Transformer-XL: own
// segment and memory) in the palette's colours, with the terms the preset's parameters give.
TEST_F(PatternViewTest, ClassicPresetsColourTheirPanelsByComponent) {
    using Names = std::vector<std::vector<QString>>;
    // Longformer's fig. 2 and BigBird's fig. 1: a window of radius ⌊w/2⌋ = 0 is the diagonal alone, which
    // the papers' random and global panels do not call a window.
    const std::map<std::string, Names> expected = {
        {"longformer",
         {{"all"}, {"sliding window (w = 8)"}, {"dilated sliding window (w = 8, δ = 2)"}, {"sliding window (w = 8)", "global (0,1,32)"}}},
        {"sparse-transformer", {{"all & causal"}, {"band", "strided columns"}, {"own block", "summary columns"}}},
        {"bigbird",
         {{"self", "random (r = 3)"},
          {"sliding window (w = 6)"},
          {"self", "global (g = 2)"},
          {"sliding window (w = 6)", "global (g = 2)", "random (r = 3)"}}},
        {"transformer-xl", {{"own segment", "memory"}}},
    };
    const auto legendTexts = [this](int panel) {
        std::vector<QString> names, terms;
        for (const ComponentLegendEntry& entry : view->componentLegend(panel)) {
            EXPECT_EQ(entry.colour, componentColor(entry.component)) << entry.text.toStdString();
            const QStringList parts = entry.text.split(QStringLiteral(" — "));
            names.push_back(parts.front());
            terms.push_back(parts.back());
        }
        return std::pair{names, terms};
    };
    view->resize(1400, 700);
    for (const auto& [id, panels] : expected) {
        SCOPED_TRACE(id);
        const FigurePreset* preset = findFigurePreset(id);
        ASSERT_NE(preset, nullptr);
        EXPECT_TRUE(preset->settings.showComponents);
        show(preset->settings);
        ASSERT_EQ(view->panelCount(), static_cast<int>(panels.size()));
        for (int panel = 0; panel < view->panelCount(); ++panel) EXPECT_EQ(legendTexts(panel).first, panels[panel]) << "panel " << panel;
        if (id == "sparse-transformer") {
            EXPECT_EQ(legendTexts(1).second, (std::vector<QString>{"band(8) & causal", "stride(8) & causal"}));
        }
    }
    // The Sparse Transformer preset scales with n: at n = 256 the stride is sqrt(n) = 16.
    show(presetSettingsAt(*findFigurePreset("sparse-transformer"), 256));
    EXPECT_EQ(legendTexts(1).second, (std::vector<QString>{"band(16) & causal", "stride(16) & causal"}));
}

} // namespace
} // namespace attnlab::patternviewtest
