#include "views/figures/receptive_field_view.h"

#include "views/figures/reach_snapshot.h"

#include <QMouseEvent>
#include <QToolTip>

#include <algorithm>

namespace attnlab {

// Data and interaction: the hovered heatmap cell, its tooltip, the CSV.

std::optional<ReceptiveFieldView::CellInfo> ReceptiveFieldView::cellAt(const QRectF& rect, const QPointF& pixel, int* panelIndex) const {
    if (!m_snapshot) return std::nullopt;
    for (int index = 0; index < static_cast<int>(m_snapshot->panels.size()); ++index) {
        const Panel& panel = m_snapshot->panels[index];
        const QRectF plot = heatmapRect(rect, index);
        if (panel.cells.empty() || !plot.contains(pixel)) continue;
        const int x = std::clamp(static_cast<int>((pixel.x() - plot.left()) / plot.width() * panel.cols), 0, panel.cols - 1);
        const int y = std::clamp(static_cast<int>((pixel.y() - plot.top()) / plot.height() * panel.rows), 0, panel.rows - 1);
        CellInfo cell;
        cell.col0 = blockStart(x, panel.cols, panel.n);
        cell.col1 = blockStart(x + 1, panel.cols, panel.n);
        cell.row0 = panel.sampledRows ? sampledRow(y, panel.rows, panel.n) : blockStart(y, panel.rows, panel.n);
        cell.row1 = panel.sampledRows ? cell.row0 + 1 : blockStart(y + 1, panel.rows, panel.n);
        cell.hops = panel.cells[static_cast<std::size_t>(y) * panel.cols + x];
        if (panelIndex) *panelIndex = index;
        return cell;
    }
    return std::nullopt;
}

// ---------------------------------------------------------------------------------------------------
// Painting (one path for the screen and every export)


QString ReceptiveFieldView::csvData() const {
    QString csv = QStringLiteral("layer,variant,params,fraction_reachable,mean_reach,max_reach,sources\n");
    if (!m_snapshot) return csv;
    for (const auto& panel : m_snapshot->panels)
        for (std::size_t l = 0; l < panel.curve.fractionReachable.size(); ++l)
            csv += QStringLiteral("%1,%2,\"%3\",%4,%5,%6,%7\n")
                       .arg(l)
                       .arg(QString::fromStdString(panel.choice.variant), panel.paramsText)
                       .arg(panel.curve.fractionReachable[l], 0, 'g', 17)
                       .arg(panel.curve.meanReachDistance[l], 0, 'g', 17)
                       .arg(panel.curve.maxReachDistance[l], 0, 'g', 17)
                       .arg(panel.curve.sources.size());
    return csv;
}

void ReceptiveFieldView::mouseMoveEvent(QMouseEvent* event) {
    int index = 0;
    const auto cell = cellAt(layoutRect(), toLayout(event->position()), &index);
    if (!cell) {
        QToolTip::hideText();
        return;
    }
    const Panel& panel = m_snapshot->panels[index];
    const auto span = [](std::int64_t begin, std::int64_t end) {
        return end - begin == 1 ? QString::number(begin) : QStringLiteral("%1–%2").arg(begin).arg(end - 1);
    };
    const QString hops = cell->hops == 0               ? ReceptiveFieldView::tr("the query itself (0 layers)")
                         : cell->hops > panel.layers ? ReceptiveFieldView::tr("not reached within %1 layers").arg(panel.layers)
                                                     : ReceptiveFieldView::tr("reached after %1 layer(s)").arg(cell->hops);
    const QString text = ReceptiveFieldView::tr("%1: query i = %2, key j = %3: %4")
                             .arg(panel.name, span(cell->row0, cell->row1), span(cell->col0, cell->col1), hops);
    QToolTip::showText(event->globalPosition().toPoint(), text, this);
    emit statusMessage(text);
}

} // namespace attnlab
