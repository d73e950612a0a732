#pragma once

#include "views/figures/figure_view.h"
#include "views/figures/grid_query.h"
#include "views/figures/pattern_decode.h"
#include "views/figures/pattern_snapshot.h"
#include "views/jobs/job_runner.h"
#include "views/plot/plane_viewport.h"

#include "core/patterns/pattern.h"

#include <QStringList>
#include <QTimer>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace attnlab {

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
    void drawFigure(QPainter& painter, const QRectF& rect) const override;
    QString csvData() const override;
    bool busy() const override;

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
    // Why the tokens of the settings do not label the axes (their count is not n); empty when they do or
    // there are none.
    QString tokenNote() const;
    // The allowed cells of panel `index` (-1 while there is no pattern).
    std::int64_t nnzOf(int index) const;
    // The block counts of panel `index` when the block view is on (settings.blockView > 0).
    std::optional<BlockCounts> blockCountsOf(int index) const;
    // The colours and terms of panel `index`'s components, as its legend shows them; empty when the panel
    // is not drawn by component.
    std::vector<ComponentLegendEntry> componentLegend(int index) const;
    // The grid view (with a token grid of n cells): the query cell's position, the box panel `index`'s
    // picture is laid out in when the figure fills `rect` (empty without a grid), the picture shown, and
    // moving the query (clamped to the grid; its pictures are computed on a worker).
    bool hasGrid() const { return m_snapshot && m_snapshot->grid; }
    std::int64_t gridQuery() const { return m_grid.query(); }
    QRectF gridRect(const QRectF& rect, int index) const;
    std::shared_ptr<const GridPicture> gridPicture(int index) const;
    void setGridQuery(std::int64_t query);

protected:
    bool needsWork(const LabSettings& before, const LabSettings& after) const override;
    void startWork() override;
    bool cancelWork() override;
    void frameMarkChanged() override;
    void mouseMoveEvent(QMouseEvent* event) override;
    void mousePressEvent(QMouseEvent* event) override;
    void mouseReleaseEvent(QMouseEvent* event) override;
    void mouseDoubleClickEvent(QMouseEvent* event) override;
    void wheelEvent(QWheelEvent* event) override;
    void resizeEvent(QResizeEvent* event) override;
    void keyPressEvent(QKeyEvent* event) override;

private:
    // Layout shared by the painting and the hit tests.
    static constexpr int kMaxTilesPerPanel = 8;
    static constexpr double kAxisMargin = 34.0;
    // Compare mode: room below each panel for its statistics (up to ~8 wrapped lines) and the colour legend.
    static constexpr double kCompareStatsHeight = 140.0;
    static constexpr double kBlockStatsHeight = 28.0;
    static constexpr double kLegendHeight = 34.0;
    static constexpr double kComponentLegendLine = 13.0;
    // Compare mode: room above each panel for the variant's name and, on a second line, its parameters
    // (compareNameHeight adds a third when some panel's parameters need two).
    static constexpr double kCompareNameHeight = 30.0;
    using Panel = PatternPanel;
    using Snapshot = PatternSnapshot;
    using Tile = PatternTile;

    void startSnapshotJob();
    void requestTiles();
    void scheduleRepaint();
    void updateBusy();
    void syncViewportToWidget();
    void paintPanel(QPainter& painter, const Panel& panel, int index, const QRectF& area, const QRectF& plot, const QRectF& gridBox) const;
    QRectF headingRect(const QRectF& rect, int index, const QRectF& plot, const QRectF& gridBox) const;
    // The heading block's height above each compared panel of the figure's `content` (contentRect).
    double compareNameHeight(const QRectF& content) const;
    static QString panelDetail(const Panel& panel);
    void paintPanelHeading(QPainter& painter, const Panel& panel, const QRectF& block) const;
    void paintHeatmap(QPainter& painter, const Panel& panel, int index, const PlaneViewport& view) const;
    void paintOverlays(QPainter& painter, const Panel& panel, const PlaneViewport& view) const;
    void paintAxes(QPainter& painter, const PlaneViewport& view) const;
    // The statistics' point size, their lines, and in compare mode the height below each matrix they
    // take when wrapped `wrapWidth` wide.
    double statsPoints() const;
    QStringList statsLines(const Panel& panel) const;
    double compareStatsHeight(double wrapWidth) const;
    // compareStatsHeight for the panels of the figure's `content` rectangle (contentRect).
    double comparedStatsHeight(const QRectF& content) const;
    // Weights computed from generated Q and K say so (students read token-labelled weights as a trained
    // model's); empty for Q and K read from files.
    QString syntheticInputNote() const;
    void paintStats(QPainter& painter, const Panel& panel, const QRectF& box, bool cellLevel) const;
    void paintLegend(QPainter& painter, const QRectF& box, bool weights, bool signedWeights, bool cellLevel) const;
    // The colours of the panel's components, one line each, the first component in expression order
    // owning a cell that several contain.
    void paintComponentLegend(QPainter& painter, const Panel& panel, const QRectF& box) const;
    double componentLegendHeight(const Panel& panel, const QRectF& box) const;
    const Tile* bestTile(int index) const;
    // What the frame leaves for the panels when the figure fills `rect`.
    static QRectF contentRect(const QRectF& rect);
    // With a grid, the matrices take this share of the height left for grid and matrix; the grid the rest.
    static constexpr double kGridMatrixShare = 0.6;
    // The grid cell under a widget pixel, as a sequence position.
    std::optional<std::int64_t> gridHit(const QPointF& pixel) const;
    QString gridHoverText(std::int64_t position) const;
    void paintGridPanel(QPainter& painter, int index, const QRectF& box) const;
    // The row marked in a panel's matrix: the clicked row, else the grid's query cell (on a grid, that cell's
    // row in the panel's own order).
    std::optional<std::int64_t> markedRow(const Panel& panel) const;
    // Row `row` of panel `index` as a position in the grid's order (the grid query's), the row itself
    // without a grid.
    std::int64_t queryOfRow(int index, std::int64_t row) const;

    JobRunner m_jobs{tr("pattern")};             // snapshots: patterns, stats, weights
    JobRunner m_tileJobs{tr("pattern tiles")};   // density images of the visible region
    LabSettings m_started; // the settings of the last snapshot started
    std::shared_ptr<const Snapshot> m_snapshot;
    // Per panel, the most recent density images (newest last), reused when the view returns to a region.
    std::vector<std::vector<std::shared_ptr<const Tile>>> m_tiles;
    PlaneViewport m_viewport;
    QTimer m_repaintTimer;
    bool m_wasBusy = false;
    std::optional<std::int64_t> m_highlightRow;
    GridQuery m_grid{tr("grid view")};
    PatternDecode m_decode; // an animation's decoding step
    std::optional<QPointF> m_dragStart;
    bool m_dragged = false;
};

} // namespace attnlab
