#pragma once

#include "views/figures/figure_view.h"
#include "views/jobs/job_runner.h"

#include "core/analysis/crossovers.h"
#include "core/analysis/timing_sweep.h"

#include <QElapsedTimer>

#include <atomic>
#include <cmath>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

class PlotAxes;
struct LegendEntry;

// Measured wall time on this machine vs n = 64, 128, … up to LabSettings::timingMaxN, log-log, beside
// the cost model's prediction. Variants mode: the chosen variants' attention cores (time, GFLOP/s, peak
// extra memory). Layer mode: one Transformer layer's parts (QKV projections, attention core, output
// projection, FFN) with the measured crossover where self-attention outweighs the FFN beside the cost
// model's n = 2hd. Every n (per variant) is one background job, so the curves grow as points arrive; a
// change of anything the measurement depends on restarts the sweep and drops every stale point. A hidden
// view measures nothing until it is shown: a sweep loads the machine, which would slow the views on
// screen and be disturbed by them.
class TimingView : public FigureView {
    Q_OBJECT
public:
    using Point = TimingPoint;

    explicit TimingView(QWidget* parent = nullptr);
    ~TimingView() override;

    QString viewName() const override { return QStringLiteral("timing"); }
    QString title() const override;
    QString caption() const override;
    void drawFigure(QPainter& painter, const QRectF& rect) const override;
    QString csvData() const override;
    bool busy() const override { return m_jobs.busy() || m_blockJobs.busy(); }

    // Stops the running sweep (the kernel in flight polls the cancellation) and keeps the points
    // measured so far, marked as partial.
    void cancel();
    void cancelByUser() override { cancel(); }
    // Measures the current settings again from the start.
    void remeasure();
    // The readings every point is timed with (MeasureClock's contract; systemMeasureClock() unless set).
    // The clock is read on the sweep's worker, never on the UI thread. Takes effect from the next sweep.
    void setMeasureClock(std::shared_ptr<const MeasureClock> clock);

    // Points of the current sweep in arrival order, only ever for the current settings.
    const std::vector<Point>& points() const { return m_points; }
    int progressDone() const { return m_done; }
    int progressTotal() const { return m_total; }
    // The sweep was cancelled before every point was measured.
    bool partial() const { return m_cancelled && m_done < m_total; }
    // The n of the sweep: powers of two from 64 to the settings' maximum; with a grid, the cell counts of
    // the grid's scaled copies (timingSweepSizes), each point measured on its copy.
    static std::vector<std::int64_t> sweepSizes(std::int64_t maxN);
    static std::vector<std::int64_t> sweepSizes(const LabSettings& settings);
    // The cost model's time for `point`: its MACs at its series' MAC rate fitted to the measured times;
    // with CostModel::BlockKernel, a block kernel's MACs at the settings' blockCost fitted the same way
    // (NaN until they are counted, which a worker does once the settings ask for that prediction).
    double predictedSeconds(const Point& point, CostModel model = CostModel::Exact) const;
    bool blockModelShown() const { return m_settings.timingBlockModel; }
    // Layer mode only; empty before two n are measured.
    MeasuredCrossover measuredCrossover() const;
    // Layer mode: the GEMM engine the projections and the FFN ran on, chosen as the faster of the
    // build's engines at the start of the sweep; empty before it is timed.
    const std::optional<GemmChoice>& gemmChoice() const { return m_gemm; }
    // One sentence per compared variant left out of the sweep because it has no form for the causal
    // choice asked (compareCausalProblem); the figure's status line shows them.
    QStringList leftOutNotes() const;

signals:
    void progressChanged(int done, int total);

protected:
    bool needsWork(const LabSettings& before, const LabSettings& after) const override;
    // Measures the points still missing when the sweep was paused for the same settings, else all.
    void startWork() override;
    // Pauses the sweep: the kernel in flight stops, the points so far are kept for the resumption.
    bool cancelWork() override;

private:
    struct SeriesInfo {
        std::string name;
        int index = 0;
    };
    void startSweep(bool resume);
    bool measured(int seriesIndex, std::int64_t n) const;
    void deliver(const std::vector<Point>& points);
    // The series drawn: in compare mode a variant with no form for the causal choice asked is left out
    // (not measured, no curve, no CSV rows) and named by leftOutNotes() in the status line.
    std::vector<SeriesInfo> seriesList() const;
    QString leftOutNote(const VariantChoice& choice) const;
    std::vector<const Point*> seriesPoints(int seriesIndex) const; // sorted by n
    QString seriesLabel(const SeriesInfo& series) const;
    QColor seriesColorOf(const SeriesInfo& series) const;
    QString statusText() const;
    void paintTime(QPainter& painter, const QRectF& area) const;
    void paintRate(QPainter& painter, const QRectF& area) const;
    void paintMemory(QPainter& painter, const QRectF& area) const;
    void paintLayerShare(QPainter& painter, const QRectF& area) const;
    // Vertical markers at the measured and the cost model's crossover; crossoverText() names both.
    void paintCrossoverMarkers(const PlotAxes& axes) const;
    // The n², n√n and n guides, when asked and at least two n are measured.
    bool guidesDrawn() const;
    void paintGuides(const PlotAxes& axes) const;
    bool anyValidPoint() const;
    // Below the panels: each curve with its slope fitted over its trusted points beside the cost model's,
    // the dashed model, the guides, then one note per curve naming its CPU-starved and invalid n.
    // The curves the cost model misses by a fixed cost per call at small n (overheadMisses), one note each.
    QStringList overheadNotes() const;
    std::vector<LegendEntry> timeLegend() const;
    QString crossoverText() const;
    // Layer mode: the notes under the plots naming the GEMM engine, and warning when it is far below the
    // attention core's best measured rate.
    QStringList gemmNotes() const;
    // Layer mode: times the GEMM engines first; the layer jobs read the chosen engine from m_gemmEngine.
    void submitGemmChoice(const LabSettings& settings, const std::shared_ptr<const MeasureClock>& clock);
    // The block kernel's MACs of every point of the sweep at the settings' block size, counted on a worker
    // when the block prediction is on and they are not yet counted for these settings.
    void submitBlockCosts();
    static std::string blockCostKey(const LabSettings& settings);
    void applyBlockMacs(Point& point) const;
    // The x axis over n, which with a grid names the image sizes of the sweep.
    QString sizeAxisLabel() const;

    JobRunner m_jobs{tr("timing sweep")};
    // Mutable: an animation's frame (FrameMark::timingUpTo) paints the points up to its n, put back after.
    mutable std::vector<Point> m_points;
    // Layer mode: where the cost model puts self-attention past the FFN for the measured variant and its
    // parameters (searched on a worker when the sweep starts).
    std::optional<Crossover> m_modelCrossover;
    std::optional<GemmChoice> m_gemm;
    // Written by the sweep's engine job, read by its layer jobs, all on the one worker in order.
    std::shared_ptr<std::atomic<GemmEngine>> m_gemmEngine;
    int m_done = 0;
    int m_total = 0;
    bool m_cancelled = false;
    std::optional<LabSettings> m_pausedFor; // the settings of a sweep paused by hiding the view
    std::optional<LabSettings> m_sweepFor;  // the settings of the points (those of the last sweep started afresh)
    // Block-kernel MACs per (series index, n), counted for the settings of m_blockKey (blockCostKey).
    std::map<std::pair<int, std::int64_t>, double> m_blockMacs;
    std::string m_blockKey;
    JobRunner m_blockJobs{tr("block-kernel costs")};
    std::shared_ptr<const MeasureClock> m_measureClock; // nullptr: systemMeasureClock()
    QElapsedTimer m_clock;     // since the sweep started
    double m_sweepSeconds = 0; // wall time of the finished sweep
};

} // namespace attnlab
