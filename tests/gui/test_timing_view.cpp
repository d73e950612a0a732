// The timing view measures on a worker while the UI thread stays responsive: sweeps finish with one
// plausible row per variant and n, a settings change drops every stale point, cancel keeps the partial
// curve, the UI thread answers while a point is being measured (the longest gap between its ticks is
// printed for the log, not asserted) and layer mode times its four parts (the figure's tests:
// test_timing_view_figure.cpp). Where a test compares times it reads them from the measuring thread's
// CPU clock (ThreadCpuClock), so a busy machine cannot change the answer.

#include "gui/measure_clocks.h"
#include "gui/timing_view_fixture.h"
#include "views/figures/figure_export.h"
#include "views/plot/plot_axes.h"
#include "views/shell/session_file.h"
#include "views/figures/timing_view.h"

#include "core/patterns/block_counts.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QMetaObject>
#include <QThread>
#include <QEventLoop>
#include <QImage>
#include <QJsonObject>
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

// The prediction is MACs at one rate per curve, fitted to its trusted points (n ≥ kSlopeMinN, not
// starved; every valid point when none is): every row has the same MACs / predicted_s, and over the
// fitted points the log errors cancel.
void expectOneFittedRate(const std::map<std::int64_t, CsvRow>& byN) {
    const double rate = number(byN.begin()->second, "macs") / number(byN.begin()->second, "predicted_s");
    double trustedLogError = 0, allLogError = 0;
    int trusted = 0;
    for (const auto& [n, row] : byN) {
        EXPECT_NEAR(number(row, "macs") / number(row, "predicted_s"), rate, 1e-6 * rate) << "n=" << n;
        const double logError = std::log(number(row, "predicted_s") / number(row, "median_s"));
        allLogError += logError;
        if (n >= kSlopeMinN && number(row, "cpu_share") >= kStarvedCpuShare) {
            trustedLogError += logError;
            ++trusted;
        }
    }
    EXPECT_NEAR(trusted > 0 ? trustedLogError : allLogError, 0.0, 1e-6);
}

TEST_F(TimingViewTest, SweepGivesOneRowPerVariantAndSizeWithPlausibleValues) {
    view.setMeasureClock(std::make_shared<ThreadCpuClock>());
    measure(sweepSettings({"full", "linear"}, 2048));
    const std::vector<std::int64_t> sizes = {64, 128, 256, 512, 1024, 2048};
    ASSERT_EQ(TimingView::sweepSizes(2048), sizes);
    EXPECT_EQ(view.progressTotal(), 12);
    EXPECT_EQ(view.progressDone(), 12);
    EXPECT_FALSE(view.partial());

    const std::vector<CsvRow> rows = parseCsv(view.csvData());
    ASSERT_EQ(rows.size(), 12u);
    for (const std::string series : {"full", "linear"}) {
        const auto byN = seriesRows(rows, series);
        ASSERT_EQ(byN.size(), sizes.size()) << series;
        for (const auto& [n, row] : byN) {
            SCOPED_TRACE(series + " n=" + std::to_string(n));
            EXPECT_EQ(number(row, "d"), 64);
            const double median = number(row, "median_s"), low = number(row, "min_s"), high = number(row, "max_s");
            EXPECT_GT(low, 0);
            EXPECT_LE(low, median);
            EXPECT_LE(median, high);
            EXPECT_GE(number(row, "repeats"), 2);
            const double macs = number(row, "macs");
            EXPECT_NEAR(number(row, "gflops"), 2 * macs / median / 1e9, 1e-6 * number(row, "gflops"));
            // The output alone is h·n·d floats beyond the inputs.
            EXPECT_GE(number(row, "model_extra_bytes"), 4.0 * n * 64);
            EXPECT_GE(number(row, "peak_extra_bytes"), 0);
            // The measurement kept (a share of) a core busy; how much depends on the machine's load.
            EXPECT_GT(number(row, "cpu_share"), 0.0);
        }
        expectOneFittedRate(byN);
        EXPECT_GT(number(byN.at(2048), "median_s"), number(byN.at(64), "median_s")) << series;
    }
    // Full attention: n² scores and n² weights × V of size d (one head), and quadratic time.
    const auto full = seriesRows(rows, "full");
    for (const auto& [n, row] : full) EXPECT_DOUBLE_EQ(number(row, "macs"), 2.0 * n * n * 64) << n;
    EXPECT_GT(number(full.at(2048), "median_s"), 2.0 * number(full.at(256), "median_s"));
}

// Pauses `clock` inside the point after the first two, so the sweep is surely running (however fast
// the machine) when the test acts; false if two points never arrived.
bool holdAfterTwoPoints(TimingView& view, PausingClock& clock) {
    const auto connection = QObject::connect(&view, &TimingView::progressChanged, [&] {
        if (view.progressDone() >= 2) clock.pause();
    });
    const bool arrived = processUntil([&] { return view.progressDone() >= 2; }, kSweepTimeoutMs);
    QObject::disconnect(connection);
    return arrived;
}

TEST_F(TimingViewTest, ChangingSettingsMidSweepDropsStalePoints) {
    const auto clock = std::make_shared<PausingClock>(QThread::currentThread());
    view.setMeasureClock(clock);
    view.setSettings(sweepSettings({"full"}, 4096, 2, 64));
    view.show();
    ASSERT_TRUE(holdAfterTwoPoints(view, *clock));
    ASSERT_TRUE(processUntil([&] { return clock->heldAPoint(); }, kSweepTimeoutMs));
    ASSERT_TRUE(view.busy());
    EXPECT_EQ(view.progressDone(), 2);
    for (const auto& point : view.points()) EXPECT_EQ(point.shape.d, 64);

    int staleArrivals = 0;
    const auto connection = QObject::connect(&view, &TimingView::progressChanged, [&] {
        for (const auto& point : view.points()) staleArrivals += point.shape.d != 32;
    });
    view.setSettings(sweepSettings({"full"}, 4096, 2, 32));
    EXPECT_TRUE(view.points().empty());
    clock->resume(); // the held point finishes for the old settings and must be dropped
    ASSERT_TRUE(waitUntilIdle({&view}, kSweepTimeoutMs));
    QObject::disconnect(connection);

    EXPECT_EQ(staleArrivals, 0);
    EXPECT_EQ(view.progressDone(), 7);
    ASSERT_EQ(view.points().size(), 7u);
    for (const auto& point : view.points()) EXPECT_EQ(point.shape.d, 32);
    const std::vector<CsvRow> rows = parseCsv(view.csvData());
    for (const CsvRow& row : rows) EXPECT_EQ(number(row, "d"), 32);
    // The CSV states each point's own measured peak. That a point's peak holds its output is
    // test_timing's (MeasuredMemory): resident memory is the process's, and here the UI thread
    // allocates and frees while the worker measures, so the peak is not asserted in this process.
    const auto byN = seriesRows(rows, "full");
    for (const auto& point : view.points()) {
        const double written = number(byN.at(point.shape.n), "peak_extra_bytes");
        EXPECT_NEAR(written, point.peakExtraBytes, 1e-8 * point.peakExtraBytes + 1e-9) << point.shape.n;
        EXPECT_GE(written, 0) << point.shape.n;
    }
}

TEST_F(TimingViewTest, SettingsOutsideTheMeasurementKeepTheSweep) {
    measure(sweepSettings({"full"}, 256));
    const auto before = view.points();
    LabSettings other = view.settings();
    other.n = 1024;
    other.head = 0;
    other.source = InputSource::RandomGaussian;
    view.setSettings(other);
    EXPECT_FALSE(view.busy());
    ASSERT_EQ(view.points().size(), before.size());
    for (std::size_t k = 0; k < before.size(); ++k) EXPECT_EQ(view.points()[k].medianSeconds, before[k].medianSeconds);
}

TEST_F(TimingViewTest, CancelKeepsThePartialCurveAndRemeasureStartsAgain) {
    // Cancelled once the first points arrived, long before the largest (n = 16384, two heads).
    const auto pausing = std::make_shared<PausingClock>(QThread::currentThread());
    view.setMeasureClock(pausing);
    view.setSettings(sweepSettings({"full"}, 16384, 2, 64));
    view.show();
    ASSERT_TRUE(holdAfterTwoPoints(view, *pausing));
    ASSERT_TRUE(processUntil([&] { return pausing->heldAPoint(); }, kSweepTimeoutMs));
    ASSERT_TRUE(view.busy());
    const std::size_t measured = view.points().size();
    const int done = view.progressDone();
    // That the kernel in flight polls the cancellation is the kernels' test (KernelsBlock); that cancel()
    // turns the running job's cancellation on is the job runner's (test_jobs). How soon the sweep stops
    // depends on the machine's load, so it is printed for the log, not asserted.
    QElapsedTimer clock;
    clock.start();
    view.cancel();
    pausing->resume();
    ASSERT_TRUE(processUntil([&] { return !view.busy(); }, kSweepTimeoutMs));
    std::printf("cancel: the sweep stopped %.3f s after cancel()\n", clock.elapsed() / 1000.0);

    // Nothing arrives later, and what was measured stays, marked partial.
    processUntil([] { return false; }, 300);
    EXPECT_EQ(view.points().size(), measured);
    EXPECT_EQ(view.progressDone(), done);
    EXPECT_EQ(view.progressTotal(), 9);
    EXPECT_TRUE(view.partial());
    EXPECT_EQ(parseCsv(view.csvData()).size(), measured);

    view.remeasure();
    EXPECT_TRUE(view.busy());
    EXPECT_FALSE(view.partial());
    EXPECT_TRUE(view.points().empty());
    view.cancel();
    ASSERT_TRUE(processUntil([&] { return !view.busy(); }, kSweepTimeoutMs));
}

TEST_F(TimingViewTest, TheUiThreadAnswersWhileAPointIsMeasured) {
    const auto handshake = std::make_shared<HandshakeClock>(QThread::currentThread());
    view.setMeasureClock(handshake);
    // Ticks every 5 ms on the UI thread while the view measures and repaints as points arrive.
    QElapsedTimer clock;
    qint64 lastTick = -1;
    qint64 longestGapNs = 0;
    int ticks = 0;
    QTimer timer;
    timer.setTimerType(Qt::PreciseTimer);
    timer.setInterval(5);
    QObject::connect(&timer, &QTimer::timeout, [&] {
        const qint64 now = clock.nsecsElapsed();
        if (lastTick >= 0) longestGapNs = std::max(longestGapNs, now - lastTick);
        lastTick = now;
        ++ticks;
    });

    QEventLoop loop;
    QObject::connect(&view, &FigureView::busyChanged, &loop, [&](bool busy) {
        if (!busy) loop.quit();
    });
    QTimer::singleShot(kSweepTimeoutMs, &loop, &QEventLoop::quit);
    clock.start();
    timer.start();
    view.setSettings(sweepSettings({"full", "linear"}, 1024, 2, 64));
    view.show();
    ASSERT_TRUE(view.busy());
    loop.exec();
    timer.stop();
    const double sweepSeconds = clock.elapsed() / 1000.0;
    ASSERT_FALSE(view.busy()) << "sweep did not finish";
    EXPECT_EQ(view.progressDone(), view.progressTotal());

    EXPECT_TRUE(handshake->uiAnsweredWhileMeasuring()) << "the UI thread did not run while a point was measured";
    EXPECT_FALSE(handshake->readOnUiThread()) << "a point was measured on the UI thread";
    EXPECT_GT(ticks, 0);
    // How long the UI thread went without a tick depends on the machine's load: for the log only.
    std::printf("UI: longest gap between 5 ms ticks during a %.2f s sweep (%d points, %d ticks): %.1f ms\n",
                sweepSeconds, view.progressTotal(), ticks, longestGapNs / 1e6);
}

// A row of a layer part, not a crossover marker or a GEMM engine timed before the sweep.
bool isPartRow(const CsvRow& row) { return row.at("series").rfind("crossover", 0) != 0 && row.at("series").rfind("gemm_engine", 0) != 0; }

TEST_F(TimingViewTest, LayerModeTimesFourPartsAndMarksTheCrossover) {
    LabSettings settings = sweepSettings({"full"}, 1024, 1, 32);
    settings.timingMode = TimingMode::Layer;
    measure(settings);
    EXPECT_EQ(view.progressTotal(), 5);
    const std::vector<CsvRow> rows = parseCsv(view.csvData());
    std::map<std::int64_t, std::map<std::string, double>> seconds;
    for (const CsvRow& row : rows)
        if (isPartRow(row)) seconds[static_cast<std::int64_t>(number(row, "n"))][row.at("series")] = number(row, "median_s");
    ASSERT_EQ(seconds.size(), 5u);
    for (const auto& [n, parts] : seconds) {
        ASSERT_EQ(parts.size(), 4u) << n;
        for (const auto& [part, value] : parts) EXPECT_GT(value, 0) << part << " n=" << n;
    }
    const auto ffn = seriesRows(rows, "ffn");
    // FFN: 8 n (hd)² MACs.
    for (const auto& [n, row] : ffn) EXPECT_DOUBLE_EQ(number(row, "macs"), 8.0 * n * 32 * 32) << n;

    const auto model = seriesRows(rows, "crossover_cost_model");
    ASSERT_EQ(model.size(), 1u);
    EXPECT_EQ(model.begin()->first, 64);

    // The measured crossover lies between the last n where self-attention ≤ FFN and the grid point after
    // it, over the layers none of whose parts was starved of CPU (a starved layer is never used).
    for (const CsvRow& row : rows)
        if (isPartRow(row) && number(row, "cpu_share") < kStarvedCpuShare)
            seconds.erase(static_cast<std::int64_t>(number(row, "n")));
    const MeasuredCrossover crossing = view.measuredCrossover();
    std::optional<std::int64_t> lastBelow, after;
    bool aboveAtTheEnd = false;
    for (const auto& [n, parts] : seconds) {
        aboveAtTheEnd = parts.at("qkv_proj") + parts.at("attention") + parts.at("out_proj") > parts.at("ffn");
        if (!aboveAtTheEnd) lastBelow = n;
        if (aboveAtTheEnd && lastBelow && !after) after = n;
        if (!aboveAtTheEnd) after.reset();
    }
    if (!aboveAtTheEnd) {
        EXPECT_FALSE(crossing.n.has_value());
        EXPECT_FALSE(crossing.alwaysAbove);
    } else if (!lastBelow) {
        EXPECT_TRUE(crossing.alwaysAbove);
    } else {
        ASSERT_TRUE(crossing.n.has_value());
        EXPECT_GE(*crossing.n, *lastBelow);
        EXPECT_LE(*crossing.n, *after);
        EXPECT_EQ(seriesRows(rows, "crossover_measured").size(), 1u);
    }
}

} // namespace
} // namespace attnlab::timingviewtest
