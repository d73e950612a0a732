// The pattern view's painting: one path for the screen and every export.
#include "views/figures/pattern_view.h"

#include "views/plot/colormap.h"
#include "views/plot/vector_cells.h"
#include "views/plot/figure_text.h"
#include "views/plot/plot_axes.h"
#include "views/plot/text_style.h"

#include "core/analysis/panel_spec.h"
#include "core/patterns/cell_rects.h"

#include <QFontMetricsF>
#include <QGuiApplication>
#include <QPainter>
#include <QPaintEngine>
#include <QPainterPath>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

constexpr QRgb kHighlight = 0xe66100; // orange: distinct from every viridis colour for common deficiencies

// Vector exports draw cells as rectangles while the visible region has at most this many cells per side
// (mask) or this many for the weights, whose colours rarely repeat along a row; beyond that a lossless
// image drawn nearest-neighbour keeps the file small: one pixel per cell for a mask up to kMaxCellImageCells
// per side (a 1024-token pattern is not blurred into a screen's resolution), the view's tile beyond.
constexpr std::int64_t kMaxVectorMaskCells = 512;
constexpr std::int64_t kMaxCellImageCells = 4096;
constexpr std::int64_t kMaxVectorWeightsCells = 128;

// Runs of row i's allowed cells within columns [col0, col1), each in its component's colour.
RowRuns componentRuns(const PatternComponents& components, std::int64_t col0, std::int64_t col1) {
    return [&components, col0, col1, labelled = std::vector<ComponentRange>()](std::int64_t i, std::vector<CellRun>& out) mutable {
        labelled.clear();
        components.rowComponents(i, labelled);
        for (const ComponentRange& run : labelled) {
            const std::int64_t begin = std::max(run.begin, col0), end = std::min(run.end, col1);
            if (begin < end) out.push_back({begin, end, componentColor(run.component)});
        }
    };
}

// The vector cells of a panel's mask: by component, in the panel's one colour, or by density.
RowRuns maskRuns(const PatternPanel& panel, const PlaneRegion& visible) {
    if (panel.components) return componentRuns(*panel.components, visible.col0, visible.col1);
    return allowedRuns(*panel.pattern, visible.col0, visible.col1, panel.colour ? *panel.colour : densityColor(1.0));
}

void fillCells(QPainter& painter, const PlaneViewport& view, const std::vector<CellRect>& rects) {
    painter.save();
    painter.setRenderHint(QPainter::Antialiasing, false);
    painter.setPen(Qt::NoPen);
    for (const CellRect& rect : rects)
        painter.fillRect(view.regionRect({rect.row0, rect.row1, rect.col0, rect.col1}), QColor::fromRgba(rect.colour));
    painter.restore();
}

} // namespace

// ---------------------------------------------------------------------------------------------------
// Painting (one path for the screen and every export)

void PatternView::drawFigure(QPainter& painter, const QRectF& rect) const {
    QString caption = this->caption() + PatternView::tr("   head=%1").arg(m_settings.head);
    if (m_snapshot && !m_snapshot->note.isEmpty()) caption += QStringLiteral("   (") + m_snapshot->note + QStringLiteral(")");
    if (const QString note = tokenNote(); !note.isEmpty()) caption += QStringLiteral("   [%1]").arg(note);
    FigureView::paintFrame(painter, rect, title(), caption);
    if (!m_snapshot) {
        drawAlignedText(painter, rect, Qt::AlignCenter, PatternView::tr("Computing the pattern…"));
        return;
    }
    const int count = panelCount();
    for (int index = 0; index < count && index < static_cast<int>(m_snapshot->panels.size()); ++index) {
        const QRectF plot = plotRect(rect, index);
        const QRectF area = count == 1 ? QRectF(plot.right() + 16, plot.top(), rect.right() - plot.right() - 24, plot.height())
                                       : QRectF(plot.left() - kAxisMargin, plot.bottom() + 6, plot.width() + kAxisMargin,
                                                comparedStatsHeight(contentRect(rect)) - 6);
        const QRectF gridBox = gridRect(rect, index);
        if (count > 1) paintPanelHeading(painter, m_snapshot->panels[index], headingRect(rect, index, plot, gridBox));
        paintPanel(painter, m_snapshot->panels[index], index, area, plot, gridBox);
    }
}

QRectF PatternView::headingRect(const QRectF& rect, int index, const QRectF& plot, const QRectF& gridBox) const {
    // A compared panel's heading may use its whole column, wider than its matrix when the height limits the matrix.
    const QRectF content = contentRect(rect);
    const double column = content.width() / panelCount();
    const double height = compareNameHeight(content);
    const double nameTop = (gridBox.isEmpty() ? plot.top() - kAxisMargin : gridBox.top()) - height;
    return QRectF(content.left() + column * index + 6, nameTop, column - 12, height);
}

double PatternView::compareNameHeight(const QRectF& content) const {
    if (panelCount() < 2 || !m_snapshot) return kCompareNameHeight;
    QFont small = QGuiApplication::font();
    small.setPointSizeF(smallPrintPoints(6.0));
    const QFontMetricsF metrics(small);
    const double room = content.width() / panelCount() - 12;
    for (const Panel& panel : m_snapshot->panels)
        if (metrics.horizontalAdvance(panelDetail(panel)) > 0.97 * room) return kCompareNameHeight + std::ceil(metrics.lineSpacing());
    return kCompareNameHeight;
}

QString PatternView::panelDetail(const Panel& panel) {
    if (!panel.detail.isEmpty()) return panel.detail;
    QStringList items;
    if (!panel.title.isEmpty()) items << panel.name;
    for (const auto& [key, value] : panel.choice.params) items << QString::fromStdString(key + "=" + value);
    return items.isEmpty() ? PatternView::tr("(defaults)") : items.join(QStringLiteral(" · "));
}

void PatternView::paintPanelHeading(QPainter& painter, const Panel& panel, const QRectF& block) const {
    const QString heading = panel.title.isEmpty() ? panel.name : panel.title;
    const QFont bold = headingFont(painter.font(), heading);
    const QRectF nameLine(block.left(), block.top(), block.width(), kCompareNameHeight / 2);
    painter.save();
    painter.setFont(bold);
    drawAlignedText(painter, nameLine, Qt::AlignCenter, QFontMetricsF(bold, painter.device()).elidedText(heading, Qt::ElideRight, nameLine.width()));
    QFont small = painter.font();
    small.setBold(false);
    small.setPointSizeF(smallPrintPoints(7.5));
    // A parameter line shrinks in quarter points (hinted widths do not scale exactly) down to 6 pt before it is elided.
    const auto drawDetail = [&](const QRectF& line, const QString& text) {
        QFont font = small;
        while (font.pointSizeF() > smallPrintPoints(6.0) && QFontMetricsF(font, painter.device()).horizontalAdvance(text) > line.width())
            font.setPointSizeF(std::max(smallPrintPoints(6.0), font.pointSizeF() - 0.25));
        painter.setFont(font);
        drawAlignedText(painter, line, Qt::AlignCenter, QFontMetricsF(font, painter.device()).elidedText(text, Qt::ElideRight, line.width()));
    };
    const QString detail = panelDetail(panel);
    const QRectF details(block.left(), nameLine.bottom(), block.width(), block.bottom() - nameLine.bottom());
    const QRectF firstLine(details.left(), details.top(), details.width(), kCompareNameHeight / 2);
    QFont floor = small;
    floor.setPointSizeF(smallPrintPoints(6.0));
    const QFontMetricsF floorMetrics(floor, painter.device());
    // Two lines only where the block has room for them and this panel's line cannot shrink enough.
    if (details.height() < firstLine.height() + 1 || floorMetrics.horizontalAdvance(detail) <= 0.97 * details.width()) {
        drawDetail(firstLine, detail);
    } else {
        const auto [first, second] = splitInTwo(floorMetrics, detail);
        drawDetail(firstLine, first);
        drawDetail(QRectF(details.left(), firstLine.bottom(), details.width(), details.bottom() - firstLine.bottom()), second);
    }
    painter.restore();
}

QString PatternView::tokenNote() const {
    const std::size_t count = splitTokens(m_settings.tokens).size();
    const std::int64_t n = m_snapshot ? m_snapshot->n : m_settings.n;
    if (count == 0 || static_cast<std::int64_t>(count) == n) return {};
    return QStringLiteral("%1 tokens for n = %2: token labels need exactly n tokens, indices shown").arg(count).arg(n);
}

void PatternView::paintPanel(QPainter& painter, const Panel& panel, int index, const QRectF& area, const QRectF& plot,
                             const QRectF& gridBox) const {
    if (!panel.pattern) {
        painter.save();
        painter.setPen(QColor(0xb0, 0x00, 0x20));
        painter.drawRect(plot);
        drawAlignedText(painter, plot.adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, panel.error);
        painter.restore();
        return;
    }
    if (!gridBox.isEmpty()) paintGridPanel(painter, index, gridBox);
    PlaneViewport view = m_viewport;
    view.setPlot(plot);
    painter.save();
    painter.setClipRect(plot);
    paintHeatmap(painter, panel, index, view);
    if (panel.blocks) paintPatternBlocks(painter, *panel.blocks, view);
    m_decode.paint(painter, index, view);
    paintOverlays(painter, panel, view);
    painter.restore();
    painter.save();
    painter.setPen(QPen(Qt::black, 0.8));
    painter.setBrush(Qt::NoBrush);
    // Outside the heatmap: the first and last rows and columns (global tokens) stay uncovered.
    painter.drawRect(plot.adjusted(-1.0, -1.0, 1.0, 1.0));
    painter.restore();
    paintAxes(painter, view);
    // A tile with one pixel per cell shows the mask in two colours; coarser tiles show a density.
    const Tile* tile = bestTile(index);
    const bool cellLevel = !tile || tile->block == 1;
    paintStats(painter, panel, area, cellLevel);
}

void PatternView::paintHeatmap(QPainter& painter, const Panel& panel, int index, const PlaneViewport& view) const {
    painter.fillRect(view.plot(), QColor::fromRgb(emptyCellColor()));
    const Tile* tile = bestTile(index);
    const bool weights = m_settings.showWeights && !panel.weightsImage.isNull();
    const PlaneRegion visible = view.visibleRegion();
    const std::int64_t side = std::max(visible.row1 - visible.row0, visible.col1 - visible.col0);
    if (vectorDevice(painter)) {
        if (weights && side <= kMaxVectorWeightsCells) {
            fillCells(painter, view, mergeRowRuns(visible.row0, visible.row1, imageRuns(panel.weightsImage, visible.col0, visible.col1)));
            if (tile && m_settings.showMaskOutline && !tile->veil.isNull() && view.visibleCells() > 96) {
                painter.setRenderHint(QPainter::LosslessImageRendering);
                painter.drawImage(view.regionRect(tile->region), tile->veil);
            }
            return;
        }
        if (!weights && side <= kMaxVectorMaskCells) {
            fillCells(painter, view, mergeRowRuns(visible.row0, visible.row1, maskRuns(panel, visible)));
            return;
        }
        if (!weights && side <= kMaxCellImageCells) {
            painter.setRenderHint(QPainter::LosslessImageRendering);
            painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
            painter.drawImage(view.regionRect(visible), runsImage(visible.row0, visible.row1, visible.col0, visible.col1, maskRuns(panel, visible), emptyCellColor()));
            return;
        }
    }
    // Raster cells: nearest-neighbour once a cell covers a pixel, and never lossy (PDF would store JPEG).
    const bool smallCells = view.cellSize() >= 1.0 || vectorDevice(painter);
    painter.setRenderHint(QPainter::SmoothPixmapTransform, !smallCells);
    painter.setRenderHint(QPainter::LosslessImageRendering);
    if (weights) {
        const QRectF source(visible.col0, visible.row0, visible.col1 - visible.col0, visible.row1 - visible.row0);
        painter.drawImage(view.regionRect(visible), panel.weightsImage, source);
        if (tile && m_settings.showMaskOutline && !tile->veil.isNull() && view.visibleCells() > 96)
            painter.drawImage(view.regionRect(tile->drawnCells), tile->veil);
        return;
    }
    if (tile) painter.drawImage(view.regionRect(tile->drawnCells), tile->mask);
}

void PatternView::paintOverlays(QPainter& painter, const Panel& panel, const PlaneViewport& view) const {
    const PlaneRegion region = view.visibleRegion();
    const bool fewCells = view.visibleCells() <= 96;
    if (view.visibleCells() <= 64 && view.cellSize() >= 4) {
        painter.setPen(QPen(QColor(255, 255, 255, 150), 0.6));
        for (std::int64_t k = region.col0; k <= region.col1; ++k) {
            const double x = view.regionRect({0, 1, k, k}).left();
            painter.drawLine(QPointF(x, view.plot().top()), QPointF(x, view.plot().bottom()));
        }
        for (std::int64_t k = region.row0; k <= region.row1; ++k) {
            const double y = view.regionRect({k, k, 0, 1}).top();
            painter.drawLine(QPointF(view.plot().left(), y), QPointF(view.plot().right(), y));
        }
    }
    if (m_settings.showWeights && m_settings.showMaskOutline && !panel.weightsImage.isNull() && fewCells) {
        // Mask outline: an edge wherever an allowed cell meets a masked one (or the plane's border).
        QPainterPath outline;
        for (std::int64_t i = region.row0; i < region.row1; ++i)
            for (std::int64_t j = region.col0; j < region.col1; ++j) {
                if (!panel.pattern->allowed(i, j)) continue;
                const QRectF cell = view.cellRect({i, j});
                if (i == 0 || !panel.pattern->allowed(i - 1, j)) { outline.moveTo(cell.topLeft()); outline.lineTo(cell.topRight()); }
                if (i + 1 == view.n() || !panel.pattern->allowed(i + 1, j)) { outline.moveTo(cell.bottomLeft()); outline.lineTo(cell.bottomRight()); }
                if (j == 0 || !panel.pattern->allowed(i, j - 1)) { outline.moveTo(cell.topLeft()); outline.lineTo(cell.bottomLeft()); }
                if (j + 1 == view.n() || !panel.pattern->allowed(i, j + 1)) { outline.moveTo(cell.topRight()); outline.lineTo(cell.bottomRight()); }
            }
        // Dark, so the edge shows against the light masked cells as well as against every viridis colour.
        painter.strokePath(outline, QPen(QColor(0x10, 0x10, 0x10), 1.6));
    }
    if (const std::int64_t m = m_settings.queries; m > 0 && m < view.n()) {
        // Queries that are not the whole sequence: the rows of the cache's positions veiled, the m × n
        // rectangle of the new tokens framed.
        const QRectF cache = view.regionRect({0, view.n() - m, 0, view.n()});
        painter.fillRect(cache, QColor(255, 255, 255, 170));
        painter.setPen(QPen(QColor(0x00, 0x5a, 0xb5), 2.0));
        painter.drawRect(view.regionRect({view.n() - m, view.n(), 0, view.n()}));
    }
    if (const auto marked = markedRow(panel); marked && *marked < view.n()) {
        const std::int64_t row = *marked;
        const QRectF band = view.regionRect({row, row + 1, 0, view.n()});
        painter.fillRect(band, QColor(230, 97, 0, 50));
        std::vector<ColumnRange> ranges;
        panel.pattern->rowRanges(row, ranges);
        const double minHeight = std::max(band.height(), 3.0);
        for (const auto& range : ranges) {
            QRectF cells = view.regionRect({row, row + 1, range.begin, range.end});
            cells.setTop(cells.center().y() - minHeight / 2);
            cells.setHeight(minHeight);
            cells.setWidth(std::max(cells.width(), 2.0));
            painter.fillRect(cells, QColor::fromRgb(kHighlight));
        }
    }
}

void PatternView::paintAxes(QPainter& painter, const PlaneViewport& view) const {
    const PlaneRegion region = view.visibleRegion();
    const QRectF plot = view.plot();
    painter.save();
    painter.setPen(QColor(0x30, 0x30, 0x30));
    const std::vector<std::string> words = axisTokens(m_settings.tokens, view.n());
    const bool tokenLabels = !words.empty();
    const bool cellLabels = view.visibleCells() <= 64 || (tokenLabels && view.cellSize() >= 5.0);
    // Cell labels read Q12 / K12 while they fit the margin; long indices drop the letter, and the font
    // shrinks (down to 5 pt) until the widest label fits. Token labels replace the indices when there is
    // one token per position.
    const double room = kAxisMargin - 6;
    QFont font = painter.font();
    font.setPointSizeF(smallPrintPoints(7.0));
    const std::int64_t largest = std::max(region.row1, region.col1) - 1;
    const bool prefixed = !tokenLabels && cellLabels &&
                          QFontMetricsF(font, painter.device()).horizontalAdvance(QStringLiteral("Q%1").arg(largest)) <= room;
    const auto label = [&words, tokenLabels, cellLabels, prefixed](QChar letter, std::int64_t k) {
        if (tokenLabels) return QString::fromStdString(words[static_cast<std::size_t>(k)]);
        return cellLabels && prefixed ? letter + QString::number(k) : QString::number(k);
    };
    double natural = QFontMetricsF(font, painter.device()).horizontalAdvance(label('Q', largest));
    if (tokenLabels)
        for (std::int64_t k = std::min(region.row0, region.col0); k < largest + 1; ++k)
            natural = std::max(natural, QFontMetricsF(font, painter.device()).horizontalAdvance(label('Q', k)));
    if (natural > room) font.setPointSizeF(std::max(smallPrintPoints(5.0), font.pointSizeF() * room / natural));
    painter.setFont(font);
    const QFontMetricsF metrics(font, painter.device());
    // Row 0's label and column 0's meet at the plot's corner: both keep `gap` from the plot, so that half
    // a line of text beside half a cell never reaches the other.
    const double gap = cellLabels ? std::max(3.0, metrics.height() / 2 - view.cellSize() / 2 + 1) : 3.0;
    // Label every `step`-th index, with step a 1-2-5 multiple wide enough for the text.
    double step = 1;
    const double minSpacing = cellLabels ? metrics.height() : std::max(metrics.horizontalAdvance(label('Q', largest)) + 6, 40.0);
    for (const double factor : {1.0, 2.0, 5.0, 10.0, 20.0, 50.0, 100.0, 200.0, 500.0, 1000.0, 2000.0, 5000.0, 10000.0, 20000.0})
        if ((step = factor) * view.cellSize() >= minSpacing) break;
    const auto firstOf = [step](std::int64_t begin) { return static_cast<std::int64_t>(std::ceil(static_cast<double>(begin) / step) * step); };
    const auto stride = static_cast<std::int64_t>(step);
    for (std::int64_t k = firstOf(region.row0); k < region.row1; k += stride) {
        const QRectF cell = view.cellRect({k, region.col0});
        const double y = cellLabels ? cell.center().y() : cell.top();
        drawAlignedText(painter, QRectF(plot.left() - kAxisMargin, y - 8, kAxisMargin - gap, 16), Qt::AlignRight | Qt::AlignVCenter,
                        metrics.elidedText(label('Q', k), Qt::ElideRight, kAxisMargin - gap));
    }
    for (std::int64_t k = firstOf(region.col0); k < region.col1; k += stride) {
        const QRectF cell = view.cellRect({region.row0, k});
        if (cellLabels) {
            drawColumnLabel(painter, QPointF(cell.center().x(), plot.top() - gap), kAxisMargin - gap, label('K', k));
            continue;
        }
        drawAlignedText(painter, QRectF(cell.left() - 30, plot.top() - 19, 60, 14), Qt::AlignHCenter | Qt::AlignBottom,
                        metrics.elidedText(label('K', k), Qt::ElideRight, 60));
    }
    if (!cellLabels || !prefixed)
        drawAlignedText(painter, QRectF(plot.left() - kAxisMargin, plot.top() - kAxisMargin, plot.width() + kAxisMargin, 14),
                        Qt::AlignLeft | Qt::AlignTop, PatternView::tr("query i ↓   key j →"));
    painter.restore();
}

} // namespace attnlab
