// The timing view's figure and settings: the measured curves drawn, guide lines only when asked, a
// sweep over a grid's image sizes with the block kernel's prediction, and the timing fields in sessions.

#include "gui/measure_clocks.h"
#include "gui/timing_view_fixture.h"
#include "views/figures/figure_export.h"
#include "views/figures/timing_view.h"
#include "views/plot/plot_axes.h"
#include "views/shell/session_file.h"

#include "core/patterns/block_counts.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QEventLoop>
#include <QImage>
#include <QJsonObject>
#include <QMetaObject>
#include <QThread>
#include <QTimer>

#include <atomic>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

namespace attnlab::timingviewtest {
namespace {

// Pixels of `color` (within a small tolerance) inside `region` of `image`.
int colorPixels(const QImage& image, const QRect& region, const QColor& color) {
    int count = 0;
    for (int y = region.top(); y <= region.bottom(); ++y)
        for (int x = region.left(); x <= region.right(); ++x) {
            const QColor pixel = image.pixelColor(x, y);
            count += std::abs(pixel.red() - color.red()) <= 3 &&
                     std::abs(pixel.green() - color.green()) <= 3 &&
                     std::abs(pixel.blue() - color.blue()) <= 3;
        }
    return count;
}

TEST_F(TimingViewTest, FigurePaintsTheMeasuredCurves) {
    TimingView idle; // never shown: measures nothing
    idle.setSettings(sweepSettings({"full", "linear"}, 2048));
    measure(sweepSettings({"full", "linear"}, 2048));
    const QImage empty = renderFigure(idle, QSizeF(900, 600), 96);
    const QImage image = renderFigure(view, QSizeF(900, 600), 96);
    ASSERT_EQ(image.size(), QSize(900, 600));
    // The time panel right of its legend (which sits top left), and the rate and memory panels (no legend).
    const QRect timeCurves(250, 60, 230, 440), rate(510, 60, 380, 200), memory(510, 300, 380, 200);
    for (int series = 0; series < 2; ++series) {
        const QColor color = seriesColor(series);
        SCOPED_TRACE(color.name().toStdString());
        EXPECT_GT(colorPixels(image, timeCurves, color), 30);
        EXPECT_GT(colorPixels(image, rate, color), 30);
        EXPECT_GT(colorPixels(image, memory, color), 30);
        EXPECT_EQ(colorPixels(empty, timeCurves, color), 0);
        EXPECT_EQ(colorPixels(empty, rate, color), 0);
    }
}

// The n², n√n and n guides are drawn only when asked for, and never start a new sweep.
TEST_F(TimingViewTest, GuideLinesOnlyWhenAsked) {
    LabSettings settings = sweepSettings({"full"}, 512);
    measure(settings);
    const QColor guide(0x88, 0x88, 0x88);
    const QRect time(60, 60, 420, 440);
    const int without = colorPixels(renderFigure(view, QSizeF(900, 600), 96), time, guide);
    settings.timingGuides = true;
    view.setSettings(settings);
    EXPECT_FALSE(view.busy()) << "guides are drawn from the points already measured";
    const int with = colorPixels(renderFigure(view, QSizeF(900, 600), 96), time, guide);
    EXPECT_GT(with, without + 100);
}

// On a grid the sweep is over image sizes: every point is measured on the grid scaled to its n (a 3 × 3
// neighbourhood has 9 keys per cell on every copy), and the title and the CSV say which image each is.
// The block kernel's prediction comes from the points already measured: turning it on or changing B
// measures nothing again.
TEST_F(TimingViewTest, GridSweepMeasuresEachImageSizeAndAddsTheBlockPrediction) {
    view.setMeasureClock(std::make_shared<ThreadCpuClock>());
    LabSettings settings = sweepSettings({"custom"}, 1024, 1, 16);
    settings.params = {{"expr", "neighborhood(3)"}};
    settings.grid = "8,8";
    settings.n = 64;
    measure(settings);
    const std::vector<std::int64_t> sizes = {64, 144, 256, 576, 1024};
    EXPECT_EQ(TimingView::sweepSizes(settings), sizes);
    ASSERT_EQ(view.points().size(), sizes.size());
    for (const auto& point : view.points()) {
        ASSERT_TRUE(point.valid()) << point.error;
        ASSERT_TRUE(point.shape.grid) << point.shape.n;
        const auto side =
            static_cast<std::int64_t>(std::llround(std::sqrt(static_cast<double>(point.shape.n))));
        EXPECT_EQ(point.shape.grid->sizeText(), std::to_string(side) + "," + std::to_string(side));
        EXPECT_DOUBLE_EQ(point.macs, 9.0 * static_cast<double>(point.shape.n) * 32.0);
    }
    EXPECT_TRUE(view.title().contains(QStringLiteral("vs image size"))) << view.title().toStdString();
    EXPECT_TRUE(view.title().contains(QStringLiteral("8×8 image, raster order")))
        << view.title().toStdString();
    std::vector<CsvRow> rows = parseCsv(view.csvData());
    for (const CsvRow& row : rows) {
        const auto side = std::to_string(std::llround(std::sqrt(number(row, "n"))));
        EXPECT_EQ(row.at("grid"), side + "," + side);
        EXPECT_EQ(row.at("block_macs"), "") << "no block prediction asked";
    }
    std::vector<double> medians;
    for (const auto& point : view.points())
        medians.push_back(point.medianSeconds);

    for (const std::int64_t block : {64, 16}) {
        settings.timingBlockModel = true;
        settings.blockCost = block;
        view.setSettings(settings);
        ASSERT_TRUE(waitUntilIdle({&view}, kSweepTimeoutMs));
        EXPECT_EQ(view.progressDone(), static_cast<int>(sizes.size()));
        std::vector<double> kept;
        for (const auto& point : view.points())
            kept.push_back(point.medianSeconds);
        EXPECT_EQ(kept, medians) << "the measurements stay";
        for (const auto& point : view.points()) {
            const VariantInfo& custom = requireVariant("custom");
            const auto pattern =
                buildPattern(custom, point.shape, prepareParams(custom, point.shape, settings.params));
            EXPECT_DOUBLE_EQ(point.blockMacs,
                             static_cast<double>(countBlocks(*pattern, block).computedCells) * 32.0)
                << point.shape.n;
        }
        rows = parseCsv(view.csvData());
        const double rate = number(rows.front(), "block_macs") / number(rows.front(), "block_predicted_s");
        for (const CsvRow& row : rows) {
            EXPECT_EQ(number(row, "block_size"), static_cast<double>(block));
            EXPECT_NEAR(number(row, "block_macs") / number(row, "block_predicted_s"), rate, 1e-6 * rate)
                << "one rate per curve";
        }
    }
}

TEST(TimingSettings, SessionKeepsTimingFieldsAndOldSessionsGetDefaults) {
    LabSettings settings;
    settings.timingMaxN = 8192;
    settings.timingMode = TimingMode::Layer;
    const LabSettings back = settingsFromJson(settingsToJson(settings));
    EXPECT_EQ(back.timingMaxN, 8192);
    EXPECT_EQ(back.timingMode, TimingMode::Layer);

    QJsonObject old = settingsToJson(LabSettings{});
    old.remove(QStringLiteral("timing_max_n"));
    old.remove(QStringLiteral("timing_mode"));
    const LabSettings defaults = settingsFromJson(old);
    EXPECT_EQ(defaults.timingMaxN, LabSettings{}.timingMaxN);
    EXPECT_EQ(defaults.timingMode, TimingMode::Variants);
}

} // namespace
} // namespace attnlab::timingviewtest
