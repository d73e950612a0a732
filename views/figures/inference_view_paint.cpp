// The Inference view's four panels (InferenceView::drawFigure).
#include "views/figures/inference_view.h"

#include "views/i18n/language.h"

#include "views/plot/legend_below.h"
#include "views/plot/plot_axes.h"
#include "views/plot/variant_colors.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

// Context lengths as LLM papers write them: 512, 4k, 64k, 1M, 16G (binary units, three significant
// digits, never in exponent form).
QString tokensText(double n) {
    static const std::pair<double, const char*> units[] = {{0x1p40, "T"}, {0x1p30, "G"}, {0x1p20, "M"}, {0x1p10, "k"}};
    const auto value = [](double v) { return v >= 100 ? QString::number(std::llround(v)) : QString::number(v, 'g', 3); };
    for (const auto& [scale, suffix] : units)
        if (n >= scale) return value(n / scale) + QLatin1String(suffix);
    return value(n);
}

double layers(const LabSettings& settings) {
    return static_cast<double>(settings.modelLayers);
}

double maxBytes(const KvCacheCurve& curve) {
    double most = 0;
    for (const KvCachePoint& point : curve.points)
        most = std::max(most, point.layerBytes);
    return most;
}

} // namespace

void InferenceView::drawFigure(QPainter& painter, const QRectF& rect) const {
    const QRectF body = m_decode.paintStrips(painter, paintFrame(painter, rect, title(), caption()),
                                              [this](std::size_t k) { return choiceColor(k); });
    const double split = body.left() + body.width() * 0.55, middle = body.top() + body.height() * 0.58;
    paintCache(painter, QRectF(body.topLeft(), QPointF(split - 8, middle - 6)));
    paintPrefill(painter, QRectF(QPointF(body.left(), middle + 6), QPointF(split - 8, body.bottom())));
    paintTiming(painter, QRectF(QPointF(split + 8, body.top()), QPointF(body.right(), middle - 6)));
    paintBandwidth(painter, QRectF(QPointF(split + 8, middle + 6), body.bottomRight()));
}

// What a curve's legend states about the budget: where it runs out, or that it never does — a claim over
// every n only when the curve is defined at every n (a pattern of the grid's primitives exists at the
// grid's n alone, so its cache is stated there and nowhere else).
QString InferenceView::cacheLegendText(const KvCacheCurve& curve) const {
    const QString name = coreText(curve.choice.label);
    if (!curve.error.empty()) return tr("%1: cannot decode").arg(name);
    if (curve.runsOutAt) return tr("%1: out at n = %2").arg(name, compactNumber(static_cast<double>(*curve.runsOutAt)));
    const QString bound = bytesBoundText(maxBytes(curve) * layers(m_settings));
    if (!curve.partial) return tr("%1: never (≤ %2)").arg(name, bound);
    if (curve.points.empty()) return tr("%1: its parameters fit no context length here").arg(name);
    if (curve.points.size() == 1)
        return tr("%1: %2, at n = %3 only").arg(name, bound, compactNumber(static_cast<double>(curve.points.front().n)));
    return tr("%1: ≤ %2 at n = %3 … %4 only")
        .arg(name, bound, compactNumber(static_cast<double>(curve.points.front().n)),
             compactNumber(static_cast<double>(curve.points.back().n)));
}

QColor InferenceView::choiceColor(std::size_t k) const {
    std::vector<std::string> variants;
    for (const InferenceChoice& choice : m_choices) variants.push_back(choice.choice.variant);
    return k < variants.size() ? variantColors(variants)[k] : variantColor(std::string());
}

void InferenceView::paintCache(QPainter& painter, const QRectF& area) const {
    std::vector<double> xs = {16.0, std::ldexp(1.0, m_maxLog2)}, ys = {m_budget};
    std::vector<LegendEntry> legend;
    for (std::size_t k = 0; k < m_curves.size(); ++k) {
        const KvCacheCurve& curve = m_curves[k];
        for (const KvCachePoint& point : curve.points) {
            ys.push_back(point.layerBytes);
            ys.push_back(point.layerBytes * layers(m_settings));
        }
        legend.push_back({cacheLegendText(curve), choiceColor(k), Qt::SolidLine});
    }
    Axis x = Axis::fitted(tr("context length n (tokens)"), AxisScale::Log2, xs);
    x.format = tokensText;
    Axis y = Axis::fitted(tr("KV cache, %1").arg(precisionText()), AxisScale::Log2, ys);
    y.shortLabel = tr("KV cache"); // a decoding frame's short panel: the title states the precision
    y.format = bytesText;
    const bool perLayer = m_settings.modelLayers > 1;
    const QString panel =
        perLayer ? tr("KV cache: %1 layers (solid), one layer (dotted)").arg(m_settings.modelLayers)
                 : tr("KV cache of one layer vs context");
    const PlotAxes axes(painter, legendBelow(painter, area, legend), x, y, panel);
    axes.drawAxes();
    if (m_curves.empty()) {
        axes.drawNotice(tr("computing the cache sizes…"));
        return;
    }
    // Window, window + sinks and chunks keep the same cache (and full the same up to the window):
    // nested widths keep every colour of curves that lie on one another in view.
    std::vector<std::vector<QPointF>> cache(m_curves.size());
    for (std::size_t k = 0; k < m_curves.size(); ++k)
        for (const KvCachePoint& point : m_curves[k].points)
            cache[k].emplace_back(static_cast<double>(point.n), point.layerBytes);
    const std::vector<double> widths = nestedLineWidths(cache);
    for (std::size_t k = 0; k < m_curves.size(); ++k) {
        const QColor color = choiceColor(k);
        Series model{coreText(m_curves[k].choice.label), color, {}, Qt::SolidLine, false, widths[k]};
        Series layer{model.name, color, cache[k], Qt::DotLine, false};
        for (const QPointF& point : cache[k])
            model.points.emplace_back(point.x(), point.y() * layers(m_settings));
        axes.drawSeries(model);
        if (perLayer) axes.drawSeries(layer);
    }
    paintBudget(painter, axes);
    m_decode.paintMarker(axes);
}

// The budget line and, on it, a dot where each curve crosses it with its n above (labels that would touch
// the previous one move up a row).
void InferenceView::paintBudget(QPainter& painter, const PlotAxes& axes) const {
    const QRectF plot = axes.plotRect();
    const double y = axes.mapY(m_budget);
    painter.save();
    painter.setPen(QPen(QColor(0xaa, 0x00, 0x00), 1.5, Qt::DashLine));
    painter.drawLine(QPointF(plot.left(), y), QPointF(plot.right(), y));
    const QFontMetricsF metrics(painter.font(), painter.device());
    const QString budgetLabel = m_settings.memoryBudget > 0
                                    ? tr("memory budget %1").arg(bytesText(m_budget))
                                    : tr("memory budget %1 (this machine's RAM)").arg(bytesText(m_budget));
    const QString shown = metrics.elidedText(budgetLabel, Qt::ElideRight, plot.width() - 8);
    axes.drawLabel(QRectF(plot.left() + 4, y + 2, metrics.horizontalAdvance(shown) + 1, metrics.height()), shown,
                   QColor(0xaa, 0x00, 0x00), Qt::AlignLeft | Qt::AlignTop);
    std::vector<std::pair<double, int>> crossings; // (n, curve)
    for (std::size_t k = 0; k < m_curves.size(); ++k)
        if (m_curves[k].runsOutAt && *m_curves[k].runsOutAt <= std::ldexp(1.0, m_maxLog2))
            crossings.emplace_back(static_cast<double>(*m_curves[k].runsOutAt), static_cast<int>(k));
    std::sort(crossings.begin(), crossings.end());
    double lastRight = -1e9, lastN = -1;
    int row = 0;
    for (const auto& [n, curve] : crossings) {
        const QPointF at(axes.mapX(n), y);
        painter.setPen(QPen(choiceColor(static_cast<std::size_t>(curve)).darker(120), 1.0));
        painter.setBrush(choiceColor(static_cast<std::size_t>(curve)));
        painter.drawEllipse(at, 4.0, 4.0);
        if (n == lastN) continue; // the same context: one label
        const QString text = compactNumber(n);
        const double width = metrics.horizontalAdvance(text);
        row = at.x() - width / 2 < lastRight + 4 ? row + 1 : 0;
        const QRectF box(at.x() - width / 2, y - 6 - (row + 1) * metrics.height(), width, metrics.height());
        axes.drawLabel(box, text, Qt::black, Qt::AlignCenter);
        lastRight = box.right();
        lastN = n;
    }
    painter.restore();
}

void InferenceView::paintTiming(QPainter& painter, const QRectF& area) const {
    std::vector<double> xs, ys;
    for (const std::int64_t n : decodeTimingSizes(m_settings.timingMaxN))
        xs.push_back(static_cast<double>(n));
    for (const DecodeTiming& timing : m_timings)
        if (timing.valid()) ys.push_back(timing.medianSeconds);
    if (ys.empty()) ys = {1e-6, 1e-3};
    Axis x = Axis::fitted(tr("context length n (tokens)"), AxisScale::Log2, xs);
    x.format = tokensText;
    Axis y = Axis::fitted(tr("time per step, one layer"), AxisScale::Log10, ys);
    y.format = durationText;
    const int done = static_cast<int>(m_timings.size() + m_prefills.size());
    const QString panel = done < m_total && busy()
                              ? tr("Decoding step, measured (%1/%2)").arg(done).arg(m_total)
                              : tr("Decoding step, measured");
    std::vector<LegendEntry> legend;
    QStringList starved;
    for (const DecodeTiming& timing : m_timings)
        if (timing.starved())
            starved << QStringLiteral("%1 n = %2")
                           .arg(coreText(m_choices[static_cast<std::size_t>(timing.series)].label))
                           .arg(timing.n);
    if (!starved.isEmpty())
        legend.push_back({tr("CPU-starved, ringed and left out of fits (less than %1% of the cores): %2")
                              .arg(static_cast<int>(kStarvedCpuShare * 100))
                              .arg(starved.join(QStringLiteral("; "))),
                          QColor(), Qt::NoPen, false});
    const PlotAxes axes(painter, legendBelow(painter, area, legend), x, y, panel);
    axes.drawAxes();
    if (m_timings.empty()) {
        axes.drawNotice(busy() ? tr("measuring…") : tr("no measurement"));
        return;
    }
    std::vector<std::vector<QPointF>> times(m_choices.size());
    std::vector<QPointF> rings;
    for (std::size_t k = 0; k < m_choices.size(); ++k)
        for (const DecodeTiming& timing : seriesTimings(static_cast<int>(k))) {
            times[k].emplace_back(static_cast<double>(timing.n), timing.medianSeconds);
            if (timing.starved())
                rings.push_back(axes.map(static_cast<double>(timing.n), timing.medianSeconds));
        }
    const std::vector<double> widths =
        nestedLineWidths(times, 1.6, 0.03); // times within 3 % share a pixel row: nest those curves
    for (std::size_t k = 0; k < m_choices.size(); ++k)
        axes.drawSeries({coreText(m_choices[k].label), choiceColor(k), times[k],
                         Qt::SolidLine, true, widths[k]});
    drawStarvedRings(painter, rings);
    m_decode.paintMarker(axes);
}

// Cached bytes read per second of each curve's steps vs n, the triad as the memory roof, and in the legend
// each curve's fitted read rate (steps that read more than the last-level cache, not starved).
void InferenceView::paintBandwidth(QPainter& painter, const QRectF& area) const {
    std::vector<double> xs, ys = {0.0};
    for (const std::int64_t n : decodeTimingSizes(m_settings.timingMaxN))
        xs.push_back(static_cast<double>(n));
    if (m_peak) ys.push_back(m_peak->bandwidthGBs);
    for (const DecodeTiming& timing : m_timings)
        ys.push_back(timing.bandwidthGBs());
    // The roof first, so a short panel never leaves it out; curves without a fitted rate share one note.
    std::vector<LegendEntry> legend;
    if (m_peak)
        legend.push_back({m_peak->threads == 1 ? tr("STREAM triad on one thread: %1 GB/s (the memory roof)").arg(m_peak->bandwidthGBs, 0, 'f', 1)
                                               : tr("STREAM triad on %1 threads: %2 GB/s (the memory roof)")
                                                     .arg(m_peak->threads)
                                                     .arg(m_peak->bandwidthGBs, 0, 'f', 1),
                          QColor(0xaa, 0x00, 0x00), Qt::DashLine});
    QStringList unfitted;
    for (std::size_t k = 0; k < m_choices.size(); ++k) {
        const std::vector<DecodeTiming> points = seriesTimings(static_cast<int>(k));
        if (points.empty() || points.front().kvReadBytes <= 0) continue;
        const double rate = fittedReadRate(points) / 1e9;
        const QString name = coreText(m_choices[k].label);
        if (!(rate > 0)) {
            unfitted << name;
            continue;
        }
        legend.push_back({m_peak ? tr("%1: %2 GB/s fitted, %3 of the triad")
                                       .arg(name)
                                       .arg(rate, 0, 'f', 1)
                                       .arg(rate / m_peak->bandwidthGBs, 0, 'f', 2)
                                 : tr("%1: %2 GB/s fitted").arg(name).arg(rate, 0, 'f', 1),
                          choiceColor(k), Qt::SolidLine});
    }
    if (!unfitted.isEmpty())
        legend.push_back({tr("no fitted rate (no step read more than the last-level cache): %1").arg(unfitted.join(QStringLiteral(", "))),
                          QColor(), Qt::NoPen, false});
    Axis x = Axis::fitted(tr("context length n (tokens)"), AxisScale::Log2, xs);
    x.format = tokensText;
    const Axis y = Axis::fitted(tr("GB/s"), AxisScale::Linear, ys); // the panel's title says of what
    const PlotAxes axes(painter, legendBelow(painter, area, legend), x, y,
                        tr("Decoding step: cache read bandwidth"));
    axes.drawAxes();
    if (m_peak)
        axes.drawSeries({QString(),
                         QColor(0xaa, 0x00, 0x00),
                         {{x.min, m_peak->bandwidthGBs}, {x.max, m_peak->bandwidthGBs}},
                         Qt::DashLine,
                         false});
    std::vector<QPointF> rings;
    for (std::size_t k = 0; k < m_choices.size(); ++k) {
        Series series{
            coreText(m_choices[k].label), choiceColor(k), {}, Qt::SolidLine, true};
        for (const DecodeTiming& timing : seriesTimings(static_cast<int>(k))) {
            if (timing.kvReadBytes <= 0) continue;
            series.points.emplace_back(static_cast<double>(timing.n), timing.bandwidthGBs());
            if (timing.starved())
                rings.push_back(axes.map(static_cast<double>(timing.n), timing.bandwidthGBs()));
        }
        axes.drawSeries(series);
    }
    drawStarvedRings(painter, rings);
    if (!m_peak) axes.drawNotice(tr("measuring this machine's bandwidth…"));
}

void InferenceView::paintPrefill(QPainter& painter, const QRectF& area) const {
    std::vector<double> xs, ys;
    for (const std::int64_t chunk : prefillChunkSizes(m_settings.n))
        xs.push_back(static_cast<double>(chunk));
    for (const PrefillTiming& timing : m_prefills)
        if (timing.valid()) ys.push_back(timing.seconds);
    if (ys.empty()) ys = {1e-4, 1e-1};
    std::vector<LegendEntry> legend;
    QStringList cannot;
    for (std::size_t k = 0; k < m_choices.size(); ++k)
        for (const PrefillTiming& timing : m_prefills)
            if (timing.series == static_cast<int>(k) && !timing.error.empty() && timing.chunk == m_settings.n)
                cannot << coreText(m_choices[k].label);
    if (!cannot.isEmpty())
        legend.push_back(
            {tr("no chunks over a cache (whole sequences only): %1").arg(cannot.join(QStringLiteral(", "))),
             QColor(), Qt::NoPen, false});
    Axis x = Axis::fitted(tr("chunk of queries c (tokens)"), AxisScale::Log2, xs);
    x.format = tokensText;
    Axis y = Axis::fitted(tr("time to first token"), AxisScale::Log10, ys);
    y.shortLabel = tr("first token");
    y.format = durationText;
    const PlotAxes axes(painter, legendBelow(painter, area, legend), x, y,
                        tr("Chunked prefill of n = %1 (c = n: one prefill)")
                            .arg(tokensText(static_cast<double>(m_settings.n))));
    axes.drawAxes();
    std::vector<QPointF> rings;
    bool any = false;
    for (std::size_t k = 0; k < m_choices.size(); ++k) {
        std::vector<PrefillTiming> points;
        for (const PrefillTiming& timing : m_prefills)
            if (timing.series == static_cast<int>(k) && timing.valid()) points.push_back(timing);
        std::sort(points.begin(), points.end(),
                  [](const PrefillTiming& a, const PrefillTiming& b) { return a.chunk < b.chunk; });
        Series series{
            coreText(m_choices[k].label), choiceColor(k), {}, Qt::SolidLine, true};
        for (const PrefillTiming& timing : points) {
            series.points.emplace_back(static_cast<double>(timing.chunk), timing.seconds);
            if (timing.starved())
                rings.push_back(axes.map(static_cast<double>(timing.chunk), timing.seconds));
        }
        any = any || !points.empty();
        axes.drawSeries(series);
    }
    drawStarvedRings(painter, rings);
    if (!any) axes.drawNotice(busy() ? tr("measuring…") : tr("no measurement"));
}

} // namespace attnlab
