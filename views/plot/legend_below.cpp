#include "views/plot/legend_below.h"
#include "views/plot/figure_text.h"
#include "views/plot/fitted_text.h"
#include "views/plot/text_style.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>

namespace attnlab {

namespace {

constexpr double kSwatch = 14.0, kSwatchGap = 4.0, kColumnGap = 16.0;

bool isNote(const LegendEntry& entry) { return !entry.filled && entry.style == Qt::NoPen; }

constexpr int kNoteFlags = Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap;

// A note wider than the legend wraps at its words.
double noteHeight(const QFontMetricsF& metrics, double width, const QString& note) {
    return metrics.boundingRect(QRectF(0, 0, width, 1e6), kNoteFlags, note).height();
}

// In one column, a name that even drawFittedText's smallest size cannot hold takes two lines.
struct LegendLayout {
    int columns = 1;
    int rows = 0;
    double notesHeight = 0;
    double columnWidth = 0;
    std::vector<int> lines; // per swatch entry, in one column: 1 or 2
    double height(const QFontMetricsF& metrics) const { return rows * metrics.height() + notesHeight + 6; }
    double textWidth() const { return columnWidth - kSwatch - kSwatchGap - kColumnGap; }
};

LegendLayout legendLayout(const QPainter& painter, double width, const std::vector<LegendEntry>& entries) {
    const QFontMetricsF metrics(painter.font(), painter.device());
    LegendLayout layout;
    int swatches = 0;
    for (const LegendEntry& entry : entries) {
        if (isNote(entry)) {
            layout.notesHeight += noteHeight(metrics, width, entry.name);
            continue;
        }
        ++swatches;
        layout.columnWidth = std::max(layout.columnWidth, kSwatch + kSwatchGap + metrics.horizontalAdvance(entry.name) + kColumnGap);
    }
    if (swatches == 0) return layout;
    layout.columnWidth = std::min(layout.columnWidth, width + kColumnGap);
    layout.columns = std::clamp(static_cast<int>((width + kColumnGap) / layout.columnWidth), 1, swatches);
    layout.rows = (swatches + layout.columns - 1) / layout.columns;
    if (layout.columns > 1) return layout;
    layout.rows = 0;
    for (const LegendEntry& entry : entries)
        if (!isNote(entry)) {
            layout.lines.push_back(fitsWhenFitted(painter, layout.textWidth(), entry.name) ? 1 : 2);
            layout.rows += layout.lines.back();
        }
    return layout;
}

} // namespace

void drawLegendBelow(QPainter& painter, const QRectF& box, const std::vector<LegendEntry>& entries) {
    const QFontMetricsF metrics(painter.font(), painter.device());
    const LegendLayout layout = legendLayout(painter, box.width(), entries);
    const double line = metrics.height();
    const double left = box.center().x() - (layout.columns * layout.columnWidth - kColumnGap) / 2;
    painter.save();
    int swatch = 0;
    double noteTop = box.top() + 3 + layout.rows * line, rowTop = box.top() + 3;
    for (const LegendEntry& entry : entries) {
        painter.setPen(Qt::black);
        if (isNote(entry)) {
            const double height = noteHeight(metrics, box.width(), entry.name);
            drawAlignedText(painter, QRectF(box.left(), noteTop, box.width(), height), kNoteFlags, entry.name);
            noteTop += height;
            continue;
        }
        const double x = left + (swatch % layout.columns) * layout.columnWidth;
        const int lines = layout.lines.empty() ? 1 : layout.lines[static_cast<std::size_t>(swatch)];
        const double y = layout.lines.empty() ? box.top() + 3 + (swatch / layout.columns) * line : rowTop;
        rowTop += lines * line;
        ++swatch;
        drawFittedLines(painter, QRectF(x + kSwatch + kSwatchGap, y, layout.textWidth() + 1, lines * line),
                        Qt::AlignLeft | Qt::AlignVCenter, entry.name);
        if (entry.filled) {
            painter.setPen(QPen(entry.color.darker(130), 0.8));
            painter.setBrush(entry.color);
            painter.drawRect(QRectF(x, y + line * 0.2, kSwatch, line * 0.6));
        } else {
            painter.setPen(QPen(entry.color, 2.0, entry.style));
            painter.drawLine(QPointF(x, y + line / 2), QPointF(x + kSwatch, y + line / 2));
        }
    }
    painter.restore();
}

QRectF aboveLegend(const QPainter& painter, const QRectF& area, const std::vector<LegendEntry>& entries) {
    const QFontMetricsF metrics(painter.font(), painter.device());
    return QRectF(area.topLeft(), QSizeF(area.width(), area.height() - legendLayout(painter, area.width(), entries).height(metrics)));
}


QRectF legendBelow(QPainter& painter, const QRectF& area, const std::vector<LegendEntry>& entries) {
    // The chart keeps room for its axes and a plot: a legend taller than that leaves out its last entries.
    const double least = 8 * QFontMetricsF(painter.font(), painter.device()).height();
    std::vector<LegendEntry> shown = entries;
    while (shown.size() > 1 && aboveLegend(painter, area, shown).height() < least) shown.pop_back();
    const QRectF chart = aboveLegend(painter, area, shown);
    drawLegendBelow(painter, QRectF(area.left(), chart.bottom(), area.width(), area.bottom() - chart.bottom()), shown);
    return chart;
}

void drawLegendRows(QPainter& painter, const QRectF& box, const std::vector<LegendEntry>& entries) {
    painter.save();
    QFont font = painter.font();
    font.setPointSizeF(smallPrintPoints(8.0));
    painter.setFont(font);
    const double swatch = 24.0;
    double y = box.top();
    for (const LegendEntry& entry : entries) {
        painter.setPen(QPen(entry.color, 1.8, entry.style));
        painter.drawLine(QPointF(box.left(), y + kLegendRowHeight / 2), QPointF(box.left() + swatch, y + kLegendRowHeight / 2));
        painter.setPen(Qt::black);
        drawFittedText(painter, QRectF(box.left() + swatch + 6, y, box.width() - swatch - 6, kLegendRowHeight), Qt::AlignLeft | Qt::AlignVCenter,
                       entry.name);
        y += kLegendRowHeight;
    }
    painter.restore();
}

} // namespace attnlab
