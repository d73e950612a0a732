#pragma once

#include "views/figures/figure_view.h"

#include "core/analysis/inference.h"

#include <optional>
#include <vector>

namespace attnlab {

class PlotAxes;

// This machine's roofline, log-log: attainable GFLOP/s = min(FMA peak, intensity × triad bandwidth),
// both measured once per session on a worker (sessionMachinePeak). Under it, each chosen variant's
// prefill (a full forward at n) and its decoding step at context n, each at (arithmetic intensity =
// 2·MACs / bytes_min, measured GFLOP/s), so the decoding step's place left of the ridge shows it is
// bound by memory. One job for the peak, then one per point.
class RooflineView : public FigureView {
    Q_OBJECT
public:
    explicit RooflineView(QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("roofline"); }
    QString title() const override;
    QString caption() const override;
    void drawFigure(QPainter& painter, const QRectF& rect) const override;
    QString csvData() const override;
    bool busy() const override { return m_jobs.busy(); }

    // The plotted data, for tests and export.
    const std::optional<PeakResult>& peak() const { return m_peak; }
    const std::vector<RooflineMeasurement>& points() const { return m_points; }

private:
    bool needsWork(const LabSettings& before, const LabSettings& after) const override;
    void startWork() override;
    bool cancelWork() override;
    void paintRoof(const PlotAxes& axes, double xMin, double xMax) const;
    void paintPoints(const PlotAxes& axes, QPainter& painter) const;

    std::optional<PeakResult> m_peak;
    std::vector<RooflineMeasurement> m_points;
    JobRunner m_jobs{tr("roofline")};
};

} // namespace attnlab
