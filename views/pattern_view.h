#pragma once

#include "views/figure_view.h"
#include "views/job_runner.h"

#include "core/pattern.h"

#include <QHash>
#include <QImage>
#include <QTimer>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace attnlab {

// One cell of the n × n plane: query row i, key column j.
struct PlaneCell {
    std::int64_t i = 0;
    std::int64_t j = 0;
    bool operator==(const PlaneCell&) const = default;
};

// Integer block [row0, row1) × [col0, col1) of the plane.
struct PlaneRegion {
    std::int64_t row0 = 0, row1 = 0, col0 = 0, col1 = 0;
    bool operator==(const PlaneRegion&) const = default;
};

// The view maths of a square heatmap of the n × n plane drawn in a square plot rectangle (widget
// pixels): zoom 1 shows the whole plane; zoom z shows n / z cells per axis starting at the fractional
// cell `origin` (x = column, y = row). Rows grow downwards, columns to the right.
class PlaneViewport {
public:
    PlaneViewport() = default;
    PlaneViewport(std::int64_t n, const QRectF& plot) : m_n(n), m_plot(plot) {}

    std::int64_t n() const { return m_n; }
    const QRectF& plot() const { return m_plot; }
    void setPlot(const QRectF& plot) { m_plot = plot; }
    double zoom() const { return m_zoom; }
    QPointF origin() const { return m_origin; }

    double visibleCells() const { return static_cast<double>(m_n) / m_zoom; }
    double cellSize() const { return m_plot.width() / visibleCells(); } // pixels per cell
    // The cell under a pixel, or nothing outside the plot.
    std::optional<PlaneCell> cellAt(const QPointF& pixel) const;
    QRectF cellRect(const PlaneCell& cell) const;
    QRectF regionRect(const PlaneRegion& region) const;
    // Smallest integer region covering what the plot shows.
    PlaneRegion visibleRegion() const;

    // Zooms by `factor` keeping the cell under `pixel` fixed; zoom stays in [1, max(1, n / 4)].
    void zoomAt(const QPointF& pixel, double factor);
    void panByPixels(const QPointF& delta);
    void setView(double zoom, const QPointF& origin);
    void reset() { setView(1.0, QPointF(0, 0)); }

private:
    void clampOrigin();

    std::int64_t m_n = 1;
    QRectF m_plot;
    double m_zoom = 1.0;
    QPointF m_origin{0, 0};
};

// The pattern view: the allowed set M of one head as a heatmap, or the effective weights W, or both
// (mask outline over weights); 2–4 variants side by side in compare mode, with the same inputs.
// Hover names the cell, a click highlights a query row, the wheel zooms and a drag pans. Patterns are
// drawn from density images of the visible region (from row ranges, never an n × n buffer), computed
// on a worker and cached per region.
class PatternView : public FigureView {
    Q_OBJECT
public:
    explicit PatternView(QWidget* parent = nullptr);
    ~PatternView() override;

    QString viewName() const override { return QStringLiteral("pattern"); }
    QString title() const override;
    void paintFigure(QPainter& painter, const QRectF& rect) const override;
    QString csvData() const override;
    bool busy() const override;
    void setSettings(const LabSettings& settings) override;

    // Largest n for which the effective weights are computed (they need an n × n matrix).
    static constexpr std::int64_t kMaxWeightsN = 2048;

    // For tests and automation.
    const PlaneViewport& viewport() const { return m_viewport; }
    void setViewport(double zoom, const QPointF& origin);
    // The plot rectangle of panel `index` when the figure fills `rect`.
    QRectF plotRect(const QRectF& rect, int index) const;
    int panelCount() const;
    // The cell under a widget pixel and the panel it belongs to.
    std::optional<std::pair<int, PlaneCell>> hitTest(const QPointF& pixel) const;
    QString hoverText(int panel, const PlaneCell& cell) const;
    std::optional<std::int64_t> highlightedRow() const { return m_highlightRow; }
    // Size of the image panel `index` is painted from: the density tile of the visible region (at most
    // the plot's device pixels per side, whatever n is) or, in weights mode, the n × n weights image.
    // Empty while there is none.
    QSize heatmapImageSize(int index) const;
    QString errorText() const;

protected:
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;

public:
    struct Panel;
    struct Snapshot;
    struct Tile;

private:
    void startSnapshotJob();
    void requestTiles();
    void scheduleRepaint();
    void updateBusy();
    void syncViewportToWidget();
    void paintPanel(QPainter& painter, const Panel& panel, int index, const QRectF& area, const QRectF& plot) const;
    void paintHeatmap(QPainter& painter, const Panel& panel, int index, const PlaneViewport& view) const;
    void paintOverlays(QPainter& painter, const Panel& panel, const PlaneViewport& view) const;
    void paintAxes(QPainter& painter, const PlaneViewport& view) const;
    void paintStats(QPainter& painter, const Panel& panel, const QRectF& box, bool cellLevel) const;
    void paintLegend(QPainter& painter, const QRectF& box, bool weights, bool cellLevel) const;
    const Tile* bestTile(int index) const;

    JobRunner m_jobs;      // snapshots: patterns, stats, weights
    JobRunner m_tileJobs;  // density images of the visible region
    std::shared_ptr<const Snapshot> m_snapshot;
    // Per panel, the most recent density images (newest last), reused when the view returns to a region.
    std::vector<std::vector<std::shared_ptr<const Tile>>> m_tiles;
    PlaneViewport m_viewport;
    QTimer m_repaintTimer;
    bool m_wasBusy = false;
    std::optional<std::int64_t> m_highlightRow;
    std::optional<QPointF> m_dragStart;
    bool m_dragged = false;
};

} // namespace attnlab
