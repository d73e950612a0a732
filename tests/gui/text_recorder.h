#pragma once

// Records every piece of text a figure paints, with its rectangle in device pixels: a paint device whose
// engine keeps QTextItems instead of drawing them. Tests read what a figure says (translation) and where
// (overlap, clipping) without parsing pixels. The engine also keeps the ellipses (plot markers) and
// the rectangles with their pen colour (legend boxes, bars).

#include "views/figures/figure_view.h"

#include <QFontMetricsF>
#include <QPaintDevice>
#include <QPaintEngine>
#include <QPainter>
#include <QTransform>

#include <vector>

namespace attnlab::testing {

struct PaintedText {
    QString text;
    QRectF rect; // device pixels: the text's advance × (ascent + descent), through the painter's transform
    bool bold = false;
    bool rotated = false; // drawn under a rotation (a column label read upwards, a y axis label)
};

struct PaintedRect {
    QRectF rect; // device pixels
    QColor pen;
};

class TextRecordingEngine : public QPaintEngine {
public:
    TextRecordingEngine() : QPaintEngine(QPaintEngine::AllFeatures) {}
    bool begin(QPaintDevice*) override { return true; }
    bool end() override { return true; }
    void updateState(const QPaintEngineState& changed) override {
        if (changed.state() & QPaintEngine::DirtyTransform) m_transform = changed.transform();
        if (changed.state() & QPaintEngine::DirtyPen) m_pen = changed.pen().style() == Qt::NoPen ? QColor() : changed.pen().color();
    }
    void drawPixmap(const QRectF&, const QPixmap&, const QRectF&) override {}
    void drawImage(const QRectF&, const QImage&, const QRectF&, Qt::ImageConversionFlags) override {}
    void drawPolygon(const QPointF*, int, PolygonDrawMode) override {}
    void drawPath(const QPainterPath&) override {}
    void drawRects(const QRectF* rects, int count) override {
        for (int k = 0; k < count; ++k) m_rects.push_back({m_transform.mapRect(rects[k]), m_pen});
    }
    void drawLines(const QLineF*, int) override {}
    void drawEllipse(const QRectF& rect) override { m_ellipses.push_back(m_transform.mapRect(rect)); }
    void drawTextItem(const QPointF& origin, const QTextItem& item) override {
        if (item.text().trimmed().isEmpty()) return;
        const QRectF local(origin.x(), origin.y() - item.ascent(), item.width(), item.ascent() + item.descent());
        m_texts.push_back({item.text(), m_transform.mapRect(local), item.font().bold(), m_transform.m12() != 0 || m_transform.m21() != 0});
    }
    Type type() const override { return QPaintEngine::User; }
    const std::vector<PaintedText>& texts() const { return m_texts; }
    const std::vector<PaintedRect>& rects() const { return m_rects; }
    const std::vector<QRectF>& ellipses() const { return m_ellipses; }

private:
    QTransform m_transform;
    QColor m_pen;
    std::vector<PaintedText> m_texts;
    std::vector<PaintedRect> m_rects;
    std::vector<QRectF> m_ellipses;
};

class TextRecordingDevice : public QPaintDevice {
public:
    explicit TextRecordingDevice(QSize size) : m_size(size) {}
    ~TextRecordingDevice() override = default;
    QPaintEngine* paintEngine() const override { return &m_engine; }
    const TextRecordingEngine& engine() const { return m_engine; }
    const std::vector<PaintedText>& texts() const { return m_engine.texts(); }

protected:
    int metric(PaintDeviceMetric metric) const override {
        switch (metric) {
        case PdmWidth: return m_size.width();
        case PdmHeight: return m_size.height();
        case PdmDpiX:
        case PdmDpiY:
        case PdmPhysicalDpiX:
        case PdmPhysicalDpiY: return 96;
        case PdmDepth: return 32;
        case PdmDevicePixelRatio: return 1;
        case PdmDevicePixelRatioScaled: return static_cast<int>(devicePixelRatioFScale());
        default: return QPaintDevice::metric(metric);
        }
    }

private:
    QSize m_size;
    mutable TextRecordingEngine m_engine;
};

// What `view` paints when its figure fills `size` (the export path: paintFigure into a fresh device).
inline std::vector<PaintedText> paintedTexts(const FigureView& view, QSize size) {
    TextRecordingDevice device(size);
    {
        QPainter painter(&device);
        view.paintFigure(painter, QRectF(QPointF(0, 0), QSizeF(size)));
    }
    return device.texts();
}

} // namespace attnlab::testing
