#pragma once

#include "views/plot/text_style.h"

#include <QColor>
#include <QFont>
#include <QImage>
#include <QMap>
#include <QPaintDevice>
#include <QPaintEngine>
#include <QPen>
#include <QBrush>
#include <QRectF>
#include <QStringList>
#include <QTransform>

#include <functional>
#include <memory>
#include <optional>
#include <vector>

namespace attnlab {

// A paint engine that records what a QPainter draws as TikZ commands, in the device's logical pixels
// (96 per inch) with y pointing down; the picture maps them with x = 0.75pt, y = -0.75pt.
class TikzPaintEngine : public QPaintEngine {
public:
    TikzPaintEngine();

    bool begin(QPaintDevice* device) override;
    bool end() override;
    void updateState(const QPaintEngineState& state) override;
    void drawPath(const QPainterPath& path) override;
    void drawRects(const QRectF* rects, int count) override;
    void drawLines(const QLineF* lines, int count) override;
    void drawPolygon(const QPointF* points, int count, PolygonDrawMode mode) override;
    void drawTextItem(const QPointF& point, const QTextItem& item) override;
    void drawPixmap(const QRectF& target, const QPixmap& pixmap, const QRectF& source) override;
    void drawImage(const QRectF& target, const QImage& image, const QRectF& source, Qt::ImageConversionFlags flags) override;
    Type type() const override { return QPaintEngine::User; }

    // The picture's commands (text nodes placed at end()), the colours they name (\definecolor lines)
    // and the raster parts in order.
    QString body() const { return m_body.join(QLatin1Char('\n')); }
    QStringList colourDefinitions() const { return m_colourLines; }
    const std::vector<QImage>& images() const { return m_images; }
    // The name the picture's k-th image is included under (set before painting).
    void setImageName(std::function<QString(int)> name) { m_imageName = std::move(name); }

private:
    // A text node as Qt laid it out, in device coordinates; its anchor is chosen at end(), when every
    // node is known (tikz_paint_engine.cpp, placeTextNodes).
    struct TextNode {
        int line = 0; // index in m_body
        QPointF start;
        double width = 0;
        bool rotated = false;
        std::optional<TextAnchor> stated; // the alignment the text was drawn with (drawAlignedText), if any
        QString options, text;
    };

    QString colourName(const QColor& colour);
    QString point(const QPointF& logical) const;
    QString drawOptions(bool fill, bool stroke, Qt::FillRule rule);
    void emitCommand(const QString& command);
    void emitPath(const QPainterPath& path, bool fill, bool stroke);
    bool continuesLastNode(const TextNode& node) const;
    void placeTextNodes();

    QPen m_pen;
    QBrush m_brush;
    QFont m_font;
    QTransform m_transform;
    std::optional<QRectF> m_clip;     // device coordinates
    std::optional<QRectF> m_openClip; // the clip of the scope the body is in
    QStringList m_body;
    QMap<QRgb, QString> m_colours;
    QStringList m_colourLines;
    std::vector<QImage> m_images;
    std::vector<TextNode> m_texts;
    std::function<QString(int)> m_imageName;
};

// A paint device of `size` logical pixels at 96 dpi painting through a TikzPaintEngine.
class TikzPaintDevice : public QPaintDevice {
public:
    explicit TikzPaintDevice(const QSizeF& size) : m_size(size) {}
    QPaintEngine* paintEngine() const override { return &m_engine; }
    TikzPaintEngine& engine() { return m_engine; }

protected:
    int metric(PaintDeviceMetric metric) const override;

private:
    QSizeF m_size;
    mutable TikzPaintEngine m_engine;
};

} // namespace attnlab
