#include "views/pattern_view.h"

#include "views/colormap.h"

#include "core/registry.h"

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QPainter>
#include <QPainterPath>
#include <QToolTip>

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

constexpr QRgb kHighlight = 0xe66100; // orange: distinct from every viridis colour for common deficiencies
constexpr int kMaxTilesPerPanel = 8;
constexpr double kAxisMargin = 34.0;
// Compare mode: room below each panel for its statistics (up to ~8 wrapped lines) and the colour legend.
constexpr double kCompareStatsHeight = 140.0;
constexpr double kLegendHeight = 34.0;
// Compare mode: room above each panel for the variant's name and, on a second line, its parameters.
constexpr double kCompareNameHeight = 30.0;

} // namespace

// ---------------------------------------------------------------------------------------------------
// PatternView

PatternView::PatternView(QWidget* parent) : FigureView(parent) {
    setMouseTracking(true);
    setMinimumSize(420, 320);
    // Results arriving together (the snapshot, then its tiles) are painted once, one 60 Hz frame later.
    m_repaintTimer.setSingleShot(true);
    m_repaintTimer.setInterval(16);
    connect(&m_repaintTimer, &QTimer::timeout, this, [this] {
        update();
        updateBusy();
    });
    connect(&m_jobs, &JobRunner::busyChanged, this, [this] { updateBusy(); });
    connect(&m_tileJobs, &JobRunner::busyChanged, this, [this] { updateBusy(); });
    m_viewport = PlaneViewport(m_settings.n, QRectF());
    startSnapshotJob();
}

PatternView::~PatternView() = default;

QString PatternView::title() const {
    const bool compare = m_settings.compareVariants.size() > 1;
    const QString what = m_settings.showWeights ? (m_settings.showMaskOutline ? QStringLiteral("Effective weights W with mask outline")
                                                                              : QStringLiteral("Effective weights W"))
                                                : QStringLiteral("Attention pattern (allowed set M)");
    if (compare) return what + QStringLiteral(" — compared");
    const VariantInfo* variant = findVariant(m_settings.variant);
    return what + QStringLiteral(" — ") + (variant ? QString::fromStdString(variant->displayName) : QString::fromStdString(m_settings.variant));
}

bool PatternView::busy() const { return m_jobs.busy() || m_tileJobs.busy() || m_repaintTimer.isActive(); }

void PatternView::updateBusy() {
    const bool nowBusy = busy();
    if (nowBusy != m_wasBusy) {
        m_wasBusy = nowBusy;
        emit busyChanged(nowBusy);
    }
}

void PatternView::setSettings(const LabSettings& settings) {
    const bool same = sameFields(settings, m_settings, SettingsUse::PatternFigure);
    const bool shapeChanged = settings.n != m_settings.n || settings.source != m_settings.source;
    m_settings = settings;
    if (same && m_snapshot) {
        update();
        return;
    }
    if (shapeChanged) m_highlightRow.reset();
    startSnapshotJob();
}

void PatternView::startSnapshotJob() {
    m_jobs.bumpGeneration();
    m_tileJobs.bumpGeneration();
    const LabSettings settings = m_settings;
    m_jobs.submit<Snapshot>([settings](const CancelCheck& cancelled) { return buildPatternSnapshot(settings, cancelled); },
                            [this](const Snapshot& snapshot) {
                                const bool nChanged = !m_snapshot || m_snapshot->n != snapshot.n;
                                m_snapshot = std::make_shared<const Snapshot>(snapshot);
                                if (nChanged) {
                                    m_viewport = PlaneViewport(snapshot.n, m_viewport.plot());
                                    m_tiles.clear();
                                }
                                m_tiles.resize(snapshot.panels.size());
                                for (auto& tiles : m_tiles) tiles.clear();
                                const QString error = errorText();
                                emit statusMessage(error.isEmpty() ? snapshot.note : error);
                                syncViewportToWidget();
                                requestTiles();
                                scheduleRepaint();
                            });
    updateBusy();
}

QString PatternView::errorText() const {
    if (!m_snapshot) return {};
    for (const auto& panel : m_snapshot->panels)
        if (!panel.error.isEmpty()) return panel.error;
    return {};
}

int PatternView::panelCount() const {
    return static_cast<int>(std::max<std::size_t>(1, chosenVariants(m_settings).size()));
}

QRectF PatternView::plotRect(const QRectF& rect, int index) const {
    // Mirrors paintFigure's layout: the frame (title, caption), then panels side by side in compare
    // mode with their stats below, or one panel with its stats on the right.
    const double titleHeight = 32.0, captionHeight = 34.0;
    const QRectF content(rect.left() + 8, rect.top() + titleHeight, rect.width() - 16, rect.height() - titleHeight - captionHeight);
    const int count = panelCount();
    if (count == 1) {
        const double side = std::max(16.0, std::min(content.width() - 230.0 - kAxisMargin, content.height() - kAxisMargin));
        return QRectF(content.left() + kAxisMargin, content.top() + kAxisMargin, side, side);
    }
    const double width = content.width() / count;
    const double statsHeight = kCompareStatsHeight, nameHeight = kCompareNameHeight;
    const double side = std::max(16.0, std::min(width - kAxisMargin - 10, content.height() - kAxisMargin - statsHeight - nameHeight));
    const double left = content.left() + width * index + (width - side - kAxisMargin) / 2 + kAxisMargin;
    const double spare = std::max(0.0, content.height() - (nameHeight + kAxisMargin + side + statsHeight));
    return QRectF(left, content.top() + nameHeight + kAxisMargin + spare / 2, side, side);
}

void PatternView::syncViewportToWidget() { m_viewport.setPlot(plotRect(rect(), 0)); }

void PatternView::setViewport(double zoom, const QPointF& origin) {
    m_viewport.setView(zoom, origin);
    requestTiles();
    scheduleRepaint();
}

void PatternView::scheduleRepaint() {
    if (!m_repaintTimer.isActive()) m_repaintTimer.start();
    updateBusy();
}

QSize PatternView::heatmapImageSize(int index) const {
    if (!m_snapshot || index < 0 || index >= static_cast<int>(m_snapshot->panels.size())) return {};
    const Panel& panel = m_snapshot->panels[static_cast<std::size_t>(index)];
    if (m_settings.showWeights && !panel.weightsImage.isNull()) return panel.weightsImage.size();
    const Tile* tile = bestTile(index);
    return tile ? QSize(tile->width, tile->height) : QSize();
}

const PatternView::Tile* PatternView::bestTile(int index) const {
    if (index >= static_cast<int>(m_tiles.size()) || m_tiles[index].empty()) return nullptr;
    const PlaneRegion region = m_viewport.visibleRegion();
    for (const auto& tile : m_tiles[index])
        if (tile->region == region) return tile.get();
    return m_tiles[index].back().get();
}

void PatternView::requestTiles() {
    if (!m_snapshot || m_viewport.plot().isEmpty()) return;
    m_tileJobs.bumpGeneration();
    const PlaneRegion region = m_viewport.visibleRegion();
    const double pixels = std::max(16.0, m_viewport.plot().width() * devicePixelRatioF());
    // One cell per image pixel while cells are at least a pixel wide, else one pixel per block of cells.
    const int width = static_cast<int>(std::min<double>(region.col1 - region.col0, pixels));
    const int height = static_cast<int>(std::min<double>(region.row1 - region.row0, pixels));
    const bool withVeil = m_settings.showWeights;
    for (std::size_t index = 0; index < m_snapshot->panels.size(); ++index) {
        const auto& pattern = m_snapshot->panels[index].pattern;
        if (!pattern) continue;
        auto& cached = m_tiles[index];
        const auto hit = std::find_if(cached.begin(), cached.end(), [&](const auto& tile) {
            return tile->region == region && tile->width == width && tile->height == height && tile->veil.isNull() == !withVeil;
        });
        if (hit != cached.end()) {
            std::rotate(hit, hit + 1, cached.end());
            continue;
        }
        m_tileJobs.submit<std::shared_ptr<const Tile>>(
            [pattern, region, width, height, withVeil](const CancelCheck&) {
                return std::make_shared<const Tile>(buildPatternTile(*pattern, region, width, height, withVeil));
            },
            [this, index, snapshot = m_snapshot](const std::shared_ptr<const Tile>& tile) {
                if (snapshot != m_snapshot) return;
                auto& tiles = m_tiles[index];
                tiles.push_back(tile);
                if (tiles.size() > kMaxTilesPerPanel) tiles.erase(tiles.begin());
                scheduleRepaint();
            });
    }
    updateBusy();
}

// ---------------------------------------------------------------------------------------------------
// Painting (one path for the screen and every export)

void PatternView::paintFigure(QPainter& painter, const QRectF& rect) const {
    QString caption = this->caption() + QStringLiteral("   head=%1").arg(m_settings.head);
    if (m_snapshot && !m_snapshot->note.isEmpty()) caption += QStringLiteral("   (") + m_snapshot->note + QStringLiteral(")");
    FigureView::paintFrame(painter, rect, title(), caption);
    if (!m_snapshot) {
        painter.drawText(rect, Qt::AlignCenter, QStringLiteral("Computing the pattern…"));
        return;
    }
    const int count = panelCount();
    for (int index = 0; index < count && index < static_cast<int>(m_snapshot->panels.size()); ++index) {
        const QRectF plot = plotRect(rect, index);
        const QRectF area = count == 1 ? QRectF(plot.right() + 16, plot.top(), rect.right() - plot.right() - 24, plot.height())
                                       : QRectF(plot.left() - kAxisMargin, plot.bottom() + 6, plot.width() + kAxisMargin,
                                                kCompareStatsHeight - 6);
        paintPanel(painter, m_snapshot->panels[index], index, area, plot);
    }
}

void PatternView::paintPanel(QPainter& painter, const Panel& panel, int index, const QRectF& area, const QRectF& plot) const {
    if (panelCount() > 1) {
        const QRectF nameRect(plot.left() - kAxisMargin, plot.top() - kAxisMargin - kCompareNameHeight, plot.width() + kAxisMargin,
                              kCompareNameHeight / 2);
        QFont bold = painter.font();
        bold.setBold(true);
        painter.save();
        painter.setFont(bold);
        painter.drawText(nameRect, Qt::AlignCenter,
                         QFontMetricsF(bold, painter.device()).elidedText(panel.name, Qt::ElideRight, nameRect.width()));
        QStringList items;
        for (const auto& [key, value] : panel.choice.params) items << QString::fromStdString(key + "=" + value);
        QFont small = painter.font();
        small.setBold(false);
        small.setPointSizeF(7.5);
        painter.setFont(small);
        const QString params = items.isEmpty() ? QStringLiteral("(defaults)") : items.join(QStringLiteral(", "));
        painter.drawText(nameRect.translated(0, nameRect.height()), Qt::AlignCenter,
                         QFontMetricsF(small, painter.device()).elidedText(params, Qt::ElideRight, nameRect.width()));
        painter.restore();
    }
    if (!panel.pattern) {
        painter.save();
        painter.setPen(QColor(0xb0, 0x00, 0x20));
        painter.drawRect(plot);
        painter.drawText(plot.adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap, panel.error);
        painter.restore();
        return;
    }
    PlaneViewport view = m_viewport;
    view.setPlot(plot);
    painter.save();
    painter.setClipRect(plot);
    paintHeatmap(painter, panel, index, view);
    paintOverlays(painter, panel, view);
    painter.restore();
    painter.save();
    painter.setPen(QPen(Qt::black, 0.8));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(plot);
    painter.restore();
    paintAxes(painter, view);
    // A tile with one pixel per cell shows the mask in two colours; coarser tiles show a density.
    const Tile* tile = bestTile(index);
    const bool cellLevel = !tile || (tile->width == tile->region.col1 - tile->region.col0 &&
                                     tile->height == tile->region.row1 - tile->region.row0);
    paintStats(painter, panel, area, cellLevel);
}

void PatternView::paintHeatmap(QPainter& painter, const Panel& panel, int index, const PlaneViewport& view) const {
    painter.fillRect(view.plot(), QColor::fromRgb(emptyCellColor()));
    const Tile* tile = bestTile(index);
    const bool weights = m_settings.showWeights && !panel.weightsImage.isNull();
    const bool smallCells = view.cellSize() >= 1.0;
    painter.setRenderHint(QPainter::SmoothPixmapTransform, !smallCells);
    if (weights) {
        const PlaneRegion region = view.visibleRegion();
        const QRectF source(region.col0, region.row0, region.col1 - region.col0, region.row1 - region.row0);
        painter.drawImage(view.regionRect(region), panel.weightsImage, source);
        if (tile && m_settings.showMaskOutline && !tile->veil.isNull() && view.visibleCells() > 96)
            painter.drawImage(view.regionRect(tile->region), tile->veil);
        return;
    }
    if (tile) painter.drawImage(view.regionRect(tile->region), tile->mask);
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
    if (m_highlightRow && *m_highlightRow < view.n()) {
        const std::int64_t row = *m_highlightRow;
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
    const bool cellLabels = view.visibleCells() <= 64;
    // Cell labels read Q12 / K12 while they fit the margin; long indices drop the letter, and the font
    // shrinks (down to 5 pt) until the widest label fits.
    const double room = kAxisMargin - 6;
    QFont font = painter.font();
    font.setPointSizeF(7.0);
    const std::int64_t largest = std::max(region.row1, region.col1) - 1;
    const bool prefixed = cellLabels && QFontMetricsF(font, painter.device()).horizontalAdvance(QStringLiteral("Q%1").arg(largest)) <= room;
    const auto label = [cellLabels, prefixed](QChar letter, std::int64_t k) {
        return cellLabels && prefixed ? letter + QString::number(k) : QString::number(k);
    };
    const double natural = QFontMetricsF(font, painter.device()).horizontalAdvance(label('Q', largest));
    if (natural > room) font.setPointSizeF(std::max(5.0, 7.0 * room / natural));
    painter.setFont(font);
    const QFontMetricsF metrics(font, painter.device());
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
        painter.drawText(QRectF(plot.left() - kAxisMargin, y - 8, kAxisMargin - 3, 16), Qt::AlignRight | Qt::AlignVCenter, label('Q', k));
    }
    for (std::int64_t k = firstOf(region.col0); k < region.col1; k += stride) {
        const QRectF cell = view.cellRect({region.row0, k});
        const double x = cellLabels ? cell.center().x() : cell.left();
        painter.save();
        painter.translate(x, plot.top() - 3);
        if (cellLabels) painter.rotate(-90);
        painter.drawText(cellLabels ? QRectF(0, -8, kAxisMargin - 3, 16) : QRectF(-30, -16, 60, 14),
                         cellLabels ? (Qt::AlignLeft | Qt::AlignVCenter) : (Qt::AlignHCenter | Qt::AlignBottom), label('K', k));
        painter.restore();
    }
    if (!cellLabels || !prefixed)
        painter.drawText(QRectF(plot.left() - kAxisMargin, plot.top() - kAxisMargin - 2, plot.width() + kAxisMargin, 14),
                         Qt::AlignLeft | Qt::AlignTop, QStringLiteral("query i ↓   key j →"));
    painter.restore();
}

void PatternView::paintStats(QPainter& painter, const Panel& panel, const QRectF& box, bool cellLevel) const {
    const double n = static_cast<double>(panel.n);
    QStringList lines;
    lines << QStringLiteral("nnz: %1").arg(formatCount(static_cast<double>(panel.nnz)))
          << QStringLiteral("density: %1 %").arg(100.0 * static_cast<double>(panel.nnz) / (n * n), 0, 'g', 3)
          << QStringLiteral("mean row length: %1").arg(static_cast<double>(panel.nnz) / n, 0, 'f', 1)
          << QStringLiteral("core MACs: %1 = %2 % of full (%3)")
                 .arg(formatCount(panel.coreMacs))
                 .arg(100.0 * panel.coreMacs / panel.fullMacs, 0, 'g', 3)
                 .arg(formatCount(panel.fullMacs));
    if (!panel.hasMask) lines << QStringLiteral("no mask: shows where W may be non-zero");
    if (m_settings.showWeights && !panel.weightsNote.isEmpty()) lines << panel.weightsNote;
    if (m_highlightRow && *m_highlightRow < panel.n)
        lines << QStringLiteral("row Q%1 attends to %2 keys").arg(*m_highlightRow).arg(panel.pattern->rowCount(*m_highlightRow));
    painter.save();
    QFont font = painter.font();
    font.setPointSizeF(panelCount() > 2 ? 7.5 : 8.5);
    painter.setFont(font);
    const QRectF text = box.adjusted(0, 0, 0, -kLegendHeight - 6);
    painter.drawText(text, Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, lines.join('\n'));
    painter.restore();
    const bool weights = m_settings.showWeights && !panel.weightsImage.isNull();
    paintLegend(painter, QRectF(box.left(), box.bottom() - kLegendHeight, std::min(box.width(), 200.0), kLegendHeight - 4),
                weights, cellLevel);
}

void PatternView::paintLegend(QPainter& painter, const QRectF& box, bool weights, bool cellLevel) const {
    painter.save();
    QFont font = painter.font();
    font.setPointSizeF(7.0);
    painter.setFont(font);
    if (!weights && cellLevel) {
        const double swatch = 12.0;
        const QFontMetricsF metrics(font, painter.device());
        double x = box.left();
        for (const auto& [colour, label] : {std::pair{densityColor(1.0), QStringLiteral("allowed (j ∈ M(i))")},
                                            std::pair{emptyCellColor(), QStringLiteral("masked")}}) {
            painter.setPen(QPen(Qt::black, 0.5));
            painter.setBrush(QColor::fromRgb(colour));
            painter.drawRect(QRectF(x, box.top(), swatch, swatch));
            painter.setPen(Qt::black);
            const double width = metrics.horizontalAdvance(label);
            painter.drawText(QRectF(x + swatch + 4, box.top() - 1, width + 2, swatch + 2), Qt::AlignLeft | Qt::AlignVCenter, label);
            x += swatch + 4 + width + 14;
        }
        painter.restore();
        return;
    }
    const QRectF bar(box.left(), box.top(), box.width(), 10);
    const int steps = 48;
    for (int s = 0; s < steps; ++s) {
        const double t = (s + 0.5) / steps;
        const QRgb colour = weights ? viridis(t) : densityColor(t);
        painter.fillRect(QRectF(bar.left() + bar.width() * s / steps, bar.top(), bar.width() / steps + 0.5, bar.height()),
                         QColor::fromRgb(colour));
    }
    painter.setPen(QPen(Qt::black, 0.5));
    painter.drawRect(bar);
    const QRectF labels(box.left(), bar.bottom() + 1, box.width(), 14);
    painter.drawText(labels, Qt::AlignLeft, weights ? QStringLiteral("0") : QStringLiteral("sparse"));
    painter.drawText(labels, Qt::AlignHCenter, weights ? QStringLiteral("√(w / max w), viridis") : QStringLiteral("allowed share per pixel"));
    painter.drawText(labels, Qt::AlignRight, weights ? QStringLiteral("1") : QStringLiteral("all"));
    painter.restore();
}

// ---------------------------------------------------------------------------------------------------
// Data and interaction

QString PatternView::csvData() const {
    QString csv = QStringLiteral("variant,query_i,allowed_count,allowed_ranges\n");
    if (!m_snapshot) return csv;
    std::vector<ColumnRange> ranges;
    for (const auto& panel : m_snapshot->panels) {
        if (!panel.pattern) continue;
        for (std::int64_t i = 0; i < panel.n; ++i) {
            ranges.clear();
            panel.pattern->rowRanges(i, ranges);
            QStringList items;
            for (const auto& range : ranges) items << QStringLiteral("%1-%2").arg(range.begin).arg(range.end - 1);
            csv += QStringLiteral("%1,%2,%3,%4\n")
                       .arg(QString::fromStdString(panel.choice.variant))
                       .arg(i)
                       .arg(panel.pattern->rowCount(i))
                       .arg(items.join(';'));
        }
    }
    return csv;
}

std::optional<std::pair<int, PlaneCell>> PatternView::hitTest(const QPointF& pixel) const {
    for (int index = 0; index < panelCount(); ++index) {
        PlaneViewport view = m_viewport;
        view.setPlot(plotRect(rect(), index));
        if (const auto cell = view.cellAt(pixel)) return std::pair{index, *cell};
    }
    return std::nullopt;
}

QString PatternView::hoverText(int index, const PlaneCell& cell) const {
    if (!m_snapshot || index >= static_cast<int>(m_snapshot->panels.size())) return {};
    const Panel& panel = m_snapshot->panels[index];
    if (!panel.pattern) return panel.error;
    QString text = QStringLiteral("%1: query i = %2, key j = %3\nallowed: %4")
                       .arg(panel.name)
                       .arg(cell.i)
                       .arg(cell.j)
                       .arg(panel.pattern->allowed(cell.i, cell.j) ? QStringLiteral("yes") : QStringLiteral("no"));
    if (panel.weights)
        text += QStringLiteral("\nweight: %1").arg((*panel.weights)[static_cast<std::size_t>(cell.i * panel.n + cell.j)], 0, 'g', 4);
    return text;
}

void PatternView::mouseMoveEvent(QMouseEvent* event) {
    if (m_dragStart && (event->buttons() & Qt::LeftButton)) {
        const QPointF delta = event->position() - *m_dragStart;
        if (m_dragged || delta.manhattanLength() > 3) {
            m_dragged = true;
            m_viewport.panByPixels(delta);
            m_dragStart = event->position();
            requestTiles();
            scheduleRepaint();
        }
        return;
    }
    if (const auto hit = hitTest(event->position())) {
        const QString text = hoverText(hit->first, hit->second);
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
        emit statusMessage(text.split('\n').join(QStringLiteral("   ")));
    } else {
        QToolTip::hideText();
    }
}

void PatternView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    m_dragStart = event->position();
    m_dragged = false;
}

void PatternView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    if (!m_dragged) {
        const auto hit = hitTest(event->position());
        if (hit && m_highlightRow != hit->second.i)
            m_highlightRow = hit->second.i;
        else
            m_highlightRow.reset();
        scheduleRepaint();
    }
    m_dragStart.reset();
    m_dragged = false;
}

void PatternView::mouseDoubleClickEvent(QMouseEvent*) {
    m_viewport.reset();
    m_highlightRow.reset();
    requestTiles();
    scheduleRepaint();
}

void PatternView::wheelEvent(QWheelEvent* event) {
    const auto hit = hitTest(event->position());
    if (!hit) return;
    PlaneViewport view = m_viewport;
    view.setPlot(plotRect(rect(), hit->first));
    view.zoomAt(event->position(), std::pow(1.0015, event->angleDelta().y()));
    m_viewport.setView(view.zoom(), view.origin());
    requestTiles();
    scheduleRepaint();
    event->accept();
}

void PatternView::resizeEvent(QResizeEvent* event) {
    FigureView::resizeEvent(event);
    syncViewportToWidget();
    requestTiles();
}

} // namespace attnlab
