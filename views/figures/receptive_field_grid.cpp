// The receptive-field view's grid view: the cells the query cell reaches in 1 … L layers, above each
// heatmap, and the query's moves (click a cell, arrow keys).
#include "views/figures/reach_snapshot.h"
#include "views/figures/receptive_field_view.h"

#include <QFontMetricsF>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>

namespace attnlab {

namespace {

constexpr double kGridCaption = 13.0; // the line under each grid picture

} // namespace

bool ReceptiveFieldView::hasGrid() const { return m_snapshot && m_snapshot->grid; }

std::shared_ptr<const GridPicture> ReceptiveFieldView::gridPicture(int index) const { return m_grid.picture(index); }

void ReceptiveFieldView::setGridQuery(std::int64_t query) {
    if (!hasGrid()) return;
    const auto build = [snapshot = m_snapshot](std::int64_t moved) {
        GridQuery::Pictures pictures;
        for (const auto& panel : snapshot->panels)
            pictures.push_back(panel.picture ? std::make_shared<const GridPicture>(panelHopPicture(*snapshot, panel, moved)) : nullptr);
        return pictures;
    };
    if (m_grid.move(query, m_snapshot->grid->cells(), build, [this] { update(); })) update();
}

std::optional<std::int64_t> ReceptiveFieldView::gridHit(const QPointF& pixel) const {
    if (!hasGrid()) return std::nullopt;
    for (int index = 0; index < panelCount(); ++index) {
        const QRectF box = gridRect(rect(), index).adjusted(0, 0, 0, -kGridCaption);
        if (const auto cell = GridLayout(*m_snapshot->grid, box).cellAt(pixel)) return m_snapshot->grid->positionOf(*cell);
    }
    return std::nullopt;
}

void ReceptiveFieldView::paintGridPanel(QPainter& painter, int index, const QRectF& box) const {
    const auto picture = gridPicture(index);
    if (!picture || box.height() < kGridCaption + 8) return;
    const TokenGrid& grid = *m_snapshot->grid;
    paintGridPicture(painter, *picture, grid, box.adjusted(0, 0, 0, -kGridCaption));
    painter.save();
    QFont font = painter.font();
    font.setPointSizeF(7.5);
    painter.setFont(font);
    painter.setPen(QColor(0x30, 0x30, 0x30));
    const QString text = ReceptiveFieldView::tr("from query cell %1 = position %2: %3 of %4 cells within %5 layers")
                             .arg(gridCellText(grid, picture->cell))
                             .arg(picture->query)
                             .arg(picture->attended)
                             .arg(grid.cells())
                             .arg(m_settings.layers);
    painter.drawText(QRectF(box.left(), box.bottom() - kGridCaption, box.width(), kGridCaption), Qt::AlignHCenter | Qt::AlignVCenter,
                     QFontMetricsF(font, painter.device()).elidedText(text, Qt::ElideRight, box.width()));
    painter.restore();
}

void ReceptiveFieldView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    if (const auto position = gridHit(event->position())) setGridQuery(*position);
}

void ReceptiveFieldView::keyPressEvent(QKeyEvent* event) {
    if (!hasGrid() || !isGridStepKey(event->key())) {
        FigureView::keyPressEvent(event);
        return;
    }
    setGridQuery(steppedQuery(*m_snapshot->grid, m_grid.query(), event->key()));
    event->accept();
}

} // namespace attnlab
