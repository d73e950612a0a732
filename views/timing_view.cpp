#include "views/timing_view.h"

#include <QPainter>

namespace attnlab {

TimingView::TimingView(QWidget* parent) : FigureView(parent) {}

QString TimingView::title() const { return QStringLiteral("Timing"); }

void TimingView::paintFigure(QPainter& painter, const QRectF& rect) const
{
    painter.fillRect(rect, Qt::white);
    painter.drawText(rect, Qt::AlignCenter, title());
}

QString TimingView::csvData() const { return QString(); }

void TimingView::setSettings(const LabSettings& settings)
{
    m_settings = settings;
    update();
}

void TimingView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    paintFigure(painter, rect());
}

} // namespace attnlab
