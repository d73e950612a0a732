#include "views/flops_view.h"

#include <QPainter>

namespace attnlab {

FlopsView::FlopsView(QWidget* parent) : FigureView(parent) {}

QString FlopsView::title() const { return QStringLiteral("FLOP breakdown"); }

void FlopsView::paintFigure(QPainter& painter, const QRectF& rect) const
{
    painter.fillRect(rect, Qt::white);
    painter.drawText(rect, Qt::AlignCenter, title());
}

QString FlopsView::csvData() const { return QString(); }

void FlopsView::setSettings(const LabSettings& settings)
{
    m_settings = settings;
    update();
}

void FlopsView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    paintFigure(painter, rect());
}

} // namespace attnlab
