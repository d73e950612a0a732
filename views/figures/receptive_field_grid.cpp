// The receptive-field view's grid view: the cells the query cell reaches in 1 … L layers, above each
// heatmap, and the query's moves (click a cell, arrow keys).
#include "views/figures/reach_snapshot.h"
#include "views/figures/receptive_field_view.h"
#include "views/plot/animation_frame.h"
#include "views/plot/figure_text.h"
#include "views/plot/plot_axes.h"
#include "views/plot/text_style.h"

#include <QFontMetricsF>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QPainter>

#include <map>

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
        const QRectF box = gridRect(layoutRect(), index).adjusted(0, 0, 0, -kGridCaption);
        if (const auto cell = GridLayout(*m_snapshot->grid, box).cellAt(pixel)) return m_snapshot->grid->positionOf(*cell);
    }
    return std::nullopt;
}

QImage heldHopColours(const QImage& image, int layers, int scale) {
    if (scale <= layers) return image;
    std::map<QRgb, QRgb> held;
    for (int hops = 1; hops <= layers; ++hops)
        held[ReceptiveFieldView::hopColor(hops, layers)] = ReceptiveFieldView::hopColor(hops, layers, scale);
    QImage result = image.convertToFormat(QImage::Format_RGB32);
    for (int y = 0; y < result.height(); ++y) {
        auto* line = reinterpret_cast<QRgb*>(result.scanLine(y));
        for (int x = 0; x < result.width(); ++x)
            if (const auto found = held.find(line[x]); found != held.end()) line[x] = found->second;
    }
    return result;
}

void ReceptiveFieldView::paintGridPanel(QPainter& painter, int index, const QRectF& box) const {
    auto picture = gridPicture(index);
    if (!picture || box.height() < kGridCaption + 8) return;
    const TokenGrid& grid = *m_snapshot->grid;
    const int layers = static_cast<int>(m_settings.layers);
    if (const int scale = heldScaleMaximum(kHopScale, layers); scale != layers) {
        GridPicture held = *picture;
        held.image = heldHopColours(picture->image, layers, scale);
        picture = std::make_shared<const GridPicture>(std::move(held));
    }
    paintGridPicture(painter, *picture, grid, box.adjusted(0, 0, 0, -kGridCaption));
    painter.save();
    QFont font = painter.font();
    font.setPointSizeF(smallPrintPoints(7.5));
    painter.setFont(font);
    painter.setPen(QColor(0x30, 0x30, 0x30));
    const QString text = ReceptiveFieldView::tr("from query cell %1 = position %2: %3 of %4 cells within %5 layers")
                             .arg(gridCellText(grid, picture->cell))
                             .arg(picture->query)
                             .arg(picture->attended)
                             .arg(grid.cells())
                             .arg(m_settings.layers);
    // A compared panel's narrow column gets the short form (the layers are in the caption).
    const QString shortText = ReceptiveFieldView::tr("query %1: %2 of %3 cells").arg(gridCellText(grid, picture->cell)).arg(picture->attended).arg(grid.cells());
    const bool fits = QFontMetricsF(font, painter.device()).horizontalAdvance(text) <= box.width();
    drawFittedText(painter, QRectF(box.left(), box.bottom() - kGridCaption, box.width(), kGridCaption), Qt::AlignHCenter | Qt::AlignVCenter,
                   fits ? text : shortText);
    painter.restore();
}

void ReceptiveFieldView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    if (const auto position = gridHit(toLayout(event->position()))) setGridQuery(*position);
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
