// The timing view's painting: the four panels and the crossover markers.
#include "views/figures/timing_view.h"
#include "views/i18n/language.h"

#include "views/plot/legend_below.h"
#include "views/plot/plot_axes.h"
#include "views/plot/text_style.h"

#include "core/cost/cost_model.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

// Axis range of log-scaled values, ignoring what a log axis cannot show.
std::vector<double> positive(std::vector<double> values) {
    values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !(v > 0) || !std::isfinite(v); }),
                 values.end());
    return values;
}

// n², n√n and n: exponent, label, pen.
struct Guide {
    double exponent;
    const char* label;
    Qt::PenStyle style;
};
constexpr Guide kGuides[] = {{2.0, QT_TRANSLATE_NOOP("attnlab::TimingView", "guide ∝ n²"), Qt::DotLine},
                             {1.5, QT_TRANSLATE_NOOP("attnlab::TimingView", "guide ∝ n√n"), Qt::DashDotDotLine},
                             {1.0, QT_TRANSLATE_NOOP("attnlab::TimingView", "guide ∝ n"), Qt::DashDotLine}};
const QColor kGuideColor(0x88, 0x88, 0x88);

// While it lives, `points` holds only those measured at n ≤ `upTo` (all when unset): an animation's frame
// plays the measured sweep point by point, its fits and legend following the points shown.
class PointsUpTo {
  public:
    PointsUpTo(std::vector<TimingPoint>& points, std::optional<std::int64_t> upTo) : m_points(points) {
        if (!upTo) return;
        m_all = points;
        std::erase_if(points, [n = *upTo](const TimingPoint& point) { return point.shape.n > n; });
    }
    ~PointsUpTo() {
        if (m_all) m_points = std::move(*m_all);
    }
    PointsUpTo(const PointsUpTo&) = delete;
    PointsUpTo& operator=(const PointsUpTo&) = delete;

  private:
    std::vector<TimingPoint>& m_points;
    std::optional<std::vector<TimingPoint>> m_all;
};

} // namespace

void TimingView::paintFigure(QPainter& painter, const QRectF& rect) const {
    const PointsUpTo shown(m_points, m_frameMark.timingUpTo);
    QRectF body = paintFrame(painter, rect, title(), caption());
    // The status line wraps rather than being cut where it is wider than the figure.
    const QString status = statusText();
    const QRectF statusRect = QFontMetricsF(painter.font(), painter.device())
                                  .boundingRect(QRectF(body.left(), body.top() - 2, body.width(), 1e6),
                                                Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, status);
    painter.save();
    painter.setPen(partial() ? QColor(0xB0, 0x00, 0x20) : QColor(0x44, 0x44, 0x44));
    drawAlignedText(painter, QRectF(body.left(), body.top() - 2, body.width(), statusRect.height()),
                    Qt::AlignHCenter | Qt::AlignTop | Qt::TextWordWrap, status);
    painter.restore();
    body.setTop(body.top() + statusRect.height() + 2);

    // The legend and the notes on starved or invalid points go below the panels, where they cover no data.
    const std::vector<LegendEntry> legend = timeLegend();
    const QRectF panels = aboveLegend(painter, body, legend);
    drawLegendBelow(painter, QRectF(body.left(), panels.bottom(), body.width(), body.bottom() - panels.bottom()), legend);
    body = panels;
    const double split = body.left() + body.width() * 0.55;
    const double middle = body.top() + body.height() / 2;
    const QRectF left(body.topLeft(), QPointF(split - 8, body.bottom()));
    const QRectF rightTop(QPointF(split + 8, body.top()), QPointF(body.right(), middle - 6));
    const QRectF rightBottom(QPointF(split + 8, middle + 6), body.bottomRight());
    paintTime(painter, left);
    if (m_settings.timingMode == TimingMode::Layer) {
        paintLayerShare(painter, rightTop);
        paintRate(painter, rightBottom);
    } else {
        paintRate(painter, rightTop);
        paintMemory(painter, rightBottom);
    }
}

bool TimingView::anyValidPoint() const {
    return std::any_of(m_points.begin(), m_points.end(), [](const Point& p) { return p.valid(); });
}

std::vector<LegendEntry> TimingView::timeLegend() const {
    if (!anyValidPoint()) return {};
    const bool layer = m_settings.timingMode == TimingMode::Layer;
    std::vector<LegendEntry> legend;
    // The curves starved at the same n (in layer mode the parts of a layer) share one note.
    std::vector<std::pair<QString, QStringList>> starvedAt; // n list, curves
    QStringList notes;
    for (const SeriesInfo& series : seriesList()) {
        const QString label = seriesLabel(series);
        const auto slopes = seriesSlopes(m_points, series.index);
        const bool blockSlope = slopes && blockModelShown() && std::isfinite(slopes->blockModel);
        const QString name = blockSlope ? TimingView::tr("%1 · slope %2 (cost model %3, block kernel %4)")
                                              .arg(label)
                                              .arg(slopes->measured, 0, 'f', 2)
                                              .arg(slopes->model, 0, 'f', 2)
                                              .arg(slopes->blockModel, 0, 'f', 2)
                             : slopes ? TimingView::tr("%1 · slope %2 (cost model %3)")
                                          .arg(label)
                                          .arg(slopes->measured, 0, 'f', 2)
                                          .arg(slopes->model, 0, 'f', 2)
                             : busy() ? label
                                      : TimingView::tr("%1 · no slope (fewer than %2 trusted points)").arg(label).arg(kSlopeMinPoints);
        legend.push_back({name, seriesColorOf(series), Qt::SolidLine, false});
        QStringList skipped, starved;
        for (const Point* point : seriesPoints(series.index)) {
            if (point->starved()) starved << QString::number(point->shape.n);
            if (!point->valid()) skipped << QString::number(point->shape.n);
        }
        if (!starved.isEmpty()) {
            const QString at = starved.join(QStringLiteral(", "));
            const auto same = std::find_if(starvedAt.begin(), starvedAt.end(), [&](const auto& entry) { return entry.first == at; });
            if (same == starvedAt.end()) starvedAt.push_back({at, {label}});
            else same->second << label;
        }
        if (!skipped.isEmpty() && !layer) notes << TimingView::tr("%1: not valid at n = %2").arg(label, skipped.join(QStringLiteral(", ")));
    }
    legend.push_back({TimingView::tr("cost model; slopes fitted over n ≥ %1, %2 points at least").arg(kSlopeMinN).arg(kSlopeMinPoints),
                      QColor(0x55, 0x55, 0x55), Qt::DashLine, false});
    if (blockModelShown())
        legend.push_back({TimingView::tr("block kernel (B=%1): computed cells of its B×B blocks, fitted as the cost model").arg(m_settings.blockCost),
                          QColor(0x55, 0x55, 0x55), Qt::DotLine, false});
    if (guidesDrawn())
        for (const Guide& guide : kGuides) legend.push_back({TimingView::tr(guide.label), kGuideColor, guide.style, false});
    QStringList starved;
    for (const auto& [at, curves] : starvedAt) starved << TimingView::tr("%1 at n = %2").arg(curves.join(QStringLiteral(", ")), at);
    if (!starved.isEmpty())
        legend.push_back({TimingView::tr("CPU-starved, ringed and left out of fits and crossovers (less than %1% of the cores: other "
                                         "programs were busy): %2")
                              .arg(static_cast<int>(kStarvedCpuShare * 100))
                              .arg(starved.join(QStringLiteral("; "))),
                          QColor(), Qt::NoPen, false});
    notes << gemmNotes();
    for (const QString& note : notes) legend.push_back({note, QColor(), Qt::NoPen, false});
    return legend;
}

void TimingView::paintTime(QPainter& painter, const QRectF& area) const {
    std::vector<double> xs;
    for (const std::int64_t n : sweepSizes(m_settings)) xs.push_back(static_cast<double>(n));
    std::vector<double> ys;
    for (const Point& point : m_points) {
        ys.push_back(point.medianSeconds);
        ys.push_back(predictedSeconds(point));
        if (blockModelShown()) ys.push_back(predictedSeconds(point, CostModel::BlockKernel));
    }
    Axis x = Axis::fitted(sizeAxisLabel(), AxisScale::Log2, xs);
    Axis y = Axis::fitted(TimingView::tr("wall time per run (median)"), AxisScale::Log10, positive(ys));
    y.format = durationText;
    const bool layer = m_settings.timingMode == TimingMode::Layer;
    const PlotAxes axes(painter, area, x, y,
                        layer ? TimingView::tr("Time of each part (log-log); markers: self-attention = FFN") : TimingView::tr("Attention core time (log-log)"));
    axes.drawAxes();
    QString firstError;
    std::vector<QPointF> starvedPoints;
    if (guidesDrawn()) paintGuides(axes);
    for (const SeriesInfo& series : seriesList()) {
        const QColor color = seriesColorOf(series);
        Series measured{seriesLabel(series), color, {}, Qt::SolidLine, true};
        Series predicted{seriesLabel(series), color, {}, Qt::DashLine, false};
        Series block{seriesLabel(series), color, {}, Qt::DotLine, false};
        for (const Point* point : seriesPoints(series.index)) {
            if (!point->valid()) {
                if (firstError.isEmpty()) firstError = QString::fromStdString(point->error);
                continue;
            }
            const double n = static_cast<double>(point->shape.n);
            measured.points.emplace_back(n, point->medianSeconds);
            predicted.points.emplace_back(n, predictedSeconds(*point));
            if (const double seconds = predictedSeconds(*point, CostModel::BlockKernel); blockModelShown() && seconds > 0)
                block.points.emplace_back(n, seconds);
            if (point->starved()) starvedPoints.push_back(axes.map(n, point->medianSeconds));
        }
        axes.drawSeries(block);
        axes.drawSeries(predicted);
        axes.drawSeries(measured);
    }
    drawStarvedRings(painter, starvedPoints);
    if (layer) paintCrossoverMarkers(axes);
    if (anyValidPoint()) return;
    if (!firstError.isEmpty())
        axes.drawNotice(firstError);
    else if (busy())
        axes.drawNotice(TimingView::tr("measuring %1/%2…").arg(m_done).arg(m_total));
    else if (m_total == 0 && !leftOutNotes().isEmpty())
        axes.drawNotice(leftOutNotes().join(QLatin1Char('\n')));
    else if (sweepSizes(m_settings).empty())
        axes.drawNotice(TimingView::tr("no copy of the %1 scaled to 64 … %2 cells: raise the timing sweep's largest n")
                            .arg(gridText(m_settings))
                            .arg(m_settings.timingMaxN));
    else
        axes.drawNotice(TimingView::tr("no measurement yet"));
}

bool TimingView::guidesDrawn() const {
    if (!m_settings.timingGuides) return false;
    const auto valid = [](const Point& point) { return point.valid(); };
    const auto first = std::find_if(m_points.begin(), m_points.end(), valid);
    return first != m_points.end() &&
           std::any_of(first, m_points.end(), [&](const Point& point) { return valid(point) && point.shape.n != first->shape.n; });
}

// n², n√n and n through the measured range, anchored at the geometric mean of the valid times at the
// largest n measured, so each curve's slope can be read against them.
void TimingView::paintGuides(const PlotAxes& axes) const {
    std::int64_t largest = 0, smallest = 0;
    for (const Point& point : m_points)
        if (point.valid()) {
            largest = std::max(largest, point.shape.n);
            smallest = smallest == 0 ? point.shape.n : std::min(smallest, point.shape.n);
        }
    double logSum = 0;
    int count = 0;
    for (const Point& point : m_points)
        if (point.valid() && point.shape.n == largest) logSum += std::log(point.medianSeconds), ++count;
    const double anchor = std::exp(logSum / count);
    for (const Guide& guide : kGuides) {
        Series line{QString(), kGuideColor, {}, guide.style, false};
        for (std::int64_t n = smallest; n <= largest; n *= 2)
            line.points.emplace_back(static_cast<double>(n), anchor * std::pow(static_cast<double>(n) / largest, guide.exponent));
        axes.drawSeries(line);
    }
}

void TimingView::paintCrossoverMarkers(const PlotAxes& axes) const {
    std::vector<VerticalMarker> markers;
    if (const MeasuredCrossover measured = measuredCrossover(); measured.n)
        markers.push_back({*measured.n, TimingView::tr("measured ≈ %1").arg(compactNumber(std::round(*measured.n))), Qt::black, 1});
    if (m_modelCrossover && m_modelCrossover->threshold && *m_modelCrossover->threshold > 0)
        markers.push_back({static_cast<double>(*m_modelCrossover->threshold),
                           TimingView::tr("cost model: %1").arg(attnlab::crossoverText(*m_modelCrossover)), QColor(0x66, 0x66, 0x66), 0});
    axes.drawVerticalMarkers(markers);
}

QString TimingView::crossoverText() const {
    const MeasuredCrossover measured = measuredCrossover();
    const std::vector<std::int64_t> sizes = sweepSizes(m_settings);
    QString found;
    if (measured.n)
        found = QStringLiteral("n ≈ %1").arg(compactNumber(std::round(*measured.n)));
    else if (measured.alwaysAbove && !sizes.empty())
        found = TimingView::tr("already at n = %1").arg(sizes.front());
    else if (busy() || sizes.empty())
        found = TimingView::tr("not yet");
    else
        found = TimingView::tr("not up to n = %1").arg(sizes.back());
    const QString model = m_modelCrossover ? attnlab::crossoverText(*m_modelCrossover) : QStringLiteral("…");
    return TimingView::tr("self-attention > FFN: measured %1, cost model %2").arg(found, model);
}

void TimingView::paintRate(QPainter& painter, const QRectF& area) const {
    std::vector<double> xs;
    for (const std::int64_t n : sweepSizes(m_settings)) xs.push_back(static_cast<double>(n));
    std::vector<double> rates;
    for (const Point& point : m_points)
        if (point.valid()) rates.push_back(point.gflops);
    const PlotAxes axes(painter, area, Axis::fitted(QStringLiteral("n"), AxisScale::Log2, xs),
                        Axis::fitted(TimingView::tr("GFLOP/s"), AxisScale::Linear, rates),
                        TimingView::tr("Rate: 2 × cost-model MACs / median time"));
    axes.drawAxes();
    for (const SeriesInfo& series : seriesList()) {
        Series measured{seriesLabel(series), seriesColorOf(series), {}, Qt::SolidLine, true};
        for (const Point* point : seriesPoints(series.index))
            if (point->valid()) measured.points.emplace_back(static_cast<double>(point->shape.n), point->gflops);
        axes.drawSeries(measured);
    }
}

void TimingView::paintMemory(QPainter& painter, const QRectF& area) const {
    std::vector<double> xs;
    for (const std::int64_t n : sweepSizes(m_settings)) xs.push_back(static_cast<double>(n));
    std::vector<double> bytes;
    for (const Point& point : m_points)
        if (point.valid()) {
            bytes.push_back(point.peakExtraBytes);
            bytes.push_back(point.modelExtraBytes);
        }
    Axis y = Axis::fitted(TimingView::tr("bytes"), AxisScale::Log2, positive(bytes));
    y.format = bytesText;
    const PlotAxes axes(painter, area, Axis::fitted(QStringLiteral("n"), AxisScale::Log2, xs), y,
                        TimingView::tr("Peak extra memory (dashed: model)"));
    axes.drawAxes();
    for (const SeriesInfo& series : seriesList()) {
        const QColor color = seriesColorOf(series);
        Series measured{seriesLabel(series), color, {}, Qt::SolidLine, true};
        Series model{seriesLabel(series), color, {}, Qt::DashLine, false};
        for (const Point* point : seriesPoints(series.index)) {
            if (!point->valid()) continue;
            const double n = static_cast<double>(point->shape.n);
            measured.points.emplace_back(n, point->peakExtraBytes);
            model.points.emplace_back(n, point->modelExtraBytes);
        }
        axes.drawSeries(model);
        axes.drawSeries(measured);
    }
}

void TimingView::paintLayerShare(QPainter& painter, const QRectF& area) const {
    // Share of the measured layer time per part, at every n where all parts were measured.
    std::vector<double> xs;
    std::vector<std::vector<double>> layers(kLayerParts.size());
    for (const auto& [n, seconds] : completeLayers(m_points)) {
        xs.push_back(static_cast<double>(n));
        const double total = seconds[0] + seconds[1] + seconds[2] + seconds[3];
        for (std::size_t k = 0; k < kLayerParts.size(); ++k) layers[k].push_back(100.0 * seconds[k] / total);
    }
    std::vector<double> sizes;
    for (const std::int64_t n : sweepSizes(m_settings)) sizes.push_back(static_cast<double>(n));
    Axis y;
    y.label = TimingView::tr("% of layer time");
    y.min = 0;
    y.max = 100;
    const PlotAxes axes(painter, area, Axis::fitted(QStringLiteral("n"), AxisScale::Log2, sizes), y,
                        TimingView::tr("Measured layer time, stacked"));
    axes.drawAxes();
    if (xs.size() < 2) return;
    std::vector<QColor> colors;
    for (std::size_t part = 0; part < kLayerParts.size(); ++part) colors.push_back(seriesColorOf({kLayerParts[part].id, static_cast<int>(part)}));
    axes.drawStackedAreas(xs, layers, colors);
    paintCrossoverMarkers(axes);
}

} // namespace attnlab
