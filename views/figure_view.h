#pragma once

#include "core/analysis/lab_settings.h"

#include <QString>
#include <QWidget>

class QPainter;

namespace attnlab {

// Base of every figure (pattern, reach, timing, flops, accuracy). paintFigure() is the single painting
// code path: paintEvent() calls it for the screen, and export renders it into QImage, QSvgGenerator
// and QPdfWriter. Views never run kernels on the UI thread: they start background jobs and repaint
// when an immutable result arrives.
class FigureView : public QWidget {
    Q_OBJECT
public:
    explicit FigureView(QWidget* parent = nullptr) : QWidget(parent) {}

    virtual QString viewName() const = 0; // "pattern", "reach", "timing", "flops", "accuracy"
    virtual QString title() const = 0;
    // Paints title, axes, legend and caption into `rect` (logical pixels at 96 dpi).
    virtual void paintFigure(QPainter& painter, const QRectF& rect) const = 0;
    // The figure's data as CSV text with a header row.
    virtual QString csvData() const = 0;
    // True while background work for the current settings is still running.
    virtual bool busy() const { return false; }
    virtual void setSettings(const LabSettings& settings) = 0;
    const LabSettings& settings() const { return m_settings; }
    // The run's parameters in one line: the figure caption and the SVG/PDF description.
    virtual QString caption() const { return settingsCaption(m_settings); }

    // "variant=longformer (window=8)  n=256  d=64  h=1  causal=no  input=local similarity, seed 0"
    static QString settingsCaption(const LabSettings& settings);
    // Clears `rect` to white, draws the title on top and the caption (wrapped) at the bottom, and
    // returns the rectangle left for the plot.
    static QRectF paintFrame(QPainter& painter, const QRectF& rect, const QString& title, const QString& caption);

signals:
    void busyChanged(bool busy);
    void statusMessage(const QString& message);

protected:
    void paintEvent(QPaintEvent* event) override;

    LabSettings m_settings;
};

} // namespace attnlab
