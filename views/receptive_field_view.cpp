#include "views/receptive_field_view.h"

#include <QPainter>

namespace attnlab {

ReceptiveFieldView::ReceptiveFieldView(QWidget* parent) : FigureView(parent) {}

QString ReceptiveFieldView::title() const { return QStringLiteral("Receptive field"); }

void ReceptiveFieldView::paintFigure(QPainter& painter, const QRectF& rect) const
{
    painter.fillRect(rect, Qt::white);
    painter.drawText(rect, Qt::AlignCenter, title());
}

QString ReceptiveFieldView::csvData() const { return QString(); }

void ReceptiveFieldView::setSettings(const LabSettings& settings)
{
    m_settings = settings;
    update();
}

void ReceptiveFieldView::paintEvent(QPaintEvent*)
{
    QPainter painter(this);
    paintFigure(painter, rect());
}

} // namespace attnlab
