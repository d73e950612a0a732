// The timing figure's legend under a CPU-starved point: every curve keeps its fitted slope beside the cost
// model's, the note naming the starved point sits under the plots, no legend text covers a plotted point,
// and the CSV states the same slopes, which the test fits again from the CSV's own rows. The starved point
// is injected through the view's MeasureClock (StarvingClock), so the machine's load plays no part.

#include "gui/csv_table.h"
#include "gui/figure_command_fixture.h"
#include "gui/measure_clocks.h"
#include "gui/text_recorder.h"
#include "views/figures/figure_export.h"
#include "views/figures/timing_view.h"

#include "core/kernels/gemm.h"

#include <gtest/gtest.h>

#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

namespace attnlab {
namespace {

constexpr int kSweepTimeoutMs = 120000;

struct CurveSlopes {
    double measured = std::nan("");
    double model = std::nan("");
};

// Per series: the slopes every row of it states (the test fails if its rows disagree).
std::map<QString, CurveSlopes> statedSlopes(const guitest::CsvTable& table) {
    const auto series = table.header.indexOf(QStringLiteral("series"));
    const auto fitted = table.header.indexOf(QStringLiteral("fitted_slope"));
    const auto model = table.header.indexOf(QStringLiteral("model_slope"));
    EXPECT_GE(fitted, 0);
    EXPECT_GE(model, 0);
    std::map<QString, CurveSlopes> slopes;
    for (const QStringList& row : table.rows) {
        if (row.value(fitted).isEmpty() || fitted < 0 || model < 0) continue;
        const CurveSlopes stated{row.value(fitted).toDouble(), row.value(model).toDouble()};
        const auto [entry, added] = slopes.emplace(row.value(series), stated);
        if (!added) {
            EXPECT_EQ(entry->second.measured, stated.measured) << row.value(series).toStdString();
        }
    }
    return slopes;
}

// Least-squares slope of log y over log x.
double logLogSlope(const std::vector<std::pair<double, double>>& points) {
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    for (const auto& [x, y] : points) {
        sx += std::log(x), sy += std::log(y), sxx += std::log(x) * std::log(x), sxy += std::log(x) * std::log(y);
    }
    const double count = static_cast<double>(points.size());
    return (count * sxy - sx * sy) / (count * sxx - sx * sx);
}

// The slopes of one series fitted again from its rows: n ≥ kSlopeMinN, CPU share ≥ kStarvedCpuShare.
CurveSlopes refittedSlopes(const guitest::CsvTable& table, const QString& name) {
    const auto column = [&](const char* title) { return table.header.indexOf(QLatin1String(title)); };
    std::vector<std::pair<double, double>> times, macs;
    for (const QStringList& row : table.rows) {
        const double n = row.value(column("n")).toDouble();
        if (row.value(column("series")) != name || n < kSlopeMinN || row.value(column("median_s")).isEmpty() ||
            row.value(column("cpu_share")).toDouble() < kStarvedCpuShare)
            continue;
        times.emplace_back(n, row.value(column("median_s")).toDouble());
        macs.emplace_back(n, row.value(column("macs")).toDouble());
    }
    EXPECT_GE(times.size(), static_cast<std::size_t>(kSlopeMinPoints)) << name.toStdString();
    return {logLogSlope(times), logLogSlope(macs)};
}

QString slopeText(const CurveSlopes& slopes) {
    return QStringLiteral("slope %1 (cost model %2)").arg(slopes.measured, 0, 'f', 2).arg(slopes.model, 0, 'f', 2);
}

class TimingLegendTest : public ::testing::Test {
protected:
    void SetUp() override {
        view.setAttribute(Qt::WA_DontShowOnScreen);
        view.resize(900, 600);
        view.setMeasureClock(clock);
    }

    // Measures full and linear up to 4096 with linear's last point (n = 4096) starved: the view is hidden
    // (the sweep pauses) once every other point has arrived, the clock then starves, and showing the view
    // again measures the missing point.
    void measureWithLastPointStarved() {
        LabSettings settings;
        settings.variant = "full";
        settings.compareVariants = {"full", "linear"};
        settings.timingMaxN = 4096;
        bool paused = false;
        QObject::connect(&view, &TimingView::progressChanged, &view, [&](int done, int total) {
            if (done != total - 1 || paused) return;
            paused = true;
            view.hide();
        });
        view.setSettings(settings);
        view.show();
        ASSERT_TRUE(waitUntilIdle({&view}, kSweepTimeoutMs));
        ASSERT_TRUE(paused);
        clock->starve();
        view.show();
        ASSERT_TRUE(waitUntilIdle({&view}, kSweepTimeoutMs));
        ASSERT_EQ(view.progressDone(), view.progressTotal());
    }

    std::shared_ptr<StarvingClock> clock = std::make_shared<StarvingClock>();
    TimingView view;
};

TEST_F(TimingLegendTest, StarvedPointKeepsEverySlopeAndTheLegendCoversNoPoint) {
    measureWithLastPointStarved();
    std::vector<std::int64_t> starved;
    for (const TimingPoint& point : view.points())
        if (point.starved()) starved.push_back(point.shape.n);
    ASSERT_EQ(starved, std::vector<std::int64_t>{4096}) << "only linear's last point is starved";

    const guitest::CsvTable table = guitest::readCsv(view.csvData());
    const auto stated = statedSlopes(table);
    for (const char* name : {"full", "linear"}) {
        SCOPED_TRACE(name);
        ASSERT_EQ(stated.count(QLatin1String(name)), 1u) << "the CSV states the curve's slopes";
        const CurveSlopes refitted = refittedSlopes(table, QLatin1String(name));
        EXPECT_NEAR(stated.at(QLatin1String(name)).measured, refitted.measured, 1e-6);
        EXPECT_NEAR(stated.at(QLatin1String(name)).model, refitted.model, 1e-6);
    }

    for (const QSize size : {QSize(900, 600), QSize(640, 480)}) {
        SCOPED_TRACE(std::to_string(size.width()) + " x " + std::to_string(size.height()));
        testing::TextRecordingDevice device(size);
        {
            QPainter painter(&device);
            view.paintFigure(painter, QRectF(QPointF(0, 0), QSizeF(size)));
        }
        const auto& engine = device.engine();
        ASSERT_GT(engine.ellipses().size(), 14u) << "both curves' points and the starved ring";
        double lowestPoint = 0;
        for (const QRectF& marker : engine.ellipses()) lowestPoint = std::max(lowestPoint, marker.bottom());
        const auto painted = [&](const QString& words) {
            std::vector<QRectF> rects;
            for (const testing::PaintedText& text : engine.texts())
                if (text.text.contains(words)) rects.push_back(text.rect);
            return rects;
        };
        for (const char* name : {"full", "linear"}) {
            const auto entry = painted(QLatin1String(name) + QStringLiteral(" · ") + slopeText(stated.at(QLatin1String(name))));
            ASSERT_EQ(entry.size(), 1u) << name << ": the legend entry keeps its slope";
            EXPECT_GT(entry.front().top(), lowestPoint) << name << ": the legend is under the plots";
        }
        QString under; // what is written under the plots, line by line
        for (const testing::PaintedText& text : engine.texts())
            if (text.rect.top() > lowestPoint) under += text.text + QLatin1Char(' ');
        EXPECT_TRUE(under.contains(QLatin1String("CPU-starved")) && under.contains(QLatin1String("linear at n = 4096")))
            << "a note under the plots names the starved point: " << under.toStdString();
        for (const testing::PaintedText& text : engine.texts()) {
            const bool legend = text.text.contains(QLatin1String(" · ")) || text.text.contains(QLatin1String("CPU-starved")) ||
                                text.text.contains(QLatin1String("cost model; slopes"));
            for (const QRectF& marker : engine.ellipses())
                EXPECT_FALSE(legend && text.rect.intersects(marker))
                    << text.text.toStdString() << " covers the point at (" << marker.center().x() << ", " << marker.center().y() << ")";
        }
    }
}

// Layer mode times the build's GEMM engines first and runs the layer's products on the fastest: the CSV
// lists every engine timed with its rate, the chosen one the fastest, and the note under the plots names
// it with its rate.
TEST_F(TimingLegendTest, LayerFigureNamesTheGemmEngineItRanAndItsRate) {
    LabSettings settings;
    settings.timingMode = TimingMode::Layer;
    settings.timingMaxN = 256;
    view.setSettings(settings);
    view.show();
    ASSERT_TRUE(waitUntilIdle({&view}, kSweepTimeoutMs));
    ASSERT_TRUE(view.gemmChoice().has_value());
    const GemmChoice& gemm = *view.gemmChoice();

    const guitest::CsvTable table = guitest::readCsv(view.csvData());
    const auto column = [&](const char* title) { return table.header.indexOf(QLatin1String(title)); };
    std::map<QString, double> rates;
    QString chosen;
    for (const QStringList& row : table.rows) {
        const QString series = row.value(column("series"));
        if (!series.startsWith(QLatin1String("gemm_engine"))) continue;
        rates[row.value(column("note"))] = row.value(column("gflops")).toDouble();
        if (series == QLatin1String("gemm_engine_chosen")) {
            EXPECT_TRUE(chosen.isEmpty()) << "one engine is chosen";
            chosen = row.value(column("note"));
        }
    }
    EXPECT_EQ(rates.size(), availableGemmEngines().size());
    ASSERT_EQ(chosen.toStdString(), gemm.chosen.name);
    for (const auto& [name, gflops] : rates) {
        EXPECT_GT(gflops, 0) << name.toStdString();
        EXPECT_LE(gflops, rates.at(chosen)) << name.toStdString() << " ran faster than the engine chosen";
    }

    testing::TextRecordingDevice device(QSize(900, 600));
    {
        QPainter painter(&device);
        view.paintFigure(painter, QRectF(0, 0, 900, 600));
    }
    QString painted;
    for (const testing::PaintedText& text : device.texts()) painted += text.text + QLatin1Char(' ');
    const QString rate = QString::number(gemm.chosen.gflops, 'f', 1) + QStringLiteral(" GFLOP/s");
    EXPECT_TRUE(painted.simplified().contains(QString::fromStdString(gemm.chosen.name) + QStringLiteral(", ") + rate))
        << painted.toStdString();
}

// One `figure` call with -o twice writes both files from one sweep: the slopes drawn in the SVG's legend
// are the slopes of the CSV's rows.
TEST_F(FigureCommandTest, OneCallWritesTheFigureAndItsCsvFromOneMeasurement) {
    const ProcessRun both = run({"figure", "timing", "--variant", "full", "--timing-max-n", "2048", "-o", path("t.svg"), "-o",
                                 path("t.csv")});
    ASSERT_EQ(both.exitCode, 0) << both.err.toStdString();
    const guitest::CsvTable table = guitest::readCsv(QString::fromUtf8(readAll(path("t.csv"))));
    const auto stated = statedSlopes(table);
    const QString svg = QString::fromUtf8(readAll(path("t.svg")));
    if (stated.count(QStringLiteral("full")) == 1) {
        EXPECT_TRUE(svg.contains(QStringLiteral("full · ") + slopeText(stated.at(QStringLiteral("full")))))
            << slopeText(stated.at(QStringLiteral("full"))).toStdString();
    } else { // CPU-starved points left too few to fit: no slope in the CSV, and the legend says so
        EXPECT_TRUE(svg.contains(QStringLiteral("full · no slope")));
    }
    const ProcessRun twice = run({"figure", "timing", "--variant", "full", "--timing-max-n", "64", "-o", path("a.csv"), "--out",
                                  path("./a.csv")});
    EXPECT_EQ(twice.exitCode, 2);
    EXPECT_TRUE(twice.err.contains(QLatin1String("name the same file"))) << twice.err.toStdString();
}

} // namespace
} // namespace attnlab
