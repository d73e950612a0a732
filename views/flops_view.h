#pragma once

#include "views/figure_view.h"

namespace attnlab {

class FlopsView : public FigureView {
    Q_OBJECT
public:
    explicit FlopsView(QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("flops"); }
    QString title() const override;
    void paintFigure(QPainter& painter, const QRectF& rect) const override;
    QString csvData() const override;
    void setSettings(const LabSettings& settings) override;

protected:
    void paintEvent(QPaintEvent* event) override;
};

} // namespace attnlab
