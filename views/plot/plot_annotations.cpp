// PlotAxes' annotations: vertical markers, the legend inside the plot (placed where it hides the least
// of what was drawn before it) and notices.
#include "views/plot/plot_axes.h"
#include "views/plot/text_style.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <compare>
#include <limits>

namespace attnlab {

namespace {

bool isLeft(Qt::Corner corner) { return corner == Qt::TopLeftCorner || corner == Qt::BottomLeftCorner; }
bool isTop(Qt::Corner corner) { return corner == Qt::TopLeftCorner || corner == Qt::TopRightCorner; }

// What a legend box would hide, compared in this order: marker labels (text never goes under text),
// then data points, then samples of drawn lines.
struct Covered {
    std::size_t labels = 0, points = 0, lines = 0;
    auto operator<=>(const Covered&) const = default;
};

} // namespace

QPointF PlotAxes::legendOrigin(const QSizeF& size, double inset, Qt::Corner preferred) const {
    const double left = m_plot.left() + inset, right = m_plot.right() - inset - size.width();
    const double top = m_plot.top() + inset, bottom = m_plot.bottom() - inset - size.height();
    const auto cornerOrigin = [&](Qt::Corner corner) { return QPointF(isLeft(corner) ? left : right, isTop(corner) ? top : bottom); };
    std::vector<QPointF> candidates = {cornerOrigin(preferred)};
    for (const Qt::Corner corner : {Qt::TopLeftCorner, Qt::TopRightCorner, Qt::BottomLeftCorner, Qt::BottomRightCorner})
        if (corner != preferred) candidates.push_back(cornerOrigin(corner));
    const double middleX = (left + right) / 2, middleY = (top + bottom) / 2;
    candidates.insert(candidates.end(), {{middleX, top}, {middleX, bottom}, {left, middleY}, {right, middleY}});
    const auto covered = [&](const QPointF& origin) {
        // A marker is hidden as soon as any of it is under the box.
        const QRectF box(origin, size);
        const QRectF grown = box.adjusted(-kMarkerRadius, -kMarkerRadius, kMarkerRadius, kMarkerRadius);
        Covered count;
        for (const QPointF& point : m_drawnPoints) count.points += grown.contains(point);
        for (const QRectF& label : m_drawnLabels) count.labels += box.intersects(label);
        for (const QPointF& sample : m_drawnLines) count.lines += box.contains(sample);
        return count;
    };
    QPointF best = candidates.front();
    Covered least = covered(best);
    for (const QPointF& candidate : candidates) {
        const Covered count = covered(candidate);
        if (count < least) best = candidate, least = count;
    }
    return best;
}

void PlotAxes::drawVerticalMarkers(const std::vector<VerticalMarker>& markers) const {
    QPainter& painter = m_painter;
    painter.save();
    const QFontMetricsF metrics = fontMetrics();
    const auto shown = [this](const VerticalMarker& marker) {
        return inDomain(m_x, marker.x) && marker.x >= m_x.min && marker.x <= m_x.max;
    };
    for (const VerticalMarker& marker : markers) {
        if (!shown(marker)) continue;
        painter.setPen(QPen(marker.color, 1.4, Qt::DashLine));
        painter.drawLine(QPointF(mapX(marker.x), m_plot.top()), QPointF(mapX(marker.x), m_plot.bottom()));
    }
    const double line = metrics.height();
    const auto overlapsPlacedLabel = [&](const QRectF& box) {
        return std::any_of(m_drawnLabels.begin(), m_drawnLabels.end(),
                           [&](const QRectF& placed) { return placed.intersects(box); });
    };
    for (const VerticalMarker& marker : markers) {
        if (!shown(marker)) continue;
        const double px = mapX(marker.x);
        // The label stays inside the plot, beside its line: the first of these that fits in the plot and
        // covers no other marker's line: right of the line on one line, on two (broken after
        // "threshold:"), left of it on one, on two, then wrapped (up to four lines) into the
        // room right of the line up to the next marker's, or left of it. Where each covers some, the one
        // that covers fewest; where none fits, against the plot's edge, elided when wider than the plot.
        // It moves down a row while it would overlap another marker's label.
        const auto widthOf = [&](const QStringList& texts) {
            double widest = 0;
            for (const QString& text : texts) widest = std::max(widest, metrics.horizontalAdvance(text));
            return std::min(widest + 2 * kGap, m_plot.width());
        };
        const auto linesCovered = [&](double from, double width) {
            return std::count_if(markers.begin(), markers.end(), [&](const VerticalMarker& other) {
                return &other != &marker && shown(other) && mapX(other.x) > from && mapX(other.x) < from + width;
            });
        };
        double nextLine = m_plot.right(), previousLine = m_plot.left();
        for (const VerticalMarker& other : markers) {
            if (&other == &marker || !shown(other)) continue;
            if (mapX(other.x) > px) nextLine = std::min(nextLine, mapX(other.x));
            if (mapX(other.x) < px) previousLine = std::max(previousLine, mapX(other.x));
        }
        // The pieces a label wraps at first: the threshold's formula only before its " = ", the words
        // after its ": " anywhere; then, where that is too wide, at every space.
        QStringList pieces;
        const qsizetype colon = marker.label.indexOf(QStringLiteral(": "));
        const QString formula = colon > 0 ? marker.label.left(colon + 1) : QString();
        const QStringList sides = formula.split(QStringLiteral(" = "));
        for (qsizetype k = 0; k < sides.size() && !formula.isEmpty(); ++k) pieces << (k == 0 ? sides[k] : QStringLiteral("= ") + sides[k]);
        pieces << marker.label.mid(colon > 0 ? colon + 2 : 0).split(QLatin1Char(' '), Qt::SkipEmptyParts);
        const QStringList words = marker.label.split(QLatin1Char(' '), Qt::SkipEmptyParts);
        const auto wrapped = [&](const QStringList& parts, double room) {
            QStringList out;
            QString current;
            for (const QString& word : parts) {
                const QString longer = current.isEmpty() ? word : current + QLatin1Char(' ') + word;
                if (!current.isEmpty() && metrics.horizontalAdvance(longer) + 2 * kGap > room) {
                    out << current;
                    current = word;
                } else {
                    current = longer;
                }
            }
            if (!current.isEmpty()) out << current;
            return out;
        };
        QStringList one = {marker.label}, two = one;
        if (colon > 0) two = {formula, marker.label.mid(colon + 2)};
        const std::vector<std::pair<QStringList, bool>> forms = {{one, true},  {two, true},  {one, false}, {two, false},
                                                                 {wrapped(pieces, nextLine - px - 3), true}, {wrapped(pieces, px - 3 - previousLine), false},
                                                                 {wrapped(words, nextLine - px - 3), true},  {wrapped(words, px - 3 - previousLine), false}};
        QStringList lines = two;
        double left = std::clamp(px + 2, m_plot.left(), m_plot.right() - widthOf(lines));
        std::ptrdiff_t fewest = std::numeric_limits<std::ptrdiff_t>::max();
        for (const auto& [form, right] : forms) {
            const double width = widthOf(form), from = right ? px + 2 : px - 2 - width;
            if (fewest == 0 || form.size() > 4 || from < m_plot.left() || from + width > m_plot.right()) continue;
            if (const std::ptrdiff_t covered = linesCovered(from, width); covered < fewest) {
                fewest = covered;
                lines = form;
                left = from;
            }
        }
        const double width = widthOf(lines);
        for (QString& text : lines) text = metrics.elidedText(text, Qt::ElideRight, width - 2 * kGap + 0.5);
        const double height = line * static_cast<double>(lines.size());
        int row = marker.row;
        const auto boxAt = [&](int r) { return QRectF(left, m_plot.top() + 2 + r * (line + 2), width, height); };
        while (overlapsPlacedLabel(boxAt(row)) && boxAt(row + 1).bottom() <= m_plot.bottom()) ++row;
        const QRectF box = boxAt(row);
        m_drawnLabels.push_back(box);
        painter.setPen(Qt::NoPen);
        painter.setBrush(QColor(255, 255, 255, 235));
        painter.drawRect(box);
        painter.setPen(marker.color.darker(120));
        drawAlignedText(painter, box, Qt::AlignCenter, lines.join(QLatin1Char('\n')));
    }
    painter.restore();
}

void PlotAxes::drawLabel(const QRectF& box, const QString& text, const QColor& color, int flags) const {
    m_painter.save();
    m_painter.setPen(color);
    drawAlignedText(m_painter, box, flags, text);
    m_painter.restore();
    m_drawnLabels.push_back(box);
}

void PlotAxes::drawLegend(const std::vector<LegendEntry>& entries, Qt::Corner preferred) const {
    if (entries.empty()) return;
    QPainter& painter = m_painter;
    painter.save();
    const QFontMetricsF metrics = fontMetrics();
    const double swatch = 20.0, line = metrics.height();
    // The legend stays inside the plot so it never covers tick or axis labels: names are elided to the
    // plot's width and entries that do not fit its height are left out.
    const double inset = 6.0;
    const double widest = std::max(0.0, m_plot.width() - 2 * inset - swatch - 3 * kGap);
    double textWidth = 0;
    for (const LegendEntry& entry : entries) textWidth = std::max(textWidth, metrics.horizontalAdvance(entry.name));
    textWidth = std::min(textWidth, widest);
    const std::size_t fitting = static_cast<std::size_t>(std::max(0.0, (m_plot.height() - 2 * inset - 2 * kGap) / line));
    const std::size_t shown = std::min(entries.size(), fitting);
    if (shown == 0) {
        painter.restore();
        return;
    }
    const QSizeF size(swatch + 3 * kGap + textWidth, shown * line + 2 * kGap);
    const QPointF origin = legendOrigin(size, inset, preferred);
    painter.setPen(QPen(QColor(0xBB, 0xBB, 0xBB), 0.8));
    painter.setBrush(QColor(255, 255, 255, 230));
    painter.drawRect(QRectF(origin, size));
    for (std::size_t k = 0; k < shown; ++k) {
        const LegendEntry& entry = entries[k];
        const double y = origin.y() + kGap + k * line + line / 2;
        const double x = origin.x() + kGap;
        if (entry.filled) {
            painter.setPen(QPen(entry.color.darker(130), 0.8));
            painter.setBrush(entry.color);
            painter.drawRect(QRectF(x, y - line * 0.3, swatch, line * 0.6));
        } else {
            painter.setPen(QPen(entry.color, 1.8, entry.style));
            painter.drawLine(QPointF(x, y), QPointF(x + swatch, y));
        }
        painter.setPen(Qt::black);
        drawFittedText(painter, QRectF(x + swatch + kGap, y - line / 2, textWidth + 1, line), Qt::AlignLeft | Qt::AlignVCenter,
                       entry.name);
    }
    painter.restore();
}

void PlotAxes::drawNotice(const QString& text) const {
    m_painter.save();
    m_painter.setPen(QColor(0x55, 0x55, 0x55));
    drawAlignedText(m_painter, m_plot, Qt::AlignCenter | Qt::TextWordWrap, text);
    m_painter.restore();
}

} // namespace attnlab
