#pragma once

#include "views/figures/figure_view.h"
#include "views/figures/inference_decode.h"

#include "core/analysis/inference.h"

#include <optional>
#include <vector>

namespace attnlab {

class PlotAxes;

// Generating text one token at a time, for the reference set of inferenceChoices() under the settings' h,
// h_kv, d and cache precision. Top left: the KV cache (or recurrent state) of one layer and of the whole
// model (LabSettings::modelLayers) vs context length n, log-log, with the memory budget as a horizontal
// line and, per curve, the context at which the model's cache outgrows it. Top right: the measured time of
// one decoding step vs n. Bottom right: the bandwidth at which those steps read their caches, beside this
// machine's triad (its memory roof). Bottom left: chunked prefill, the time to the first token of a prompt
// of n tokens run through the attention core in chunks of c queries, vs c. The cache is closed-form (one
// job); every timed point is its own job, so the panels fill in as points arrive, and Cancel keeps the
// points measured so far. Points whose threads got too little CPU are ringed and left out of the fits.
class InferenceView : public FigureView {
    Q_OBJECT
public:
    explicit InferenceView(QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("inference"); }
    QString title() const override;
    QString caption() const override;
    void drawFigure(QPainter& painter, const QRectF& rect) const override;
    QString csvData() const override;
    bool busy() const override { return m_jobs.busy() || m_decode.busy(); }

    // The plotted data, for tests and export.
    const std::vector<KvCacheCurve>& curves() const { return m_curves; }
    const std::vector<DecodeTiming>& timings() const { return m_timings; }
    const std::vector<PrefillTiming>& prefills() const { return m_prefills; }
    const std::optional<PeakResult>& peak() const { return m_peak; }
    double budgetBytes() const { return m_budget; }

private:
    bool needsWork(const LabSettings& before, const LabSettings& after) const override;
    void startWork() override;
    bool cancelWork() override;
    void frameMarkChanged() override;
    void paintCache(QPainter& painter, const QRectF& area) const;
    void paintTiming(QPainter& painter, const QRectF& area) const;
    void paintBandwidth(QPainter& painter, const QRectF& area) const;
    void paintPrefill(QPainter& painter, const QRectF& area) const;
    void paintBudget(QPainter& painter, const PlotAxes& axes) const;
    QString cacheLegendText(const KvCacheCurve& curve) const;
    // Series k's valid decoding steps, by n.
    std::vector<DecodeTiming> seriesTimings(int series) const;
    // The precision's name as the figures state it, e.g. "float16".
    QString precisionText() const;
    // Choice k's colour: its variant's (views/plot/variant_colors.h), shaded where a variant repeats.
    QColor choiceColor(std::size_t k) const;

    std::vector<InferenceChoice> m_choices;
    std::vector<KvCacheCurve> m_curves;
    std::vector<DecodeTiming> m_timings;
    std::vector<PrefillTiming> m_prefills;
    std::optional<PeakResult> m_peak;
    double m_budget = 0;
    int m_maxLog2 = 20;
    int m_total = 0;
    JobRunner m_jobs{tr("decoding steps")};
    InferenceDecode m_decode; // an animation's decoding step
};

} // namespace attnlab
