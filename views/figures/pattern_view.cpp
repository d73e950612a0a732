#include "views/figures/pattern_view.h"
#include "views/plot/figure_text.h"
#include "views/figures/pattern_csv.h"
#include "views/figures/preset_papers.h"
#include "views/i18n/language.h"

#include "views/plot/colormap.h"

#include "core/registry.h"

#include <QFontMetricsF>
#include <QGuiApplication>
#include <QMouseEvent>
#include <QPainter>
#include <QToolTip>

#include <algorithm>
#include <cmath>

namespace attnlab {

// ---------------------------------------------------------------------------------------------------
// PatternView

PatternView::PatternView(QWidget* parent) : FigureView(parent) {
    setMouseTracking(true);
    setFocusPolicy(Qt::StrongFocus); // the arrow keys walk the grid's query
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
    connect(&m_grid.jobs(), &JobRunner::busyChanged, this, [this] { updateBusy(); });
    connect(&m_decode.jobs(), &JobRunner::busyChanged, this, [this] { updateBusy(); });
    m_viewport = PlaneViewport(m_settings.n, QRectF());
    for (JobRunner* jobs : {&m_jobs, &m_tileJobs, &m_grid.jobs(), &m_decode.jobs()})
        connect(jobs, &JobRunner::failed, this, [this](const QString& message) { emit statusMessage(message); });
}

PatternView::~PatternView() = default;

QString PatternView::title() const {
    const bool compare = m_settings.compareVariants.size() > 1;
    const QString what = m_settings.showWeights ? (m_settings.showMaskOutline ? PatternView::tr("Effective weights W with mask outline")
                                                                              : PatternView::tr("Effective weights W"))
                          : m_settings.splitComponents ? PatternView::tr("Pattern components as separate heads (A(1), A(2), …)")
                          : m_settings.showComponents  ? PatternView::tr("Attention pattern coloured by component")
                                                       : PatternView::tr("Attention pattern (allowed set M)");
    // A preset names the paper whose figure it redraws.
    if (const QString paper = presetPaper(m_settings.preset); !paper.isEmpty()) return what + QStringLiteral(" — ") + paper;
    if (compare) return PatternView::tr("%1 — compared").arg(what);
    // One --panel with its own title names the figure.
    if (!m_settings.panelTitles.empty() && !m_settings.panelTitles.front().empty())
        return what + QStringLiteral(" — ") + QString::fromStdString(m_settings.panelTitles.front());
    const VariantInfo* variant = findVariant(m_settings.variant);
    return what + QStringLiteral(" — ") + (variant ? coreText(variant->displayName) : QString::fromStdString(m_settings.variant));
}

bool PatternView::busy() const {
    return m_jobs.busy() || m_tileJobs.busy() || m_grid.busy() || m_decode.busy() ||
           m_repaintTimer.isActive();
}

void PatternView::updateBusy() {
    const bool nowBusy = busy();
    if (nowBusy != m_wasBusy) {
        m_wasBusy = nowBusy;
        emit busyChanged(nowBusy);
    }
}

bool PatternView::needsWork(const LabSettings& before, const LabSettings& after) const {
    return !sameFields(before, after, SettingsUse::PatternFigure);
}

void PatternView::startWork() {
    // Only the query cell changed (the panel's field, the ImGui lab, a session): the patterns stay.
    LabSettings sameQuery = m_settings;
    sameQuery.gridQuery = m_started.gridQuery;
    const bool queryOnly = hasGrid() && !m_jobs.busy() && m_settings.gridQuery != m_started.gridQuery &&
                           sameFields(sameQuery, m_started, SettingsUse::PatternFigure);
    if (m_settings.n != m_started.n || m_settings.source != m_started.source) m_highlightRow.reset();
    m_started = m_settings;
    if (queryOnly) {
        m_highlightRow.reset();
        setGridQuery(gridQueryOf(m_settings, *m_snapshot->grid));
        return;
    }
    startSnapshotJob();
}

bool PatternView::cancelWork() {
    m_jobs.bumpGeneration();
    m_tileJobs.bumpGeneration();
    m_grid.cancel();
    return true;
}

void PatternView::frameMarkChanged() {
    m_decode.update(m_snapshot, m_frameMark.decodeStep, [this] { scheduleRepaint(); });
    updateBusy();
}

void PatternView::startSnapshotJob() {
    m_jobs.bumpGeneration();
    m_tileJobs.bumpGeneration();
    m_grid.cancel();
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
                                GridQuery::Pictures pictures;
                                for (const auto& panel : snapshot.panels) pictures.push_back(panel.picture);
                                m_grid.reset(snapshot.query, std::move(pictures));
                                m_decode.update(m_snapshot, m_frameMark.decodeStep,
                                                [this] { scheduleRepaint(); });
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

std::int64_t PatternView::nnzOf(int index) const {
    if (!m_snapshot || index < 0 || index >= static_cast<int>(m_snapshot->panels.size())) return -1;
    const Panel& panel = m_snapshot->panels[static_cast<std::size_t>(index)];
    return panel.pattern ? panel.nnz : -1;
}

std::optional<BlockCounts> PatternView::blockCountsOf(int index) const {
    if (!m_snapshot || index < 0 || index >= static_cast<int>(m_snapshot->panels.size())) return std::nullopt;
    const Panel& panel = m_snapshot->panels[static_cast<std::size_t>(index)];
    return panel.blocks ? std::optional<BlockCounts>(panel.blocks->counts) : std::nullopt;
}

std::vector<ComponentLegendEntry> PatternView::componentLegend(int index) const {
    if (!m_snapshot || index < 0 || index >= static_cast<int>(m_snapshot->panels.size())) return {};
    return m_snapshot->panels[static_cast<std::size_t>(index)].legend;
}

int PatternView::panelCount() const {
    if (m_snapshot && m_snapshot->settings.splitComponents) return std::max<int>(1, static_cast<int>(m_snapshot->panels.size()));
    return static_cast<int>(std::max<std::size_t>(1, chosenVariants(m_settings).size()));
}

QRectF PatternView::contentRect(const QRectF& rect) {
    const double titleHeight = 32.0, captionHeight = 34.0;
    return QRectF(rect.left() + 8, rect.top() + titleHeight, rect.width() - 16, rect.height() - titleHeight - captionHeight);
}

QRectF PatternView::plotRect(const QRectF& rect, int index) const {
    // Mirrors paintFigure's layout: the frame (title, caption), then panels side by side in compare
    // mode with their stats below, or one panel with its stats on the right; with a grid, the grid
    // pictures above the matrices.
    const QRectF content = contentRect(rect);
    const double matrixShare = hasGrid() ? kGridMatrixShare : 1.0;
    const int count = panelCount();
    if (count == 1) {
        const double down = content.height() - kAxisMargin;
        const double side = std::max(16.0, std::min(content.width() - 230.0 - kAxisMargin, down * matrixShare));
        const double band = hasGrid() ? down - side : 0.0;
        return QRectF(content.left() + kAxisMargin, content.top() + band + kAxisMargin, side, side);
    }
    const double width = content.width() / count;
    const double statsHeight = comparedStatsHeight(content);
    const double nameHeight = compareNameHeight(content);
    const double down = content.height() - kAxisMargin - statsHeight - nameHeight;
    const double side = std::max(16.0, std::min(width - kAxisMargin - 10, down * matrixShare));
    const double left = content.left() + width * index + (width - side - kAxisMargin) / 2 + kAxisMargin;
    const double band = hasGrid() ? down - side : 0.0;
    const double spare = hasGrid() ? 0.0 : std::max(0.0, down - side);
    return QRectF(left, content.top() + nameHeight + band + kAxisMargin + spare / 2, side, side);
}

double PatternView::statsPoints() const {
    const double nominal = panelCount() > 2 ? 7.5 : 8.5;
    return m_settings.fontScale > 1 ? std::max(nominal, kBodyPoints) : nominal;
}

double PatternView::compareStatsHeight(double wrapWidth) const {
    // The block view's counts take two more lines of statistics.
    const double fixed = kCompareStatsHeight + (m_settings.blockView > 0 ? kBlockStatsHeight : 0.0);
    if (m_settings.fontScale <= 1 || !m_snapshot) return fixed;
    // Above font scale 1 (a slide) the statistics take the height of their lines and legend, so that
    // they neither overflow nor leave a blank band across the frame.
    QFont font = QGuiApplication::font();
    font.setPointSizeF(statsPoints());
    const QFontMetricsF metrics(font);
    double tallest = 0;
    for (const Panel& panel : m_snapshot->panels) {
        const QRectF text = metrics.boundingRect(QRectF(0, 0, wrapWidth, 1e6), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                                                 statsLines(panel).join(QLatin1Char('\n')));
        const bool components = !panel.legend.empty() && !m_settings.showWeights;
        const double legend = components ? kComponentLegendLine * static_cast<double>(panel.legend.size()) + 4 : kLegendHeight;
        tallest = std::max(tallest, text.height() + legend + 12);
    }
    return tallest;
}

double PatternView::comparedStatsHeight(const QRectF& content) const {
    // The statistics wrap as wide as a panel, whose side shrinks as they grow: twice round settles it.
    const double matrixShare = hasGrid() ? kGridMatrixShare : 1.0;
    const double width = content.width() / panelCount();
    double height = kCompareStatsHeight;
    for (int round = 0; round < 2; ++round) {
        const double down = content.height() - kAxisMargin - height - compareNameHeight(content);
        height = compareStatsHeight(std::max(16.0, std::min(width - kAxisMargin - 10, down * matrixShare)) + kAxisMargin);
    }
    return height;
}

QString PatternView::syntheticInputNote() const {
    switch (m_settings.source) {
    case InputSource::RandomGaussian: return PatternView::tr("synthetic Q/K: Gaussian, seed %1").arg(m_settings.inputSeed);
    case InputSource::LocalSimilarity: return PatternView::tr("synthetic Q/K: local similarity, seed %1").arg(m_settings.inputSeed);
    case InputSource::NpyFiles: return {};
    }
    return {};
}

void PatternView::syncViewportToWidget() { m_viewport.setPlot(plotRect(layoutRect(), 0)); }

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
    // One cell per image pixel while cells are at least a pixel wide, else one pixel per whole block of
    // cells: the smallest block that fits the plot's device pixels.
    const std::int64_t block = densityBlock(std::max(region.col1 - region.col0, region.row1 - region.row0), static_cast<int>(pixels));
    const bool withVeil = m_settings.showWeights;
    for (std::size_t index = 0; index < m_snapshot->panels.size(); ++index) {
        const Panel& panel = m_snapshot->panels[index];
        if (!panel.pattern) continue;
        auto& cached = m_tiles[index];
        const auto hit = std::find_if(cached.begin(), cached.end(), [&](const auto& tile) {
            return tile->region == region && tile->block == block && tile->veil.isNull() == !withVeil;
        });
        if (hit != cached.end()) {
            std::rotate(hit, hit + 1, cached.end());
            continue;
        }
        m_tileJobs.submit<std::shared_ptr<const Tile>>(
            [snapshot = m_snapshot, index, region, block, withVeil](const CancelCheck&) {
                return std::make_shared<const Tile>(buildPatternTile(snapshot->panels[index], region, block, withVeil));
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
// Data and interaction

QString PatternView::csvData() const {
    // The grid columns follow the query as the user moved it.
    return m_snapshot ? patternCsv(*m_snapshot, hasGrid() ? m_grid.query() : -1) : patternCsv(PatternSnapshot{});
}

std::optional<std::pair<int, PlaneCell>> PatternView::hitTest(const QPointF& pixel) const {
    for (int index = 0; index < panelCount(); ++index) {
        PlaneViewport view = m_viewport;
        view.setPlot(plotRect(layoutRect(), index));
        if (const auto cell = view.cellAt(pixel)) return std::pair{index, *cell};
    }
    return std::nullopt;
}

QString PatternView::hoverText(int index, const PlaneCell& cell) const {
    if (!m_snapshot || index >= static_cast<int>(m_snapshot->panels.size())) return {};
    const Panel& panel = m_snapshot->panels[index];
    if (!panel.pattern) return panel.error;
    QString text = PatternView::tr("%1: query i = %2, key j = %3\nallowed: %4")
                       .arg(panel.name)
                       .arg(cell.i)
                       .arg(cell.j)
                       .arg(panel.pattern->allowed(cell.i, cell.j) ? PatternView::tr("yes") : PatternView::tr("no"));
    if (panel.components && panel.pattern->allowed(cell.i, cell.j)) {
        std::vector<ComponentRange> runs;
        panel.components->rowComponents(cell.i, runs);
        for (const auto& run : runs)
            if (run.begin <= cell.j && cell.j < run.end)
                for (const auto& entry : panel.legend)
                    if (entry.component == run.component) text += tr("\ncomponent %1: %2").arg(run.component).arg(entry.text);
    }
    if (panel.weights)
        text += QLatin1Char('\n') + PatternView::tr("weight: %1").arg((*panel.weights)[static_cast<std::size_t>(cell.i * panel.n + cell.j)], 0, 'g', 4);
    return text;
}

void PatternView::mouseMoveEvent(QMouseEvent* event) {
    if (m_dragStart && (event->buttons() & Qt::LeftButton)) {
        const QPointF delta = toLayout(event->position()) - *m_dragStart;
        if (m_dragged || delta.manhattanLength() > 3) {
            m_dragged = true;
            m_viewport.panByPixels(delta);
            m_dragStart = toLayout(event->position());
            requestTiles();
            scheduleRepaint();
        }
        return;
    }
    if (const auto position = gridHit(toLayout(event->position()))) {
        const QString text = gridHoverText(*position);
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
        emit statusMessage(text.split('\n').join(QStringLiteral("   ")));
    } else if (const auto hit = hitTest(toLayout(event->position()))) {
        if (hasGrid() && !m_highlightRow) setGridQuery(queryOfRow(hit->first, hit->second.i)); // a clicked row pins the query
        const QString text = hoverText(hit->first, hit->second);
        QToolTip::showText(event->globalPosition().toPoint(), text, this);
        emit statusMessage(text.split('\n').join(QStringLiteral("   ")));
    } else {
        QToolTip::hideText();
    }
}

void PatternView::mousePressEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    m_dragStart = toLayout(event->position());
    m_dragged = false;
}

void PatternView::mouseReleaseEvent(QMouseEvent* event) {
    if (event->button() != Qt::LeftButton) return;
    if (const auto position = gridHit(toLayout(event->position())); position && !m_dragged) {
        m_highlightRow.reset();
        setGridQuery(*position);
    } else if (!m_dragged) {
        const auto hit = hitTest(toLayout(event->position()));
        // On a grid the row pinned is kept as the query cell's position in the grid's order.
        const std::optional<std::int64_t> row = hit ? std::optional(queryOfRow(hit->first, hit->second.i)) : std::nullopt;
        if (row && m_highlightRow != row)
            m_highlightRow = row;
        else
            m_highlightRow.reset();
        if (m_highlightRow) setGridQuery(*m_highlightRow);
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
    const auto hit = hitTest(toLayout(event->position()));
    if (!hit) return;
    PlaneViewport view = m_viewport;
    view.setPlot(plotRect(layoutRect(), hit->first));
    view.zoomAt(toLayout(event->position()), std::pow(1.0015, event->angleDelta().y()));
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
