#pragma once

#include "views/figure_view.h"

namespace attnlab {

class ReceptiveFieldView : public FigureView {
    Q_OBJECT
public:
    explicit ReceptiveFieldView(QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("reach"); }
    QString title() const override;
    void paintFigure(QPainter& painter, const QRectF& rect) const override;
    QString csvData() const override;
    void setSettings(const LabSettings& settings) override;

protected:
    void paintEvent(QPaintEvent* event) override;
};

} // namespace attnlab
