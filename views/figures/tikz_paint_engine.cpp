#include "views/figures/tikz_paint_engine.h"

#include "views/plot/device_metrics.h"
#include "views/figures/tikz_export.h"

#include <QPainterPath>
#include <QPixmap>
#include <QTextItem>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

QString number(double value) {
    QString text = QString::number(value, 'f', 2);
    if (text.contains(QLatin1Char('.'))) {
        while (text.endsWith(QLatin1Char('0'))) text.chop(1);
        if (text.endsWith(QLatin1Char('.'))) text.chop(1);
    }
    return text == QLatin1String("-0") ? QStringLiteral("0") : text;
}

double transformScale(const QTransform& transform) { return std::sqrt(std::abs(transform.determinant())); }

} // namespace

TikzPaintEngine::TikzPaintEngine() : QPaintEngine(QPaintEngine::AllFeatures) {}

bool TikzPaintEngine::begin(QPaintDevice*) { return true; }

bool TikzPaintEngine::end() {
    placeTextNodes();
    if (m_openClip) m_body << QStringLiteral("\\end{scope}");
    m_openClip.reset();
    return true;
}

void TikzPaintEngine::updateState(const QPaintEngineState& changes) {
    const DirtyFlags flags = changes.state();
    if (flags & DirtyPen) m_pen = changes.pen();
    if (flags & DirtyBrush) m_brush = changes.brush();
    if (flags & DirtyFont) m_font = changes.font();
    if (flags & DirtyTransform) m_transform = changes.transform();
    if (flags & (DirtyClipEnabled | DirtyClipPath | DirtyClipRegion)) {
        // Clips are kept as their bounding rectangles in device coordinates: the figures clip to plot areas.
        if (!changes.isClipEnabled() || changes.clipOperation() == Qt::NoClip)
            m_clip.reset();
        else if (flags & DirtyClipPath)
            m_clip = m_transform.map(changes.clipPath()).boundingRect();
        else if (flags & DirtyClipRegion)
            m_clip = m_transform.mapRect(QRectF(changes.clipRegion().boundingRect()));
    }
}

QString TikzPaintEngine::colourName(const QColor& colour) {
    const QRgb rgb = colour.rgb() & 0xffffff;
    if (const auto found = m_colours.find(rgb); found != m_colours.end()) return *found;
    const QString name = QStringLiteral("c%1").arg(m_colours.size());
    m_colours.insert(rgb, name);
    m_colourLines << QStringLiteral("\\definecolor{%1}{RGB}{%2,%3,%4}").arg(name).arg(qRed(rgb)).arg(qGreen(rgb)).arg(qBlue(rgb));
    return name;
}

QString TikzPaintEngine::point(const QPointF& logical) const {
    const QPointF device = m_transform.map(logical);
    return QStringLiteral("(%1,%2)").arg(number(device.x()), number(device.y()));
}

QString TikzPaintEngine::drawOptions(bool fill, bool stroke, Qt::FillRule rule) {
    QStringList options;
    if (fill) {
        options << QStringLiteral("fill=") + colourName(m_brush.color());
        if (m_brush.color().alphaF() < 1) options << QStringLiteral("fill opacity=") + number(m_brush.color().alphaF());
        if (rule == Qt::OddEvenFill) options << QStringLiteral("even odd rule");
    }
    if (stroke) {
        const double width = m_pen.isCosmetic() ? std::max(m_pen.widthF(), 1.0) : m_pen.widthF() * transformScale(m_transform);
        options << QStringLiteral("draw=") + colourName(m_pen.color()) << QStringLiteral("line width=%1pt").arg(number(0.75 * width));
        if (m_pen.color().alphaF() < 1) options << QStringLiteral("draw opacity=") + number(m_pen.color().alphaF());
        if (m_pen.style() == Qt::DashLine) options << QStringLiteral("dashed");
        if (m_pen.style() == Qt::DotLine) options << QStringLiteral("dotted");
        if (m_pen.style() == Qt::DashDotLine || m_pen.style() == Qt::DashDotDotLine) options << QStringLiteral("dash dot");
    }
    return options.join(QLatin1Char(','));
}

void TikzPaintEngine::emitCommand(const QString& command) {
    if (m_clip != m_openClip) {
        if (m_openClip) m_body << QStringLiteral("\\end{scope}");
        if (m_clip)
            m_body << QStringLiteral("\\begin{scope}\\clip (%1,%2) rectangle (%3,%4);")
                          .arg(number(m_clip->left()), number(m_clip->top()), number(m_clip->right()), number(m_clip->bottom()));
        m_openClip = m_clip;
    }
    m_body << command;
}

void TikzPaintEngine::emitPath(const QPainterPath& path, bool fill, bool stroke) {
    if ((!fill && !stroke) || path.isEmpty()) return;
    QString text;
    for (int k = 0; k < path.elementCount(); ++k) {
        const QPainterPath::Element element = path.elementAt(k);
        if (element.isMoveTo()) {
            text += QLatin1Char(' ') + point(element);
        } else if (element.isLineTo()) {
            text += QStringLiteral(" -- ") + point(element);
        } else if (element.isCurveTo()) {
            const QPointF second = path.elementAt(k + 1);
            const QPointF end = path.elementAt(k + 2);
            text += QStringLiteral(" .. controls %1 and %2 .. %3").arg(point(element), point(second), point(end));
            k += 2;
        }
    }
    emitCommand(QStringLiteral("\\path[%1]%2;").arg(drawOptions(fill, stroke, path.fillRule()), text));
}

void TikzPaintEngine::drawPath(const QPainterPath& path) {
    emitPath(path, m_brush.style() != Qt::NoBrush, m_pen.style() != Qt::NoPen);
}

void TikzPaintEngine::drawRects(const QRectF* rects, int count) {
    const bool fill = m_brush.style() != Qt::NoBrush;
    const bool stroke = m_pen.style() != Qt::NoPen;
    if (!fill && !stroke) return;
    for (int k = 0; k < count; ++k) {
        if (m_transform.type() > QTransform::TxScale) {
            QPainterPath path;
            path.addRect(rects[k]);
            emitPath(path, fill, stroke);
            continue;
        }
        emitCommand(QStringLiteral("\\path[%1] %2 rectangle %3;")
                        .arg(drawOptions(fill, stroke, Qt::WindingFill), point(rects[k].topLeft()), point(rects[k].bottomRight())));
    }
}

void TikzPaintEngine::drawLines(const QLineF* lines, int count) {
    if (m_pen.style() == Qt::NoPen) return;
    for (int k = 0; k < count; ++k)
        emitCommand(QStringLiteral("\\path[%1] %2 -- %3;").arg(drawOptions(false, true, Qt::WindingFill), point(lines[k].p1()), point(lines[k].p2())));
}

void TikzPaintEngine::drawPolygon(const QPointF* points, int count, PolygonDrawMode mode) {
    if (count < 2) return;
    QPainterPath path;
    path.setFillRule(mode == OddEvenMode ? Qt::OddEvenFill : Qt::WindingFill);
    path.moveTo(points[0]);
    for (int k = 1; k < count; ++k) path.lineTo(points[k]);
    if (mode != PolylineMode) path.closeSubpath();
    emitPath(path, mode != PolylineMode && m_brush.style() != Qt::NoBrush, m_pen.style() != Qt::NoPen);
}

void TikzPaintEngine::drawTextItem(const QPointF& baseline, const QTextItem& item) {
    const QString text = item.text();
    if (text.isEmpty()) return;
    const QFont font = item.font();
    const double scale = transformScale(m_transform);
    const double points = (font.pointSizeF() > 0 ? font.pointSizeF() : 0.75 * font.pixelSize()) * scale;
    const double advance = item.width();
    const double angle = -std::atan2(m_transform.m12(), m_transform.m11()) * 180.0 / M_PI;
    TextNode node;
    node.rotated = std::abs(angle) > 0.01;
    // A rotated node keeps the middle of its baseline; an upright one its left end and width.
    node.start = m_transform.map(node.rotated ? baseline + QPointF(advance / 2, 0) : baseline);
    node.width = advance * scale;
    node.text = text;
    if (textAnchorStated()) node.stated = currentTextAnchor();
    QStringList options{QStringLiteral("inner sep=0pt"), QStringLiteral("text=") + colourName(m_pen.color()),
                        QStringLiteral("font=\\fontsize{%1pt}{%2pt}\\selectfont%3")
                            .arg(number(points), number(1.2 * points), font.bold() ? QStringLiteral("\\bfseries") : QString())};
    if (node.rotated) options << QStringLiteral("rotate=") + number(angle);
    node.options = options.join(QLatin1Char(','));
    if (continuesLastNode(node)) {
        m_texts.back().text += node.text;
        m_texts.back().width = node.start.x() + node.width - m_texts.back().start.x();
        return;
    }
    if (text.trimmed().isEmpty()) return; // a space between runs belongs to the node it continues
    emitCommand(QString());
    node.line = static_cast<int>(m_body.size()) - 1;
    m_texts.push_back(node);
}

// Qt draws a line of mixed scripts (Chinese with Latin digits) as one item per script run, each placed
// where the previous one ended: TeX sets them as one node, or its wider or narrower glyphs would make the
// runs overlap or part.
bool TikzPaintEngine::continuesLastNode(const TextNode& node) const {
    if (m_texts.empty() || m_texts.back().line != static_cast<int>(m_body.size()) - 1) return false;
    const TextNode& last = m_texts.back();
    return m_clip == m_openClip && !node.rotated && !last.rotated && node.options == last.options && std::abs(node.start.y() - last.start.y()) < 0.01 &&
           std::abs(last.start.x() + last.width - node.start.x()) < 0.5;
}

// TeX's fonts are wider or narrower than Qt's, so where a node is anchored decides which of its edges
// stays put. An upright node drawn with a stated alignment (drawAlignedText) keeps it: a lone legend
// entry left-aligned beside its swatch stays beside it. Otherwise, an upright node whose left end lines up with another's (to half a pixel) while their right
// ends differ is left-aligned text (a wrapped paragraph's lines, a legend's column, a block of
// statistics): it is anchored at its left end, so the column stays straight. Right ends that line up
// with different left ends (tick labels of a vertical axis) anchor at the right end. Anything else,
// and every rotated node, at the middle of its baseline, so centred titles and tick labels stay centred.
void TikzPaintEngine::placeTextNodes() {
    constexpr double kTolerance = 0.5;
    std::vector<std::size_t> upright;
    for (std::size_t k = 0; k < m_texts.size(); ++k)
        if (!m_texts[k].rotated) upright.push_back(k);
    const auto edgeShared = [&](auto edge, auto other) {
        std::vector<bool> shared(m_texts.size(), false);
        std::vector<std::size_t> order = upright;
        std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return edge(m_texts[a]) < edge(m_texts[b]); });
        for (std::size_t a = 0; a < order.size(); ++a)
            for (std::size_t b = a + 1; b < order.size() && edge(m_texts[order[b]]) - edge(m_texts[order[a]]) < kTolerance; ++b)
                if (std::abs(other(m_texts[order[a]]) - other(m_texts[order[b]])) >= kTolerance) shared[order[a]] = shared[order[b]] = true;
        return shared;
    };
    const auto left = [](const TextNode& node) { return node.start.x(); };
    const auto right = [](const TextNode& node) { return node.start.x() + node.width; };
    const std::vector<bool> lefts = edgeShared(left, right), rights = edgeShared(right, left);
    for (std::size_t k = 0; k < m_texts.size(); ++k) {
        const TextNode& node = m_texts[k];
        QString anchor = QStringLiteral("base");
        QPointF at = node.rotated ? node.start : node.start + QPointF(node.width / 2, 0);
        const bool west = node.stated ? *node.stated == TextAnchor::Start : lefts[k];
        const bool east = node.stated ? *node.stated == TextAnchor::End : rights[k];
        if (!node.rotated && west) {
            anchor = QStringLiteral("base west");
            at = node.start;
        } else if (!node.rotated && east) {
            anchor = QStringLiteral("base east");
            at = node.start + QPointF(node.width, 0);
        }
        m_body[node.line] = QStringLiteral("\\node[anchor=%1,%2] at (%3,%4) {%5};")
                                .arg(anchor, node.options, number(at.x()), number(at.y()), latexEscaped(node.text));
    }
    m_texts.clear();
}

void TikzPaintEngine::drawPixmap(const QRectF& target, const QPixmap& pixmap, const QRectF& source) {
    drawImage(target, pixmap.toImage(), source, Qt::AutoColor);
}

void TikzPaintEngine::drawImage(const QRectF& target, const QImage& image, const QRectF& source, Qt::ImageConversionFlags) {
    const QRectF device = m_transform.mapRect(target);
    m_images.push_back(image.copy(source.toAlignedRect()));
    const QString name = m_imageName ? m_imageName(static_cast<int>(m_images.size()) - 1) : QString();
    emitCommand(QStringLiteral("\\node[anchor=north west,inner sep=0pt] at %1 {\\includegraphics[width=%2pt,height=%3pt,interpolate=false]{%4}};")
                    .arg(QStringLiteral("(%1,%2)").arg(number(device.left()), number(device.top())), number(0.75 * device.width()),
                         number(0.75 * device.height()), name));
}

int TikzPaintDevice::metric(PaintDeviceMetric metric) const { return recordingDeviceMetric(metric, m_size); }

} // namespace attnlab
