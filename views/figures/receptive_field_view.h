#pragma once

#include "views/figures/figure_view.h"
#include "views/figures/grid_query.h"
#include "views/jobs/job_runner.h"

#include <QColor>

#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace attnlab {

// How far a stack of L layers that all use the chosen pattern reaches (residual connections: input j
// reaches query i after l layers iff j is within l hops of i). Left: hops(i, j) as a heatmap with one
// colour per hop count; right: the fraction of (i, j) pairs reachable and the reach distance vs
// l = 0 … L, with the variant's own statement (VariantInfo::reachTheory) where it is exact. In compare mode every variant gets a heatmap
// and a curve. Computed on a worker from core/analysis/receptive_field.h.
class ReceptiveFieldView : public FigureView {
    Q_OBJECT
public:
    explicit ReceptiveFieldView(QWidget* parent = nullptr);
    ~ReceptiveFieldView() override;

    QString viewName() const override { return QStringLiteral("reach"); }
    QString title() const override;
    QString caption() const override;
    void drawFigure(QPainter& painter, const QRectF& rect) const override;
    // layer, variant, params, fraction_reachable, mean_reach, max_reach, sources — one row per variant and l.
    QString csvData() const override;
    bool busy() const override { return m_jobs.busy() || m_grid.busy(); }

    // Up to this n every query is measured and the heatmap comes from the exact n × n hop matrix; above
    // it kSampledQueries evenly spaced queries (first and last included) give the curves and the heatmap rows.
    static constexpr std::int64_t kMaxHopMatrixN = 1024;
    // As many as the heatmap has columns: square cells, so a diagonal stays one unbroken line.
    static constexpr std::int64_t kSampledQueries = 512;
    // Heatmap columns (and rows up to kMaxHopMatrixN) at most; larger n are shown as blocks holding their fewest hops.
    static constexpr std::int64_t kHeatmapCells = 512;
    // The maxSources the view passes to reachCurve for a pattern of size n.
    static std::int64_t reachSources(std::int64_t n) { return n <= kMaxHopMatrixN ? n : kSampledQueries; }

    // Colour of a cell `hops` layers away in a stack of `layers`; layers + 1 means unreachable. The colours
    // run over 1 … `scale` layers (default `layers`): an animation over L keeps the colours of its largest L.
    static QRgb hopColor(int hops, int layers, int scale = 0);

    // For tests and hover: number of heatmaps, and where heatmap `index` is drawn when the figure fills `rect`.
    int panelCount() const;
    QRectF heatmapRect(const QRectF& rect, int index) const;
    // The query rows and key columns (half-open) one heatmap cell stands for, and the fewest hops it holds.
    struct CellInfo {
        std::int64_t row0 = 0, row1 = 0, col0 = 0, col1 = 0;
        int hops = 0;
    };
    std::optional<CellInfo> cellAt(const QRectF& rect, const QPointF& pixel, int* panel = nullptr) const;
    // The grid view (with a token grid of n cells): the cells the query cell reaches in 1 … L layers,
    // above each heatmap. The query's position, the box panel `index`'s picture is laid out in (empty
    // without a grid), the picture shown, and moving the query (its pictures computed on a worker).
    bool hasGrid() const;
    std::int64_t gridQuery() const { return m_grid.query(); }
    QRectF gridRect(const QRectF& rect, int index) const;
    std::shared_ptr<const GridPicture> gridPicture(int index) const;
    void setGridQuery(std::int64_t query);

    struct Panel;
    struct Snapshot;

protected:
    void mouseMoveEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    bool needsWork(const LabSettings& before, const LabSettings& after) const override;
    void startWork() override;
    bool cancelWork() override {
        m_jobs.bumpGeneration();
        m_grid.cancel();
        return true;
    }
    void paintHeatmap(QPainter& painter, const Panel& panel, const QRectF& plot) const;
    void paintHopLegend(QPainter& painter, const QRectF& box) const;
    void paintCurves(QPainter& painter, const QRectF& area) const;
    void paintGridPanel(QPainter& painter, int index, const QRectF& box) const;
    std::optional<std::int64_t> gridHit(const QPointF& pixel) const;
    // The height of a panel name `room` pixels wide: one line, or two when a compared name needs them.
    double nameHeight(double room) const;
    // Where panel `index`'s grid picture (empty without a grid) and heatmap go when the figure fills `rect`.
    std::pair<QRectF, QRectF> panelBoxes(const QRectF& rect, int index) const;

    JobRunner m_jobs{tr("receptive field")};
    std::shared_ptr<const Snapshot> m_snapshot;
    GridQuery m_grid{tr("grid reach")};
};

} // namespace attnlab
