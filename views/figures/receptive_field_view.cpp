#include "views/figures/receptive_field_view.h"
#include "views/figures/preset_papers.h"
#include "views/i18n/language.h"

#include "views/figures/reach_snapshot.h"
#include "views/plot/animation_frame.h"
#include "views/plot/colormap.h"
#include "views/plot/legend_below.h"
#include "views/plot/plot_axes.h"
#include "views/plot/figure_text.h"
#include "views/plot/text_style.h"
#include "views/plot/variant_colors.h"

#include "core/errors.h"
#include "core/registry.h"

#include <QFontMetricsF>
#include <QGuiApplication>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <map>
#include <vector>

namespace attnlab {

namespace {

constexpr double kTitleReserve = 36.0;   // paintFrame's title with its margins
constexpr double kCaptionReserve = 48.0; // up to three caption lines
constexpr double kLegendHeight = 48.0;
constexpr double kAxisMargin = 30.0;
constexpr double kNameHeight = 18.0;
constexpr QRgb kSelfColor = 0xff000000; // opaque black
const QColor kMarkerColor(0x33, 0x33, 0x33);
const QColor kCausalColor(0x88, 0x88, 0x88);

struct Layout {
    QRectF heatmaps; // the heatmaps with their names and index labels, leaving room for their legend below
    QRectF curves;   // the two reach-vs-layers plots and their legend
};

Layout layoutOf(const QRectF& rect) {
    const QRectF content(rect.left() + 8, rect.top() + kTitleReserve, rect.width() - 16,
                         rect.height() - kTitleReserve - kCaptionReserve);
    const double split = content.left() + content.width() * 0.5;
    return {QRectF(content.left(), content.top(), split - content.left(), content.height() - kLegendHeight),
            QRectF(split + 12, content.top(), content.right() - split - 12, content.height())};
}

const ReceptiveFieldView::Panel* firstCausal(const ReceptiveFieldView::Snapshot& snapshot) {
    for (const auto& panel : snapshot.panels)
        if (panel.causal && !panel.curve.fractionReachable.empty()) return &panel;
    return nullptr;
}

// The core's label is a formula with a citation and two words of prose ("reach", "field"); those two are
// translated as terms, the formula and the citation stay.
QString theoryLabel(const ReachTheory& theory) {
    return coreText(theory.label)
        .replace(QStringLiteral(" reach "), ReceptiveFieldView::tr(" reach "))
        .replace(QStringLiteral(": field "), ReceptiveFieldView::tr(": field "));
}

std::vector<QPointF> theoryPoints(const ReachTheory& theory) {
    std::vector<QPointF> points;
    for (const auto& [layers, reach] : theory.maxReach) points.emplace_back(layers, reach);
    return points;
}

// Each panel's curve colour: its variant's.
std::vector<QColor> panelColours(const std::vector<ReceptiveFieldView::Panel>& panels) {
    std::vector<std::string> variants;
    for (const auto& panel : panels) variants.push_back(panel.choice.variant);
    return variantColors(variants);
}

// Variants (their colour), the papers' formulas and the causal ceiling, in the order they are drawn.
std::vector<LegendEntry> curveLegend(const ReceptiveFieldView::Snapshot& snapshot) {
    std::vector<LegendEntry> legend;
    const std::vector<QColor> colours = panelColours(snapshot.panels);
    for (int index = 0; index < static_cast<int>(snapshot.panels.size()); ++index) {
        const auto& panel = snapshot.panels[index];
        if (panel.curve.fractionReachable.empty()) continue;
        legend.push_back({panel.name, colours[static_cast<std::size_t>(index)], Qt::SolidLine, false});
        if (!panel.theory.maxReach.empty()) legend.push_back({theoryLabel(panel.theory), Qt::black, Qt::DotLine, false});
        if (panel.theory.allPairsBy > 0) legend.push_back({theoryLabel(panel.theory), kMarkerColor, Qt::DashLine, false});
    }
    if (firstCausal(snapshot)) legend.push_back({ReceptiveFieldView::tr("all causal pairs j ≤ i: (n + 1) / 2n"), kCausalColor, Qt::DotLine, false});
    return legend;
}

QString integerTick(double value) { return value == std::round(value) ? QString::number(static_cast<long long>(value)) : QString(); }

// The panel's heatmap in the hop colours of `scale` layers (the snapshot's image has those of its own L).
QImage hopImage(const ReceptiveFieldView::Panel& panel, int scale) {
    QImage image(panel.cols, panel.rows, QImage::Format_RGB32);
    for (int y = 0; y < panel.rows; ++y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        for (int x = 0; x < panel.cols; ++x)
            line[x] = ReceptiveFieldView::hopColor(
                panel.cells[static_cast<std::size_t>(y) * static_cast<std::size_t>(panel.cols) +
                            static_cast<std::size_t>(x)],
                panel.layers, scale);
    }
    return image;
}

} // namespace

// ---------------------------------------------------------------------------------------------------

ReceptiveFieldView::ReceptiveFieldView(QWidget* parent) : FigureView(parent) {
    setMouseTracking(true);
    setMinimumSize(420, 320);
    setFocusPolicy(Qt::StrongFocus); // the arrow keys walk the grid's query
    watchJobs(m_jobs);
    watchJobs(m_grid.jobs());
}

ReceptiveFieldView::~ReceptiveFieldView() = default;

QRgb ReceptiveFieldView::hopColor(int hops, int layers, int scale) {
    if (hops == 0) return kSelfColor;
    if (hops > layers) return emptyCellColor();
    scale = std::max(scale, layers);
    return viridis(scale > 1 ? static_cast<double>(hops - 1) / (scale - 1) : 0.0);
}

QString ReceptiveFieldView::title() const {
    const QString what = m_settings.layers == 1 ? ReceptiveFieldView::tr("Receptive field of one layer")
                                                : ReceptiveFieldView::tr("Receptive field of %1 stacked layers").arg(m_settings.layers);
    if (const QString paper = presetPaper(m_settings.preset); !paper.isEmpty()) return what + QStringLiteral(" — ") + paper;
    if (m_settings.compareVariants.size() > 1) return ReceptiveFieldView::tr("%1 — compared").arg(what);
    const VariantInfo* variant = findVariant(m_settings.variant);
    return what + QStringLiteral(" — ") + (variant ? coreText(variant->displayName) : QString::fromStdString(m_settings.variant));
}

QString ReceptiveFieldView::caption() const {
    QString text = settingsCaption(m_settings) + ReceptiveFieldView::tr("   layers L=%1   head=%2").arg(m_settings.layers).arg(m_settings.head);
    if (m_snapshot && !m_snapshot->note.isEmpty()) text += QStringLiteral("   (") + m_snapshot->note + QLatin1Char(')');
    return text + ReceptiveFieldView::tr("   |   every layer uses the same pattern with a residual path: input j reaches query i after "
                                 "l layers iff j is within l hops of i");
}

bool ReceptiveFieldView::needsWork(const LabSettings& before, const LabSettings& after) const {
    return !sameFields(before, after, SettingsUse::Reach);
}

void ReceptiveFieldView::startWork() {
    m_jobs.bumpGeneration();
    m_grid.cancel();
    const LabSettings settings = m_settings;
    m_jobs.submit<Snapshot>([settings](const CancelCheck& cancelled) { return buildReachSnapshot(settings, cancelled); },
                            [this](const Snapshot& snapshot) {
                                m_snapshot = std::make_shared<const Snapshot>(snapshot);
                                GridQuery::Pictures pictures;
                                for (const auto& panel : snapshot.panels) pictures.push_back(panel.picture);
                                m_grid.reset(snapshot.query, std::move(pictures));
                                for (const auto& panel : snapshot.panels)
                                    if (!panel.error.isEmpty()) {
                                        emit statusMessage(panel.error);
                                        break;
                                    }
                                update();
                            });
    update();
}

int ReceptiveFieldView::panelCount() const {
    return static_cast<int>(std::max<std::size_t>(1, chosenVariants(m_settings).size()));
}

QRectF ReceptiveFieldView::heatmapRect(const QRectF& rect, int index) const { return panelBoxes(rect, index).second; }

QRectF ReceptiveFieldView::gridRect(const QRectF& rect, int index) const { return panelBoxes(rect, index).first; }

std::pair<QRectF, QRectF> ReceptiveFieldView::panelBoxes(const QRectF& rect, int index) const {
    const QRectF area = layoutOf(rect).heatmaps;
    const int count = panelCount();
    const int columns = count == 1 ? 1 : 2, rows = count > 2 ? 2 : 1;
    const double width = area.width() / columns, height = area.height() / rows;
    const double labelTop = 14.0;
    // Top to bottom: the name, with a grid its picture, the index labels, the heatmap.
    const double name = nameHeight(width - 8);
    const double down = height - name - labelTop - 4;
    const double side = std::max(16.0, std::min(width - kAxisMargin - 8, hasGrid() ? 0.55 * down : down));
    const double band = hasGrid() ? down - side : 0.0;
    const double left = area.left() + (index % columns) * width + kAxisMargin + (width - kAxisMargin - 8 - side) / 2;
    const double gridTop = area.top() + (index / columns) * height + name;
    const QRectF grid = hasGrid() ? QRectF(area.left() + (index % columns) * width + 4, gridTop, width - 8, std::max(0.0, band - 4)) : QRectF();
    return {grid, QRectF(left, gridTop + band + labelTop, side, side)};
}

double ReceptiveFieldView::nameHeight(double room) const {
    // Compared panels' names take two lines when one of them does not fit on one (NATTEN's, the sliding tiles').
    if (panelCount() == 1 || !m_snapshot) return kNameHeight;
    QFont font = QGuiApplication::font();
    font.setPointSizeF(kBodyPoints);
    for (const Panel& panel : m_snapshot->panels)
        if (fittedLines(headingFont(font, panel.name), room, panel.name) > 1) return 2 * kNameHeight;
    return kNameHeight;
}

void ReceptiveFieldView::drawFigure(QPainter& painter, const QRectF& rect) const {
    const QRectF body = FigureView::paintFrame(painter, rect, title(), caption());
    if (!m_snapshot) {
        drawAlignedText(painter, rect, Qt::AlignCenter, ReceptiveFieldView::tr("Computing the receptive field…"));
        return;
    }
    const Layout layout = layoutOf(rect);
    for (int index = 0; index < static_cast<int>(m_snapshot->panels.size()); ++index) {
        const Panel& panel = m_snapshot->panels[index];
        const QRectF plot = heatmapRect(rect, index);
        const QRectF gridBox = gridRect(rect, index);
        const double column = layout.heatmaps.width() / (panelCount() == 1 ? 1 : 2);
        const double nameSpace = nameHeight(column - 8);
        const double nameTop = (gridBox.isEmpty() ? plot.top() - 14 : gridBox.top()) - nameSpace;
        // One panel's title may take the whole width of the heatmaps' column: a grid narrows the heatmap
        // below it, not the room for its title.
        const QRectF nameRect(layout.heatmaps.left() + (index % 2) * column + 4, nameTop, column - 8, nameSpace);
        const QString heading = panelCount() > 1 ? panel.name : ReceptiveFieldView::tr("hops(i, j): layers until query i sees input j");
        painter.save();
        painter.setFont(headingFont(painter.font(), heading));
        drawFittedLines(painter, nameRect, Qt::AlignCenter, heading);
        painter.restore();
        if (!gridBox.isEmpty()) paintGridPanel(painter, index, gridBox);
        paintHeatmap(painter, panel, plot);
    }
    const QRectF hopLegend(layout.heatmaps.left() + kAxisMargin, heatmapRect(rect, panelCount() - 1).bottom() + 8,
                           layout.heatmaps.width() - kAxisMargin, kLegendHeight);
    paintHopLegend(painter, hopLegend);
    // The curves' legend goes under the heatmaps when they leave room for it, else under the curves.
    const std::vector<LegendEntry> legend = curveLegend(*m_snapshot);
    const double legendHeight = static_cast<double>(legend.size()) * kLegendRowHeight + 8;
    const QRectF spare(hopLegend.left(), hopLegend.bottom() + 4, hopLegend.width(), layout.heatmaps.bottom() + kLegendHeight - hopLegend.bottom() - 4);
    const bool legendLeft = spare.height() >= legendHeight;
    // A caption longer than kCaptionReserve (e.g. many variants listed) takes room from the curves.
    const QRectF curvesArea = layout.curves.adjusted(0, 0, 0, std::min(0.0, body.bottom() - layout.curves.bottom()));
    const QRectF curves = legendLeft ? curvesArea : curvesArea.adjusted(0, 0, 0, -legendHeight);
    paintCurves(painter, curves);
    drawLegendRows(painter, legendLeft ? spare : QRectF(curves.left() + 12, curves.bottom() + 6, curves.width() - 12, legendHeight), legend);
}

void ReceptiveFieldView::paintHeatmap(QPainter& painter, const Panel& panel, const QRectF& plot) const {
    painter.save();
    if (panel.image.isNull()) {
        painter.setPen(panel.error.isEmpty() ? QColor(0x55, 0x55, 0x55) : QColor(0xb0, 0x00, 0x20));
        painter.drawRect(plot);
        drawAlignedText(painter, plot.adjusted(8, 8, -8, -8), Qt::AlignCenter | Qt::TextWordWrap,
                        panel.error.isEmpty() ? ReceptiveFieldView::tr("cancelled") : panel.error);
        painter.restore();
        return;
    }
    // Cells are discrete hop counts: nearest-neighbour scaling keeps every drawn colour a legend colour.
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    const int scale = heldScaleMaximum(kHopScale, panel.layers);
    painter.drawImage(plot, scale == panel.layers ? panel.image : hopImage(panel, scale));
    painter.setPen(QPen(Qt::black, 0.8));
    painter.setBrush(Qt::NoBrush);
    painter.drawRect(plot);

    QFont font = painter.font();
    font.setPointSizeF(smallPrintPoints(7.0));
    painter.setFont(font);
    painter.setPen(QColor(0x30, 0x30, 0x30));
    const double n = static_cast<double>(panel.n);
    for (const double fraction : {0.0, 0.5, 1.0}) {
        const QString label = QString::number(static_cast<long long>(std::llround(fraction * n)));
        const double x = plot.left() + fraction * plot.width(), y = plot.top() + fraction * plot.height();
        drawAlignedText(painter, QRectF(x - 30, plot.top() - 14, 60, 12), Qt::AlignHCenter | Qt::AlignBottom, label);
        drawAlignedText(painter, QRectF(plot.left() - kAxisMargin, y - 7, kAxisMargin - 3, 14), Qt::AlignRight | Qt::AlignVCenter, label);
    }
    painter.restore();
}

void ReceptiveFieldView::paintHopLegend(QPainter& painter, const QRectF& box) const {
    const int layers = static_cast<int>(m_settings.layers);
    const int scale = heldScaleMaximum(kHopScale, layers);
    painter.save();
    QFont font = painter.font();
    font.setPointSizeF(smallPrintPoints(7.5));
    painter.setFont(font);
    const QFontMetricsF metrics(font, painter.device());
    const double swatch = 12.0, line = metrics.height();
    double x = box.left();
    const auto entry = [&](QRgb colour, const QString& label) {
        painter.setPen(QPen(QColor(0x77, 0x77, 0x77), 0.6));
        painter.setBrush(QColor::fromRgb(colour));
        painter.drawRect(QRectF(x, box.top() + (line - swatch) / 2, swatch, swatch));
        painter.setPen(Qt::black);
        const double width = metrics.horizontalAdvance(label);
        drawAlignedText(painter, QRectF(x + swatch + 3, box.top(), width + 2, line), Qt::AlignLeft | Qt::AlignVCenter, label);
        x += swatch + width + 12;
    };
    entry(kSelfColor, ReceptiveFieldView::tr("0 (i itself)"));
    if (layers <= 8) {
        for (int hops = 1; hops <= layers; ++hops)
            entry(hopColor(hops, layers, scale), QString::number(hops));
    } else {
        // A continuous bar from 1 to L: too many levels for one swatch each.
        const QRectF bar(x, box.top() + (line - swatch) / 2, std::min(150.0, box.right() - x - 110), swatch);
        for (int hops = 1; hops <= layers; ++hops)
            painter.fillRect(QRectF(bar.left() + bar.width() * (hops - 1) / layers, bar.top(),
                                    bar.width() / layers + 0.5, bar.height()),
                             QColor::fromRgb(hopColor(hops, layers, scale)));
        painter.setPen(Qt::black);
        drawAlignedText(painter, QRectF(bar.left(), bar.bottom(), bar.width(), line), Qt::AlignLeft, QStringLiteral("1"));
        drawAlignedText(painter, QRectF(bar.left(), bar.bottom(), bar.width(), line), Qt::AlignRight, QString::number(layers));
        x = bar.right() + 8;
    }
    entry(hopColor(layers + 1, layers), ReceptiveFieldView::tr("not within %1").arg(layers));
    QStringList notes;
    if (m_snapshot)
        for (const auto& panel : m_snapshot->panels)
            if (!panel.heatmapNote.isEmpty() && !notes.contains(panel.heatmapNote)) notes << panel.heatmapNote;
    painter.setPen(QColor(0x44, 0x44, 0x44));
    notes.prepend(ReceptiveFieldView::tr("rows: query i (0 at the top), columns: input j; colour: layers until i sees j"));
    // The notes wrap in what is left of the box; a narrow figure takes them in a smaller font rather than
    // letting them run into the panel below.
    const double top = box.top() + line + (layers > 8 ? line : 2);
    const QRectF noteBox(box.left(), top, box.width(), box.bottom() - top);
    const int flags = Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap;
    const auto fits = [&](const QStringList& lines) {
        return QFontMetricsF(font, painter.device()).boundingRect(noteBox, flags, lines.join('\n')).height() <= noteBox.height();
    };
    for (double size = font.pointSizeF(); size >= smallPrintPoints(6.0); size -= 0.5) {
        font.setPointSizeF(size);
        if (fits(notes)) break;
    }
    // Where even the smallest font does not hold them, the later notes are left out (the CSV keeps them).
    while (notes.size() > 1 && !fits(notes)) notes.removeLast();
    const QString text = notes.join('\n');
    painter.setFont(font);
    drawAlignedText(painter, noteBox, flags, text);
    painter.restore();
}

void ReceptiveFieldView::paintCurves(QPainter& painter, const QRectF& area) const {
    const auto& panels = m_snapshot->panels;
    std::map<int, QStringList> allPairsMarkers; // layers → variants connecting every pair by then
    for (const auto& panel : panels)
        if (panel.theory.allPairsBy > 0) allPairsMarkers[panel.theory.allPairsBy] << QString::fromStdString(panel.choice.variant);
    const Panel* causalPanel = firstCausal(*m_snapshot);
    const double plotHeight = std::max(40.0, area.height() / 2 - 4);
    const QRectF top(area.left(), area.top(), area.width(), plotHeight);
    const QRectF bottom(area.left(), top.bottom() + 8, area.width(), plotHeight);
    Axis layersAxis;
    layersAxis.label = ReceptiveFieldView::tr("layers l");
    layersAxis.min = 0;
    layersAxis.max = std::max<double>(1, static_cast<double>(m_settings.layers));
    layersAxis.format = integerTick;

    Axis fractionAxis;
    fractionAxis.label = ReceptiveFieldView::tr("pairs (i, j) reachable");
    fractionAxis.max = 1;
    fractionAxis.format = [](double value) { return QStringLiteral("%1 %").arg(100.0 * value, 0, 'g', 3); };
    const PlotAxes fraction(painter, top, layersAxis, fractionAxis, ReceptiveFieldView::tr("Share of the n² pairs reachable within l layers"));
    fraction.drawAxes();

    std::vector<double> distances;
    for (const auto& panel : panels) {
        distances.insert(distances.end(), panel.curve.maxReachDistance.begin(), panel.curve.maxReachDistance.end());
        for (const auto& point : panel.theory.maxReach) distances.push_back(point.second);
    }
    const Axis distanceAxis = Axis::fitted(ReceptiveFieldView::tr("farthest |i − j| reached"), AxisScale::Linear, distances);
    const PlotAxes reach(painter, bottom, layersAxis, distanceAxis,
                         ReceptiveFieldView::tr("Reach distance: max (solid) and mean (dashed) over queries"));
    reach.drawAxes();

    if (causalPanel) {
        const double share = (static_cast<double>(causalPanel->n) + 1) / (2.0 * static_cast<double>(causalPanel->n));
        fraction.drawSeries({QString(),
                             kCausalColor,
                             {{fraction.xAxis().min, share}, {fraction.xAxis().max, share}},
                             Qt::DotLine,
                             false});
    }
    std::vector<VerticalMarker> markers;
    for (const auto& [l, variants] : allPairsMarkers)
        markers.push_back({static_cast<double>(l), ReceptiveFieldView::tr("all pairs: %1").arg(variants.join(QStringLiteral(", "))),
                           kMarkerColor, static_cast<int>(markers.size())});
    fraction.drawVerticalMarkers(markers);
    const std::vector<QColor> colours = panelColours(panels);
    for (int index = 0; index < static_cast<int>(panels.size()); ++index) {
        const Panel& panel = panels[index];
        const QColor colour = colours[static_cast<std::size_t>(index)];
        Series share{panel.name, colour, {}}, farthest{panel.name, colour, {}}, mean{panel.name, colour, {}, Qt::DashLine, false};
        for (int l = 0; l < static_cast<int>(panel.curve.fractionReachable.size()); ++l) {
            share.points.emplace_back(l, panel.curve.fractionReachable[l]);
            farthest.points.emplace_back(l, panel.curve.maxReachDistance[l]);
            mean.points.emplace_back(l, panel.curve.meanReachDistance[l]);
        }
        fraction.drawSeries(share);
        reach.drawSeries(mean);
        reach.drawSeries(farthest);
        if (!panel.theory.maxReach.empty()) reach.drawSeries({theoryLabel(panel.theory), Qt::black, theoryPoints(panel.theory), Qt::DotLine, false});
    }
}

} // namespace attnlab
