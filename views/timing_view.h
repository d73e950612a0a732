#pragma once

#include "views/figure_view.h"

namespace attnlab {

class TimingView : public FigureView {
    Q_OBJECT
public:
    explicit TimingView(QWidget* parent = nullptr);

    QString viewName() const override { return QStringLiteral("timing"); }
    QString title() const override;
    void paintFigure(QPainter& painter, const QRectF& rect) const override;
    QString csvData() const override;
    void setSettings(const LabSettings& settings) override;

protected:
    void paintEvent(QPaintEvent* event) override;
};

} // namespace attnlab
