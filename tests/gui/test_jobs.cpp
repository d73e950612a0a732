// The job machinery every view runs on (offscreen): errors of a job reach the user, stale results are
// dropped, hidden views do no work until shown, and the FLOP view's costs are computed on a worker.

#include "views/figures/figure_export.h"
#include "views/figures/figure_view.h"
#include "views/figures/flops_view.h"
#include "views/figures/receptive_field_view.h"
#include "views/figures/timing_view.h"
#include "views/jobs/job_board.h"
#include "views/jobs/job_runner.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QImage>
#include <QPainter>
#include <QSignalSpy>
#include <QTest>

#include <algorithm>
#include <map>
#include <atomic>
#include <stdexcept>
#include <thread>
#include <vector>

namespace attnlab {
namespace {

constexpr int kIdleTimeoutMs = 120000;

bool waitForRunner(const JobRunner& jobs) {
    const QDeadlineTimer deadline(kIdleTimeoutMs);
    while (jobs.busy() && !deadline.hasExpired()) QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    return !jobs.busy();
}

// A view whose work is one job that fails while settings.n is odd; it counts the jobs it starts.
class ProbeView : public FigureView {
public:
    QString viewName() const override { return QStringLiteral("probe"); }
    QString title() const override { return QStringLiteral("probe"); }
    void drawFigure(QPainter& painter, const QRectF& rect) const override { painter.fillRect(rect, Qt::white); }
    QString csvData() const override { return {}; }
    bool busy() const override { return m_jobs.busy(); }
    int started() const { return m_started; }
    std::thread::id workerThread() const { return m_worker; }

protected:
    bool needsWork(const LabSettings& before, const LabSettings& after) const override { return before.n != after.n; }
    bool cancelWork() override {
        m_jobs.bumpGeneration();
        return true;
    }
    void startWork() override {
        ++m_started;
        m_jobs.bumpGeneration();
        m_jobs.submit<std::thread::id>(
            [n = m_settings.n](const CancelCheck&) {
                if (n % 2 != 0) throw std::runtime_error("odd n is not supported here");
                return std::this_thread::get_id();
            },
            [this](const std::thread::id& worker) { m_worker = worker; });
    }

public:
    ProbeView() { watchJobs(m_jobs); }

private:
    JobRunner m_jobs{QStringLiteral("probe")};
    int m_started = 0;
    std::thread::id m_worker;
};

TEST(JobRunner, AThrowingJobReportsItsMessage) {
    JobRunner jobs(QStringLiteral("loader"));
    QSignalSpy failed(&jobs, &JobRunner::failed);
    bool delivered = false;
    jobs.submit<int>([](const CancelCheck&) -> int { throw std::runtime_error("disk on fire"); }, [&](const int&) { delivered = true; });
    ASSERT_TRUE(waitForRunner(jobs));
    EXPECT_FALSE(delivered);
    ASSERT_EQ(failed.count(), 1);
    EXPECT_EQ(failed.front().front().toString(), QStringLiteral("loader: disk on fire"));
    EXPECT_EQ(jobs.lastError(), QStringLiteral("loader: disk on fire"));
    jobs.bumpGeneration();
    EXPECT_TRUE(jobs.lastError().isEmpty()) << "an error belongs to the settings it was computed for";
}

// A view's cancel bumps the generation: the job already running sees its cancellation turn on (the
// kernels poll it and stop in flight) and its result is dropped.
TEST(JobRunner, BumpingTheGenerationCancelsTheRunningJob) {
    JobRunner jobs;
    std::atomic<bool> started{false}, sawCancel{false};
    bool delivered = false;
    jobs.submit<int>(
        [&](const CancelCheck& cancelled) {
            started = true;
            const QDeadlineTimer deadline(kIdleTimeoutMs);
            while (!cancelled() && !deadline.hasExpired()) std::this_thread::yield();
            sawCancel = cancelled();
            return 0;
        },
        [&](const int&) { delivered = true; });
    while (!started) std::this_thread::yield();
    jobs.bumpGeneration();
    ASSERT_TRUE(waitForRunner(jobs));
    EXPECT_TRUE(sawCancel);
    EXPECT_FALSE(delivered);
}

TEST(JobRunner, AStaleResultIsDropped) {
    JobRunner jobs;
    std::atomic<bool> release{false};
    std::vector<int> delivered;
    std::atomic<bool> ran{false}, sawCancel{false};
    jobs.submit<int>(
        [&](const CancelCheck& cancelled) {
            ran = true;
            while (!release) std::this_thread::yield();
            sawCancel = cancelled();
            return 1;
        },
        [&](const int& value) { delivered.push_back(value); });
    jobs.bumpGeneration();
    jobs.submit<int>([](const CancelCheck&) { return 2; }, [&](const int& value) { delivered.push_back(value); });
    release = true;
    ASSERT_TRUE(waitForRunner(jobs));
    EXPECT_TRUE(!ran || sawCancel) << "a superseded job is skipped, or told to stop when already running";
    EXPECT_EQ(delivered, std::vector<int>{2});
}

TEST(FigureViewJobs, AFailingJobIsShownOnTheViewAndInTheStatus) {
    ProbeView view;
    view.resize(400, 300);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    QSignalSpy status(&view, &FigureView::statusMessage);
    LabSettings settings;
    settings.n = 255;
    view.setSettings(settings);
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    EXPECT_EQ(view.jobError(), QStringLiteral("probe: odd n is not supported here"));
    ASSERT_GE(status.count(), 1);
    EXPECT_EQ(status.back().front().toString(), view.jobError());
    const QImage shown = view.grab().toImage();
    EXPECT_EQ(QColor(shown.pixel(3, shown.height() - 3)), QColor(0xFF, 0xEB, 0xEE)) << "the error line is drawn on the view";
    settings.n = 256;
    view.setSettings(settings);
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    EXPECT_TRUE(view.jobError().isEmpty());
}

TEST(FigureViewJobs, AHiddenViewWorksOnlyOnceShown) {
    ProbeView probe;
    LabSettings settings;
    settings.n = 128;
    probe.setSettings(settings);
    settings.n = 512;
    probe.setSettings(settings);
    EXPECT_EQ(probe.started(), 0);
    EXPECT_TRUE(probe.stale());
    probe.show();
    EXPECT_EQ(probe.started(), 1) << "one job for the settings current when shown";
    EXPECT_FALSE(probe.stale());

    ReceptiveFieldView reach;
    settings.variant = "longformer";
    settings.n = 512;
    reach.setSettings(settings);
    QCoreApplication::processEvents();
    EXPECT_FALSE(reach.busy());
    EXPECT_EQ(reach.csvData().count(QLatin1Char('\n')), 1) << "only the header: nothing computed while hidden";
    reach.show();
    EXPECT_TRUE(reach.busy());
    ASSERT_TRUE(waitUntilIdle({&reach}, kIdleTimeoutMs));
    EXPECT_GT(reach.csvData().count(QLatin1Char('\n')), 1);
}

// Cancel stops a view's work and the view says its figure is not current; Recompute starts it again.
TEST(FigureViewJobs, CancelStopsTheWorkAndRecomputeStartsItAgain) {
    ReceptiveFieldView reach;
    reach.show();
    LabSettings settings;
    settings.variant = "longformer";
    settings.n = 4096;
    reach.setSettings(settings);
    ASSERT_TRUE(reach.busy());
    reach.cancelByUser();
    EXPECT_TRUE(reach.cancelledByUser());
    ASSERT_TRUE(waitUntilIdle({&reach}, kIdleTimeoutMs));
    EXPECT_EQ(reach.csvData().count(QLatin1Char('\n')), 1) << "the cancelled result is dropped, not shown";
    EXPECT_TRUE(reach.cancelledByUser());
    reach.recompute();
    EXPECT_FALSE(reach.cancelledByUser());
    EXPECT_TRUE(reach.busy());
    ASSERT_TRUE(waitUntilIdle({&reach}, kIdleTimeoutMs));
    EXPECT_GT(reach.csvData().count(QLatin1Char('\n')), 1);
}

TEST(FigureViewJobs, FlopCostsAreComputedOnAWorker) {
    FlopsView flops;
    flops.show();
    LabSettings settings;
    settings.variant = "bigbird";
    settings.n = 65536;
    flops.setSettings(settings);
    EXPECT_TRUE(flops.busy()) << "setSettings returns before the costs exist";
    EXPECT_TRUE(flops.sweep().empty());
    ASSERT_TRUE(waitUntilIdle({&flops}, kIdleTimeoutMs));
    ASSERT_FALSE(flops.sweep().empty());
    EXPECT_FALSE(flops.bars().empty());

    ProbeView probe;
    probe.show();
    ASSERT_TRUE(waitUntilIdle({&probe}, kIdleTimeoutMs));
    EXPECT_NE(probe.workerThread(), std::this_thread::get_id());
    EXPECT_NE(probe.workerThread(), std::thread::id());
}

// The markers' n in the FLOP view's CSV: quantity "NAME_n[=FORM]" of the series "marker".
std::map<QString, double> flopMarkers(const FlopsView& flops) {
    std::map<QString, double> markers;
    for (const QString& line : flops.csvData().split(QLatin1Char('\n')))
        if (line.startsWith(QStringLiteral("marker,"))) {
            const QStringList cells = line.split(QLatin1Char(','));
            markers[cells[3]] = cells[4].toDouble();
        }
    return markers;
}

// Markers are the crossovers of the case shown: causal full attention passes the FFN at n > 4hd - 1,
// and linear attention has no n² crossover to mark at all.
TEST(FigureViewJobs, FlopMarkersAreTheCrossoversOfTheCaseShown) {
    FlopsView flops;
    flops.show();
    LabSettings settings;
    settings.variant = "full";
    settings.heads = 12;
    settings.d = 64;
    settings.n = 2048;
    settings.causal = true;
    flops.setSettings(settings);
    ASSERT_TRUE(waitUntilIdle({&flops}, kIdleTimeoutMs));
    auto markers = flopMarkers(flops);
    EXPECT_EQ(markers[QStringLiteral("attention_exceeds_ffn_n=4hd - 1")], 3071);
    EXPECT_EQ(markers[QStringLiteral("core_dominates_n=12hd - 1")], 9215);

    settings.variant = "linear";
    settings.causal = false;
    flops.setSettings(settings);
    ASSERT_TRUE(waitUntilIdle({&flops}, kIdleTimeoutMs));
    markers = flopMarkers(flops);
    for (const auto& [name, n] : markers) {
        EXPECT_FALSE(name.startsWith(QStringLiteral("attention_exceeds_ffn"))) << name.toStdString();
        EXPECT_FALSE(name.startsWith(QStringLiteral("core_dominates"))) << name.toStdString();
    }
    EXPECT_EQ(markers[QStringLiteral("linear_beats_full_n=16d + 4")], 1028);
}

LabSettings smallSweep() {
    LabSettings settings;
    settings.variant = "full";
    settings.d = 32;
    settings.timingMaxN = 1024;
    return settings;
}

bool waitWhileBusy(const FigureView& view) {
    const QDeadlineTimer deadline(kIdleTimeoutMs);
    while (view.busy() && !deadline.hasExpired()) QCoreApplication::processEvents(QEventLoop::AllEvents, 10);
    return !view.busy();
}

// Hiding the timing view pauses its sweep; showing it again measures only the sizes still missing.
TEST(TimingViewJobs, HidingPausesTheSweepAndShowingResumesIt) {
    TimingView view;
    view.show();
    view.setSettings(smallSweep());
    ASSERT_TRUE(view.busy());
    view.hide();
    ASSERT_TRUE(waitWhileBusy(view));
    EXPECT_TRUE(view.stale());
    const std::size_t before = view.points().size();
    EXPECT_LT(before, TimingView::sweepSizes(1024).size()) << "the sweep stopped when hidden";
    view.show();
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    std::vector<std::int64_t> measured;
    for (const TimingView::Point& point : view.points()) measured.push_back(point.shape.n);
    std::sort(measured.begin(), measured.end());
    EXPECT_EQ(measured, TimingView::sweepSizes(1024)) << "every size once: kept points are not measured again";
    EXPECT_EQ(view.progressDone(), view.progressTotal());
}

TEST(TimingViewJobs, ASweepTheUserCancelledStaysPartialAcrossTabs) {
    TimingView view;
    view.show();
    view.setSettings(smallSweep());
    view.cancel();
    ASSERT_TRUE(waitWhileBusy(view));
    view.hide();
    view.show();
    EXPECT_FALSE(view.busy()) << "showing the view again does not restart a cancelled sweep";
    EXPECT_TRUE(view.partial());
}

TEST(JobBoard, NamesTheBusyRunners) {
    JobRunner jobs(QStringLiteral("slow thing"));
    std::atomic<bool> release{false};
    jobs.submit<int>(
        [&](const CancelCheck&) {
            while (!release) std::this_thread::yield();
            return 0;
        },
        [](const int&) {});
    EXPECT_TRUE(JobBoard::instance().runningText().contains(QStringLiteral("slow thing")));
    release = true;
    ASSERT_TRUE(waitForRunner(jobs));
    EXPECT_FALSE(JobBoard::instance().runningText().contains(QStringLiteral("slow thing")));
}

} // namespace
} // namespace attnlab
