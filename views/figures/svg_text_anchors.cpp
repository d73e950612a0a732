#include "views/figures/svg_text_anchors.h"

#include "views/plot/device_metrics.h"
#include "views/plot/text_style.h"

#include <QPaintDevice>
#include <QPaintEngine>
#include <QPainter>
#include <QRegularExpression>

#include <cmath>
#include <vector>

namespace attnlab {

namespace {

struct AnchoredItem {
    QString escaped; // the item's text as QSvgGenerator writes it
    TextAnchor anchor = TextAnchor::Start;
    double x = 0;     // painter coordinates, as in the SVG element
    double width = 0; // advance
};

class AnchorRecordingEngine : public QPaintEngine {
public:
    AnchorRecordingEngine() : QPaintEngine(QPaintEngine::AllFeatures) {}
    bool begin(QPaintDevice*) override { return true; }
    bool end() override { return true; }
    void updateState(const QPaintEngineState&) override {}
    void drawPixmap(const QRectF&, const QPixmap&, const QRectF&) override {}
    void drawImage(const QRectF&, const QImage&, const QRectF&, Qt::ImageConversionFlags) override {}
    void drawPolygon(const QPointF*, int, PolygonDrawMode) override {}
    void drawPath(const QPainterPath&) override {}
    void drawRects(const QRectF*, int) override {}
    void drawLines(const QLineF*, int) override {}
    void drawTextItem(const QPointF& origin, const QTextItem& item) override {
        m_items.push_back({item.text().toHtmlEscaped(), currentTextAnchor(), origin.x(), item.width()});
    }
    Type type() const override { return QPaintEngine::User; }
    const std::vector<AnchoredItem>& items() const { return m_items; }

private:
    std::vector<AnchoredItem> m_items;
};

class AnchorRecordingDevice : public QPaintDevice {
public:
    explicit AnchorRecordingDevice(const QSizeF& size) : m_size(size) {}
    QPaintEngine* paintEngine() const override { return &m_engine; }
    const std::vector<AnchoredItem>& items() const { return m_engine.items(); }

protected:
    int metric(PaintDeviceMetric metric) const override { return recordingDeviceMetric(metric, m_size); }

private:
    QSizeF m_size;
    mutable AnchorRecordingEngine m_engine;
};

} // namespace

QByteArray anchorSvgText(const QByteArray& svg, const QSizeF& size, const std::function<void(QPainter&)>& paint) {
    AnchorRecordingDevice device(size);
    {
        QPainter painter(&device);
        paint(painter);
    }
    const std::vector<AnchoredItem>& items = device.items();
    static const QRegularExpression element(QStringLiteral("<text ([^>]*?)x=\"([^\"]*)\"([^>]*)>([^<]*)</text>"));
    const QString text = QString::fromUtf8(svg);
    QString result;
    result.reserve(text.size() + 64 * static_cast<qsizetype>(items.size()));
    qsizetype done = 0;
    std::size_t next = 0;
    for (auto match = element.globalMatch(text); match.hasNext();) {
        const QRegularExpressionMatch found = match.next();
        // The recorded item of this element: the next one with its text (the generator skips text drawn
        // without a pen).
        std::size_t k = next;
        while (k < items.size() && items[k].escaped != found.captured(4)) ++k;
        if (k == items.size()) continue;
        next = k + 1;
        const AnchoredItem& item = items[k];
        if (item.anchor == TextAnchor::Start) continue;
        const bool middle = item.anchor == TextAnchor::Middle;
        const double x = found.captured(2).toDouble() + (middle ? item.width / 2 : item.width);
        result += QStringView(text).mid(done, found.capturedStart() - done);
        result += QStringLiteral("<text %1x=\"%2\" text-anchor=\"%3\"%4>%5</text>")
                      .arg(found.captured(1), QString::number(x, 'g', 8), middle ? QStringLiteral("middle") : QStringLiteral("end"),
                           found.captured(3), found.captured(4));
        done = found.capturedEnd();
    }
    result += QStringView(text).mid(done);
    return result.toUtf8();
}

} // namespace attnlab
