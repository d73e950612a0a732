#pragma once

#include "views/figures/figure_view.h"
#include "views/jobs/job_runner.h"

#include "core/analysis/accuracy.h"

#include <cstdint>
#include <memory>

namespace attnlab {

// How far the approximations are from exact softmax attention on the current inputs: the relative
// error ‖out − out_full‖_F / ‖out_full‖_F over all heads for every sweep the variants declare
// (VariantInfo::accuracySweeps: performer vs its random features, linformer vs k, LSH vs rounds; the
// linear kernels as reference lines). Computed by core/analysis/accuracy.h on a worker.
class AccuracyView : public FigureView {
    Q_OBJECT
public:
    explicit AccuracyView(QWidget* parent = nullptr);
    ~AccuracyView() override;

    QString viewName() const override { return QStringLiteral("accuracy"); }
    QString title() const override;
    QString caption() const override;
    void paintFigure(QPainter& painter, const QRectF& rect) const override;
    // family, parameter, value, relative_error, seeds, min_error, max_error — one row per measurement.
    QString csvData() const override;
    bool busy() const override { return m_jobs.busy(); }

    // One point of the figure: a budget sweep's value (x > 0) or a reference line (x = 0).
    using Measurement = AccuracyMeasurement;
    struct Snapshot;

private:
    bool needsWork(const LabSettings& before, const LabSettings& after) const override;
    void startWork() override;
    bool cancelWork() override {
        m_jobs.bumpGeneration();
        return true;
    }
    void paintKey(QPainter& painter, const QRectF& box) const;

    JobRunner m_jobs{tr("accuracy")};
    std::shared_ptr<const Snapshot> m_snapshot;
};

} // namespace attnlab
