#include "views/accuracy_view.h"

#include <QPainter>

namespace attnlab {

AccuracyView::AccuracyView(QWidget* parent) : FigureView(parent) {}

QString AccuracyView::title() const { return QStringLiteral("Accuracy"); }

void AccuracyView::paintFigure(QPainter& painter, const QRectF& rect) const
{
    painter.fillRect(rect, Qt::white);
    painter.drawText(rect, Qt::AlignCenter, title());
}

QString AccuracyView::csvData() const { return QString(); }

void AccuracyView::setSettings(const LabSettings& settings)
{
    m_settings = settings;
    update();
}

void AccuracyView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    paintFigure(painter, rect());
}

} // namespace attnlab
