#pragma once

#include "views/figures/figure_view.h"
#include "views/jobs/job_runner.h"

#include "core/analysis/accuracy.h"

#include <memory>

class QPainter;

namespace attnlab {

struct Axis;

// How far the approximations are from exact softmax attention on the current inputs, as a lesson on
// where each one works: one panel per method with its own budget axis (VariantInfo::accuracySweeps:
// performer vs random features m, linformer vs projected length k, LSH vs hashing rounds; the linear
// kernels as reference lines) on Q and K multiplied by the input scale s, and a panel of the error vs s
// at each method's fixed budget. The error is that of the output or of the effective weights
// (LabSettings::accuracyOnWeights). Computed by core/analysis/accuracy.h on a worker.
class AccuracyView : public FigureView {
    Q_OBJECT
public:
    explicit AccuracyView(QWidget* parent = nullptr);
    ~AccuracyView() override;

    QString viewName() const override { return QStringLiteral("accuracy"); }
    QString title() const override;
    QString caption() const override;
    void drawFigure(QPainter& painter, const QRectF& rect) const override;
    // panel, family, parameter, value, input_scale, error_measure, relative_error, seeds, min_error,
    // max_error — one row per measurement; panel "budget" (the method's budget sweep at the chosen
    // scale) or "scale" (the error-vs-scale panel).
    QString csvData() const override;
    bool busy() const override { return m_jobs.busy(); }

    using Measurement = AccuracyMeasurement;
    struct Snapshot;

private:
    bool needsWork(const LabSettings& before, const LabSettings& after) const override;
    void startWork() override;
    bool cancelWork() override {
        m_jobs.bumpGeneration();
        return true;
    }
    // accuracy_view_paint.cpp
    void paintBudgetPanel(QPainter& painter, const QRectF& area, const VariantInfo& variant, const Axis& y) const;
    void paintScalePanel(QPainter& painter, const QRectF& area, const Axis& y) const;
    void paintKey(QPainter& painter, const QRectF& box) const;
    // The key's notes (what the error is, each method's caveat, points left out) and its whole height at `width`.
    QString keyNotes() const;
    double keyHeight(const QPainter& painter, double width) const;
    QString measureText() const;

    JobRunner m_jobs{tr("accuracy")};
    std::shared_ptr<const Snapshot> m_snapshot;
};

} // namespace attnlab
