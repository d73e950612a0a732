// The pattern view's statistics beside each panel (nnz, density, MACs, blocks, the row or cell in view)
// and its legends: the colour scale of the mask or the weights, and the components'.
#include "views/figures/pattern_grid.h"
#include "views/figures/pattern_view.h"

#include "views/plot/colormap.h"
#include "views/plot/figure_text.h"
#include "views/plot/plot_axes.h"
#include "views/plot/text_style.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

QString formatCount(double value) {
    const char* suffixes[] = {"", " k", " M", " G", " T", " P"};
    int power = 0;
    while (std::abs(value) >= 1000.0 && power < 5) {
        value /= 1000.0;
        ++power;
    }
    return QString::number(value, 'g', power == 0 ? 6 : 3) + QLatin1String(suffixes[power]);
}

} // namespace

QStringList PatternView::statsLines(const Panel& panel) const {
    const double n = static_cast<double>(panel.n);
    QStringList lines;
    if (const std::int64_t m = m_settings.queries; m > 0 && m < panel.n) {
        // Queries that are not the whole sequence: the counts are those of the m × n rectangle framed.
        double cells = 0;
        for (std::int64_t i = panel.n - m; i < panel.n; ++i) cells += static_cast<double>(panel.pattern->rowCount(i));
        const double rows = static_cast<double>(m);
        lines << PatternView::tr("queries %1 … %2 (framed)").arg(panel.n - m).arg(panel.n - 1)
              << PatternView::tr("%1 × %2 over a cache of %3").arg(m).arg(panel.n).arg(panel.n - m)
              << PatternView::tr("nnz: %1").arg(formatCount(cells))
              << PatternView::tr("density: %1 %").arg(100.0 * cells / (rows * n), 0, 'g', 3)
              << PatternView::tr("mean row length: %1").arg(cells / rows, 0, 'f', 1);
    } else {
        lines << PatternView::tr("nnz: %1").arg(formatCount(static_cast<double>(panel.nnz)))
              << PatternView::tr("density: %1 %").arg(100.0 * static_cast<double>(panel.nnz) / (n * n), 0, 'g', 3)
              << PatternView::tr("mean row length: %1").arg(static_cast<double>(panel.nnz) / n, 0, 'f', 1);
    }
    if (panel.blocks) lines << blockStatsLines(*panel.blocks);
    // Full attention in the panel's own direction: a causal variant against causal full attention.
    if (panel.coreMacs > 0 && panel.causal)
        lines << PatternView::tr("core MACs: %1 = %2 % of causal full").arg(formatCount(panel.coreMacs)).arg(100.0 * panel.coreMacs / panel.fullMacs, 0, 'g', 3)
              << PatternView::tr("causal full attention: %1 MACs").arg(formatCount(panel.fullMacs));
    else if (panel.coreMacs > 0)
        lines << PatternView::tr("core MACs: %1 = %2 % of full").arg(formatCount(panel.coreMacs)).arg(100.0 * panel.coreMacs / panel.fullMacs, 0, 'g', 3)
              << PatternView::tr("full attention: %1 MACs").arg(formatCount(panel.fullMacs));
    if (panel.relativePositionMacs > 0)
        lines << PatternView::tr("of which relative positions q·R: %1 (one d-long product per allowed cell)")
                     .arg(formatCount(panel.relativePositionMacs));
    if (!panel.hasMask) lines << PatternView::tr("no mask: shows where W may be non-zero");
    if (m_settings.showWeights && !panel.weightsNote.isEmpty()) lines << panel.weightsNote;
    if (const QString note = syntheticInputNote(); m_settings.showWeights && !panel.weightsImage.isNull() && !note.isEmpty()) lines << note;
    if (const auto marked = markedRow(panel); marked && *marked < panel.n)
        lines << PatternView::tr("row Q%1 attends to %2 keys").arg(*marked).arg(panel.pattern->rowCount(*marked));
    lines << m_decode.statsLines(panel, static_cast<int>(&panel - m_snapshot->panels.data()));
    if (hasGrid() && !m_highlightRow && panelCount() == 1) // compared panels keep their room for the counts
        lines << PatternView::tr("grid query: cell %1 (hover a row, click a cell or use the arrow keys)")
                     .arg(gridCellText(*m_snapshot->grid, m_snapshot->grid->cellAt(m_grid.query())));
    return lines;
}

void PatternView::paintStats(QPainter& painter, const Panel& panel, const QRectF& box, bool cellLevel) const {
    const QStringList lines = statsLines(panel);
    painter.save();
    QFont font = painter.font();
    font.setPointSizeF(statsPoints());
    painter.setFont(font);
    const bool components = !panel.legend.empty() && !m_settings.showWeights;
    const double legendHeight = components ? componentLegendHeight(panel, box) : kLegendHeight;
    const QRectF text = box.adjusted(0, 0, 0, -legendHeight - 6);
    drawAlignedText(painter, text, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, lines.join('\n'));
    painter.restore();
    if (components) {
        paintComponentLegend(painter, panel, QRectF(box.left(), box.bottom() - legendHeight, box.width(), legendHeight));
        return;
    }
    const bool weights = m_settings.showWeights && !panel.weightsImage.isNull();
    paintLegend(painter, QRectF(box.left(), box.bottom() - kLegendHeight, std::min(box.width(), 240.0), kLegendHeight - 4),
                weights, weights && panel.signedWeights(), cellLevel);
}

void PatternView::paintLegend(QPainter& painter, const QRectF& box, bool weights, bool signedWeights, bool cellLevel) const {
    painter.save();
    QFont font = painter.font();
    font.setPointSizeF(smallPrintPoints(7.0));
    painter.setFont(font);
    if (!weights && cellLevel) {
        const double swatch = 12.0;
        const QFontMetricsF metrics(font, painter.device());
        double x = box.left();
        for (const auto& [colour, label] : {std::pair{densityColor(1.0), PatternView::tr("allowed (j ∈ M(i))")},
                                            std::pair{emptyCellColor(), PatternView::tr("masked")}}) {
            painter.setPen(QPen(Qt::black, 0.5));
            painter.setBrush(QColor::fromRgb(colour));
            painter.drawRect(QRectF(x, box.top(), swatch, swatch));
            painter.setPen(Qt::black);
            const double width = metrics.horizontalAdvance(label);
            drawAlignedText(painter, QRectF(x + swatch + 4, box.top() - 1, width + 2, swatch + 2), Qt::AlignLeft | Qt::AlignVCenter, label);
            x += swatch + 4 + width + 14;
        }
        painter.restore();
        return;
    }
    // Weights exactly 0 (masked cells, relu² zeros) are drawn in the background colour: a swatch for them
    // first, then the colour bar over the rest of the box.
    double barLeft = box.left();
    if (weights) {
        const QString zero = PatternView::tr("exactly 0");
        const double swatch = 10.0;
        painter.setPen(QPen(Qt::black, 0.5));
        painter.setBrush(QColor::fromRgb(emptyCellColor()));
        painter.drawRect(QRectF(box.left(), box.top(), swatch, swatch));
        const double width = QFontMetricsF(font, painter.device()).horizontalAdvance(zero);
        painter.setPen(Qt::black);
        drawAlignedText(painter, QRectF(box.left() + swatch + 3, box.top() - 2, width + 2, swatch + 4), Qt::AlignLeft | Qt::AlignVCenter, zero);
        barLeft += swatch + 3 + width + 10;
    }
    const QRectF bar(barLeft, box.top(), box.right() - barLeft, 10);
    const int steps = 48;
    for (int s = 0; s < steps; ++s) {
        const double t = (s + 0.5) / steps;
        const QRgb colour = signedWeights ? divergingColor(2 * t - 1) : weights ? viridis(t) : densityColor(t);
        painter.fillRect(QRectF(bar.left() + bar.width() * s / steps, bar.top(), bar.width() / steps + 0.5, bar.height()),
                         QColor::fromRgb(colour));
    }
    painter.setPen(QPen(Qt::black, 0.5));
    painter.setBrush(Qt::NoBrush); // a frame only: the "exactly 0" swatch's fill would cover the bar
    painter.drawRect(bar);
    const QRectF labels(bar.left(), bar.bottom() + 1, bar.width(), 14);
    const auto endsAndMiddle = [&](const QString& low, const QString& middle, const QString& high) {
        const QFontMetricsF metrics(painter.font(), painter.device());
        drawAlignedText(painter, labels, Qt::AlignLeft, low);
        drawAlignedText(painter, labels, Qt::AlignRight, high);
        // The middle keeps clear of the ends: it shrinks, then is elided, where the bar is narrow.
        const double side = std::max(metrics.horizontalAdvance(low), metrics.horizontalAdvance(high)) + 4;
        drawFittedText(painter, labels.adjusted(side, 0, -side, 0), Qt::AlignHCenter, middle);
    };
    if (signedWeights)
        endsAndMiddle(QStringLiteral("−1"), PatternView::tr("sign(w)·√(|w| / max |w|)"), QStringLiteral("1"));
    else if (weights)
        endsAndMiddle(QStringLiteral("0"), PatternView::tr("√(w / max w), viridis"), QStringLiteral("1"));
    else
        endsAndMiddle(PatternView::tr("sparse"), PatternView::tr("allowed share per pixel"), PatternView::tr("all"));
    painter.restore();
}

double PatternView::componentLegendHeight(const Panel& panel, const QRectF& box) const {
    // One line per component, at most half the box (the stats keep the rest).
    return std::min(kComponentLegendLine * static_cast<double>(panel.legend.size()) + 4, std::max(kLegendHeight, box.height() / 2));
}

void PatternView::paintComponentLegend(QPainter& painter, const Panel& panel, const QRectF& box) const {
    painter.save();
    QFont font = painter.font();
    font.setPointSizeF(smallPrintPoints(7.5));
    painter.setFont(font);
    const double swatch = 10.0;
    double y = box.top();
    for (const auto& entry : panel.legend) {
        if (y + kComponentLegendLine > box.bottom() + 0.5) break;
        painter.setPen(QPen(Qt::black, 0.5));
        painter.setBrush(QColor::fromRgb(entry.colour));
        painter.drawRect(QRectF(box.left(), y + 1, swatch, swatch));
        painter.setPen(Qt::black);
        const QRectF textBox(box.left() + swatch + 5, y, box.width() - swatch - 5, kComponentLegendLine);
        drawFittedText(painter, textBox, Qt::AlignLeft | Qt::AlignVCenter, entry.text);
        y += kComponentLegendLine;
    }
    painter.restore();
}

} // namespace attnlab
