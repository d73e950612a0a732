#pragma once

#include "views/figures/figure_view.h"
#include "views/figures/inference_decode.h"

#include "core/analysis/inference.h"

#include <vector>

namespace attnlab {

class PlotAxes;

// Generating text one token at a time. Left: the KV cache (or recurrent state) of one layer and of the
// whole model (LabSettings::modelLayers) vs context length n, log-log, for the reference set of
// inferenceChoices() under the settings' h, h_kv and d, with the memory budget as a horizontal line and,
// per curve, the context at which the model's cache outgrows it. Right: the measured time of one decoding
// step vs n for the same curves. The cache is closed-form (one job); every timed (curve, n) is its own job,
// so the right panel fills in as points arrive, and Cancel keeps the points measured so far.
class InferenceView : public FigureView {
    Q_OBJECT
public:
    explicit InferenceView(QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("inference"); }
    QString title() const override;
    QString caption() const override;
    void paintFigure(QPainter& painter, const QRectF& rect) const override;
    QString csvData() const override;
    bool busy() const override { return m_jobs.busy() || m_decode.busy(); }

    // The plotted data, for tests and export.
    const std::vector<KvCacheCurve>& curves() const { return m_curves; }
    const std::vector<DecodeTiming>& timings() const { return m_timings; }
    double budgetBytes() const { return m_budget; }

private:
    bool needsWork(const LabSettings& before, const LabSettings& after) const override;
    void startWork() override;
    bool cancelWork() override;
    void frameMarkChanged() override;
    void paintCache(QPainter& painter, const QRectF& area) const;
    void paintTiming(QPainter& painter, const QRectF& area) const;
    void paintBudget(QPainter& painter, const PlotAxes& axes) const;

    std::vector<InferenceChoice> m_choices;
    std::vector<KvCacheCurve> m_curves;
    std::vector<DecodeTiming> m_timings;
    double m_budget = 0;
    int m_maxLog2 = 20;
    int m_total = 0;
    JobRunner m_jobs{tr("decoding steps")};
    InferenceDecode m_decode; // an animation's decoding step
};

} // namespace attnlab
