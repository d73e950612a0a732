// The pattern view's grid view: the picture of what the query cell attends above each matrix, and the
// query's moves (hover a matrix row, click a cell, arrow keys).
#include "views/figures/pattern_view.h"

#include <QKeyEvent>
#include <QPainter>

namespace attnlab {

QRectF PatternView::gridRect(const QRectF& rect, int index) const {
    if (!hasGrid()) return {};
    const QRectF plot = plotRect(rect, index);
    const QRectF content = contentRect(rect);
    const double top = content.top() + (panelCount() > 1 ? compareNameHeight(content) : 0.0);
    const double height = std::max(0.0, plot.top() - kAxisMargin - 6 - top);
    // One panel: the band spans the figure's width (a video's frames side by side); compared panels: their column.
    if (panelCount() == 1) return QRectF(content.left(), top, content.width(), height);
    return QRectF(plot.left() - kAxisMargin, top, plot.width() + kAxisMargin, height);
}

std::shared_ptr<const GridPicture> PatternView::gridPicture(int index) const { return m_grid.picture(index); }

std::optional<std::int64_t> PatternView::markedRow(const Panel& panel) const {
    if (m_frameMark.decodeStep) return m_frameMark.decodeStep; // an animation's new token, then its query row
    if (!hasGrid()) return m_frameMark.queryRow ? m_frameMark.queryRow : m_highlightRow;
    // The query cell (an animation's, the clicked row's, else the grid query) in the panel's own order.
    const std::int64_t query = m_frameMark.queryRow.value_or(m_highlightRow.value_or(m_grid.query()));
    return panel.ownPosition(*m_snapshot->grid, query);
}

std::int64_t PatternView::queryOfRow(int index, std::int64_t row) const {
    if (!hasGrid() || index < 0 || index >= static_cast<int>(m_snapshot->panels.size())) return row;
    const Panel& panel = m_snapshot->panels[static_cast<std::size_t>(index)];
    return panel.grid ? cellPosition(*panel.grid, row, *m_snapshot->grid) : row;
}

void PatternView::setGridQuery(std::int64_t query) {
    if (!hasGrid()) return;
    const auto build = [snapshot = m_snapshot](std::int64_t moved) {
        GridQuery::Pictures pictures;
        for (const auto& panel : snapshot->panels)
            pictures.push_back(panel.pattern ? std::make_shared<const GridPicture>(panelGridPicture(panel, *snapshot->grid, moved)) : nullptr);
        return pictures;
    };
    if (m_grid.move(query, m_snapshot->grid->cells(), build, [this] { scheduleRepaint(); })) scheduleRepaint();
}

std::optional<std::int64_t> PatternView::gridHit(const QPointF& pixel) const {
    if (!hasGrid()) return std::nullopt;
    for (int index = 0; index < panelCount(); ++index)
        if (const auto cell = GridLayout(*m_snapshot->grid, gridRect(layoutRect(), index)).cellAt(pixel))
            return m_snapshot->grid->positionOf(*cell);
    return std::nullopt;
}

QString PatternView::gridHoverText(std::int64_t position) const {
    const TokenGrid& grid = *m_snapshot->grid;
    return PatternView::tr("cell %1 = position %2 (%3)\nclick: make it the query")
        .arg(gridCellText(grid, grid.cellAt(position)))
        .arg(position)
        .arg(gridDescription(grid));
}

void PatternView::paintGridPanel(QPainter& painter, int index, const QRectF& box) const {
    const auto picture = gridPicture(index);
    if (!picture || box.height() < 8) return;
    paintGridPicture(painter, *picture, *m_snapshot->grid, box);
}

void PatternView::keyPressEvent(QKeyEvent* event) {
    if (!hasGrid() || !isGridStepKey(event->key())) {
        FigureView::keyPressEvent(event);
        return;
    }
    m_highlightRow.reset();
    setGridQuery(steppedQuery(*m_snapshot->grid, m_grid.query(), event->key()));
    event->accept();
}

} // namespace attnlab
