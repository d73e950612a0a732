#pragma once

#include "core/cost_model.h"
#include "views/figure_view.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

// Where a layer's multiply-adds go as n grows (cost model, closed form): the stacked share of each
// term vs n for the chosen variant with markers at n = 2hd and n = 6hd, and every registry variant's
// attention-core cost at the current n. Costs are computed on the UI thread from a cache; sparse
// patterns cost O(nnz) once per shape.
class FlopsView : public FigureView {
    Q_OBJECT
public:
    explicit FlopsView(QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("flops"); }
    QString title() const override;
    QString caption() const override;
    void paintFigure(QPainter& painter, const QRectF& rect) const override;
    QString csvData() const override;
    void setSettings(const LabSettings& settings) override;

    // The plotted data, for tests and export.
    struct SweepPoint {
        std::int64_t n = 0;
        LayerCost cost;
    };
    struct CoreBar {
        std::string variant;
        double attentionMacs = 0;
        bool chosen = false;
    };
    const std::vector<SweepPoint>& sweep() const { return m_sweep; }
    const std::vector<CoreBar>& bars() const { return m_bars; }
    // Stacking order of the layer terms (bottom to top) for the current sweep.
    const std::vector<std::string>& stackedTerms() const { return m_terms; }

private:
    std::optional<LayerCost> cachedCost(const std::string& variant, const ParamOverrides& overrides,
                                        std::int64_t n) const;
    void rebuild();
    double unitFactor() const { return m_settings.flopsAsMacs ? 1.0 : 2.0; }
    QString unitName() const;
    void paintStack(QPainter& painter, const QRectF& area) const;
    void paintBars(QPainter& painter, const QRectF& area) const;

    std::vector<SweepPoint> m_sweep;
    std::vector<CoreBar> m_bars;
    std::vector<std::string> m_terms;
    std::optional<LayerCost> m_current; // the chosen variant at the current n
    QString m_error;
    // Costs by variant, overrides, shape; only ever touched on the UI thread.
    mutable std::map<std::string, std::optional<LayerCost>> m_cache;
};

} // namespace attnlab
