// The receptive-field view: its CSV against core computed here independently, the heatmap's pixels
// against the hop matrix, the reach formulas, compare mode, sampled queries for long sequences, and stale
// jobs dropped on a settings change.

#include "gui/csv_table.h"
#include "gui/pixel_colors.h"
#include "views/figures/figure_export.h"
#include "views/figures/reach_snapshot.h"
#include "views/figures/receptive_field_view.h"
#include "views/plot/colormap.h"

#include "core/analysis/receptive_field.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <QImage>

#include <memory>
#include <string>
#include <vector>

namespace attnlab {
namespace {

using guitest::colorText;
using guitest::CsvRecord;
using guitest::csvRows;
using guitest::number;
using guitest::sameColor;

constexpr int kIdleTimeoutMs = 120000;

LabSettings reachSettings(const std::string& variant, std::int64_t n, int layers, bool causal, ParamOverrides params = {}) {
    LabSettings settings;
    settings.variant = variant;
    settings.params = std::move(params);
    settings.n = n;
    settings.layers = layers;
    settings.causal = causal;
    return settings;
}

std::unique_ptr<Pattern> corePattern(const LabSettings& settings, const VariantChoice& choice) {
    const VariantInfo& variant = requireVariant(choice.variant);
    const ProblemShape shape = problemShape(settings, variant);
    return buildPattern(variant, shape, prepareParams(variant, shape, choice.params));
}

const QStringList kReachColumns = {"layer", "variant", "params", "fraction_reachable", "mean_reach", "max_reach", "sources"};

// The CSV rows of one variant must be the core's reach curve for its pattern, value for value.
void expectCurveRows(const std::vector<CsvRecord>& rows, const std::string& variant, const ReachCurve& curve) {
    std::vector<CsvRecord> own;
    for (const auto& row : rows)
        if (row.at("variant") == QString::fromStdString(variant)) own.push_back(row);
    ASSERT_EQ(own.size(), curve.fractionReachable.size()) << variant;
    for (std::size_t l = 0; l < own.size(); ++l) {
        EXPECT_EQ(number(own[l], "layer"), static_cast<double>(l));
        EXPECT_EQ(number(own[l], "fraction_reachable"), curve.fractionReachable[l]) << variant << " l=" << l;
        EXPECT_EQ(number(own[l], "mean_reach"), curve.meanReachDistance[l]) << variant << " l=" << l;
        EXPECT_EQ(number(own[l], "max_reach"), curve.maxReachDistance[l]) << variant << " l=" << l;
        EXPECT_EQ(number(own[l], "sources"), static_cast<double>(curve.sources.size())) << variant;
    }
}

class ReceptiveFieldViewTest : public ::testing::Test {
protected:
    // Views work only while visible: the view is shown (offscreen) before any settings arrive.
    void SetUp() override { view.show(); }

    void show(const LabSettings& settings) {
        view.setSettings(settings);
        ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs)) << "the receptive field view stayed busy";
    }

    ReceptiveFieldView view;
};

TEST_F(ReceptiveFieldViewTest, LongformerReachGrowsByHalfTheWindowPerLayer) {
    const std::int64_t n = 200, window = 6, radius = window / 2;
    const int layers = 5;
    const LabSettings settings = reachSettings("longformer", n, layers, false, {{"window", std::to_string(window)}});
    show(settings);
    const auto rows = csvRows(view.csvData(), kReachColumns);
    ASSERT_EQ(rows.size(), static_cast<std::size_t>(layers + 1));
    EXPECT_TRUE(rows[0].at("params").contains(QStringLiteral("window=6"))) << rows[0].at("params").toStdString();

    const auto pattern = corePattern(settings, chosenVariants(settings).front());
    expectCurveRows(rows, "longformer", reachCurve(*pattern, layers, n));
    for (int l = 0; l <= layers; ++l) {
        // Bidirectional window r: (i, j) is within l hops iff |i − j| ≤ l·r; the farthest reach is l·r.
        const std::int64_t span = l * radius;
        double pairs = static_cast<double>(n);
        for (std::int64_t t = 1; t <= span; ++t) pairs += 2.0 * static_cast<double>(n - t);
        EXPECT_DOUBLE_EQ(number(rows[l], "fraction_reachable"), pairs / static_cast<double>(n * n)) << "l=" << l;
        EXPECT_EQ(number(rows[l], "max_reach"), static_cast<double>(span)) << "l=" << l;
    }
    LabSettings display = settings;
    display.flopsAsMacs = false;
    display.showWeights = true;
    view.setSettings(display);
    EXPECT_FALSE(view.busy()) << "display options of other views do not change the reach";
    display.layers = layers + 1;
    view.setSettings(display);
    EXPECT_TRUE(view.busy());
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    EXPECT_EQ(csvRows(view.csvData(), kReachColumns).size(), static_cast<std::size_t>(layers + 2));
}

TEST_F(ReceptiveFieldViewTest, TheTitleCountsItsLayers) {
    show(reachSettings("longformer", 64, 1, false));
    EXPECT_EQ(view.title().toStdString(), "Receptive field of one layer — Longformer");
    show(reachSettings("longformer", 64, 3, false));
    EXPECT_EQ(view.title().toStdString(), "Receptive field of 3 stacked layers — Longformer");
}

TEST_F(ReceptiveFieldViewTest, CausalHeatmapPixelsAreTheHopMatrix) {
    const std::int64_t n = 64;
    const int layers = 3;
    const LabSettings settings = reachSettings("longformer", n, layers, true, {{"window", "8"}});
    show(settings);
    const HopMatrix hops = hopMatrix(*corePattern(settings, chosenVariants(settings).front()), layers);

    const QSizeF size(900, 600);
    const QImage image = renderFigure(view, size, 96);
    ASSERT_EQ(image.size(), size.toSize());
    const QRectF rect(QPointF(0, 0), size);
    const QRectF plot = view.heatmapRect(rect, 0);
    ASSERT_GT(plot.width() / static_cast<double>(n), 3.0) << "cells too small to sample their centres";
    std::vector<int> seen(layers + 2, 0);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const QPointF centre(plot.left() + (static_cast<double>(j) + 0.5) * plot.width() / static_cast<double>(n),
                                 plot.top() + (static_cast<double>(i) + 0.5) * plot.height() / static_cast<double>(n));
            const QRgb pixel = image.pixel(static_cast<int>(centre.x()), static_cast<int>(centre.y()));
            const int expected = hops.at(i, j);
            ++seen[expected];
            if (j > i) {
                ASSERT_EQ(expected, layers + 1) << "causal: j > i is never reachable";
            }
            ASSERT_TRUE(sameColor(pixel, ReceptiveFieldView::hopColor(expected, layers)))
                << "(" << i << ", " << j << ") hops " << expected << ": " << colorText(pixel);
            const auto cell = view.cellAt(rect, centre);
            ASSERT_TRUE(cell.has_value());
            EXPECT_EQ(cell->row0, i);
            EXPECT_EQ(cell->col0, j);
            EXPECT_EQ(cell->hops, expected);
        }
    for (int h = 0; h <= layers + 1; ++h) EXPECT_GT(seen[h], 0) << "no cell " << h << " hops away";
    EXPECT_TRUE(sameColor(ReceptiveFieldView::hopColor(layers + 1, layers), emptyCellColor()));
}

TEST_F(ReceptiveFieldViewTest, StridedAndFixedConnectEveryPairWithinTwoLayers) {
    LabSettings settings = reachSettings("strided", 256, 3, false);
    settings.compareVariants = {"strided", "fixed"};
    show(settings);
    EXPECT_EQ(view.panelCount(), 2);
    const auto rows = csvRows(view.csvData(), kReachColumns);
    ASSERT_EQ(rows.size(), 8u);
    for (const auto& choice : chosenVariants(settings)) {
        const auto pattern = corePattern(settings, choice);
        expectCurveRows(rows, choice.variant, reachCurve(*pattern, 3, 256));
        const HopMatrix hops = hopMatrix(*pattern, 3);
        EXPECT_EQ(*std::max_element(hops.hops.begin(), hops.hops.end()), 2) << choice.variant;
    }
    for (const auto& row : rows) {
        if (number(row, "layer") >= 2) {
            EXPECT_EQ(number(row, "fraction_reachable"), 1.0) << row.at("variant").toStdString();
        }
    }
}

TEST_F(ReceptiveFieldViewTest, LongSequencesAreMeasuredOnSampledQueries) {
    const std::int64_t n = 4096;
    const LabSettings settings = reachSettings("longformer", n, 4, false, {{"window", "16"}});
    view.setSettings(settings);
    EXPECT_TRUE(view.busy()) << "the work must run on a worker, not inside setSettings";
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    const auto rows = csvRows(view.csvData(), kReachColumns);
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(number(rows[0], "sources"), static_cast<double>(ReceptiveFieldView::kSampledQueries));
    expectCurveRows(rows, "longformer", reachCurve(*corePattern(settings, chosenVariants(settings).front()), 4,
                                                   ReceptiveFieldView::kSampledQueries));
    // The heatmap's rows are the sampled queries: the first cell row is query 0, the last query n − 1.
    const QRectF rect(0, 0, 900, 600);
    const QRectF plot = view.heatmapRect(rect, 0);
    const auto first = view.cellAt(rect, plot.topLeft() + QPointF(0.5, 0.5));
    const auto last = view.cellAt(rect, plot.bottomRight() - QPointF(0.5, 0.5));
    ASSERT_TRUE(first && last);
    EXPECT_EQ(first->row0, 0);
    EXPECT_EQ(first->hops, 0);
    EXPECT_EQ(last->row0, n - 1);
    EXPECT_EQ(last->col1, n);
}

// Sampled rows are as many as the heatmap's columns, so a sliding window's diagonal is one unbroken
// line: every sampled query y reaches its own column block in one layer, and so do its neighbours'
// blocks within the window (no dashes between rows).
TEST(ReachSnapshot, DiagonalOfALongSequenceIsUnbroken) {
    const std::int64_t n = 8192;
    const auto snapshot = buildReachSnapshot(reachSettings("longformer", n, 1, false), [] { return false; });
    ASSERT_EQ(snapshot.panels.size(), 1u);
    const auto& panel = snapshot.panels.front();
    ASSERT_TRUE(panel.error.isEmpty()) << panel.error.toStdString();
    ASSERT_TRUE(panel.sampledRows);
    ASSERT_EQ(panel.rows, panel.cols);
    for (int y = 0; y < panel.rows; ++y) {
        const std::int64_t query = sampledRow(y, panel.rows, n);
        const int own = static_cast<int>(query * panel.cols / n);
        EXPECT_EQ(own, y) << "sampled query " << query << " lies in column block " << own;
        EXPECT_LE(panel.cells[static_cast<std::size_t>(y) * panel.cols + own], 1) << "row " << y;
    }
}

TEST_F(ReceptiveFieldViewTest, ASettingsChangeDropsTheEarlierJob) {
    view.setSettings(reachSettings("fixed", 16384, 6, false));
    const LabSettings settings = reachSettings("chunk", 96, 2, false, {{"chunk", "8"}});
    show(settings);
    const auto rows = csvRows(view.csvData(), kReachColumns);
    ASSERT_EQ(rows.size(), 3u);
    for (const auto& row : rows) EXPECT_EQ(row.at("variant"), QStringLiteral("chunk"));
    // A chunk never reaches outside itself: 8 of 96 keys from layer 1 on.
    EXPECT_DOUBLE_EQ(number(rows[2], "fraction_reachable"), 8.0 / 96.0);
}

} // namespace
} // namespace attnlab
