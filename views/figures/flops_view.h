#pragma once

#include "views/figures/figure_view.h"

#include "core/analysis/flop_breakdown.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

class PlotAxes;

// Where a layer's multiply-adds go as n grows (cost model, closed form): the stacked share of each
// term vs n for the chosen variant with markers where its crossovers fall (searched in the cost model), and every registry variant's
// attention-core cost at the current n. FLASH's relu2 and mixed_chunk are costed in their own GAU layer,
// with the cost of two GAU layers against one attention + FFN layer drawn under the stack. Costs come from core/analysis/flop_breakdown.h on a worker
// (sparse patterns cost O(nnz) per shape); the view only draws them.
class FlopsView : public FigureView {
    Q_OBJECT
public:
    explicit FlopsView(QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("flops"); }
    QString title() const override;
    QString caption() const override;
    void drawFigure(QPainter& painter, const QRectF& rect) const override;
    QString csvData() const override;
    bool busy() const override { return m_jobs.busy(); }

    // The plotted data, for tests and export.
    using SweepPoint = FlopBreakdown::SweepPoint;
    using CoreBar = FlopBreakdown::CoreBar;
    const std::vector<SweepPoint>& sweep() const { return m_sweep; }
    const std::vector<CoreBar>& bars() const { return m_bars; }
    // Variants without a bar: no form for the causal choice asked (each named below the bars).
    const std::vector<std::string>& leftOut() const { return m_leftOut; }

private:
    bool needsWork(const LabSettings& before, const LabSettings& after) const override;
    void startWork() override;
    bool cancelWork() override {
        m_jobs.bumpGeneration();
        return true;
    }
    double unitFactor() const { return m_settings.flopsAsMacs ? 1.0 : 2.0; }
    QString unitName() const;
    QString exponentialsText() const;
    bool gauLayer() const { return m_layer == LayerKind::Gau; }
    QString sweepAxisLabel() const;
    void paintStack(QPainter& painter, const QRectF& area) const;
    void paintGauComparison(QPainter& painter, const QRectF& area) const;
    // Each bar's colour: its variant's (views/plot/variant_colors.h).
    std::vector<QColor> barColours() const;
    void paintBars(QPainter& painter, const QRectF& area) const;
    void paintBlockBars(QPainter& painter, const PlotAxes& axes, qsizetype categories) const;

    LayerKind m_layer = LayerKind::Standard; // FlopBreakdown::layer
    std::vector<SweepPoint> m_sweep;
    std::vector<CoreBar> m_bars;
    std::vector<std::string> m_leftOut;
    std::vector<std::string> m_terms;
    std::optional<LayerCost> m_current; // the chosen variant at the current n
    LayerCrossovers m_crossovers;       // of the chosen variant, for this case
    QString m_error;
    QString m_note; // FlopBreakdown::note
    JobRunner m_jobs{tr("FLOP counts")};
};

} // namespace attnlab
