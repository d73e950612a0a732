#include "views/figures/inference_view.h"

#include "views/i18n/language.h"

#include "views/plot/legend_below.h"
#include "views/plot/plot_axes.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

struct CacheCurves {
    std::vector<KvCacheCurve> curves;
    int maxLog2 = 20;
};

// The curves from n = 16 to twice the largest context that runs out (at least 2^20, at most 2^40).
CacheCurves cacheCurves(const LabSettings& settings, const std::vector<InferenceChoice>& choices, double budget) {
    int maxLog2 = 20;
    for (const InferenceChoice& choice : choices)
        if (const auto limit = contextLimit(settings, choice.choice, budget))
            maxLog2 = std::max(maxLog2, static_cast<int>(std::ceil(std::log2(static_cast<double>(*limit)))) + 1);
    CacheCurves result;
    result.maxLog2 = std::min(maxLog2, 40);
    for (const InferenceChoice& choice : choices) result.curves.push_back(kvCacheCurve(settings, choice, budget, result.maxLog2));
    return result;
}

// Context lengths as LLM papers write them: 512, 4k, 64k, 1M (powers of two).
QString tokensText(double n) {
    if (n >= 1048576) return QStringLiteral("%1M").arg(n / 1048576, 0, 'g', 4);
    if (n >= 1024) return QStringLiteral("%1k").arg(n / 1024, 0, 'g', 4);
    return QString::number(n, 'g', 6);
}

double layers(const LabSettings& settings) { return static_cast<double>(settings.modelLayers); }

double maxBytes(const KvCacheCurve& curve) {
    double most = 0;
    for (const KvCachePoint& point : curve.points) most = std::max(most, point.layerBytes);
    return most;
}

} // namespace

InferenceView::InferenceView(QWidget* parent) : FigureView(parent) {
    watchJobs(m_jobs);
    watchJobs(m_decode.jobs());
}

QString InferenceView::title() const {
    return tr("Decoding: KV cache and step time (h=%1, h_kv=%2, d=%3, L=%4)")
        .arg(m_settings.heads)
        .arg(m_settings.kvHeads > 0 ? m_settings.kvHeads : m_settings.heads)
        .arg(m_settings.d)
        .arg(m_settings.modelLayers);
}

QString InferenceView::caption() const {
    return settingsCaption(m_settings) +
           tr("   |   KV cache: what one layer must keep after a step to produce every later token exactly, "
              "float32: retained keys × h_kv × (d + d_v) × 4 bytes, plus any recurrent state (docs/inference.md). "
              "Memory budget %1. Decoding step: one query row against a cache of n − 1 tokens, median of timed runs "
              "on this machine.")
               .arg(bytesText(m_budget));
}

bool InferenceView::needsWork(const LabSettings& before, const LabSettings& after) const {
    return !sameFields(before, after, SettingsUse::Inference);
}

bool InferenceView::cancelWork() {
    m_jobs.bumpGeneration();
    return true;
}

void InferenceView::frameMarkChanged() {
    m_decode.update(m_settings, m_choices, m_frameMark.decodeStep, [this] { update(); });
}

void InferenceView::startWork() {
    m_jobs.bumpGeneration();
    m_choices = inferenceChoices(m_settings);
    m_decode.update(m_settings, m_choices, m_frameMark.decodeStep, [this] { update(); });
    m_budget = memoryBudgetBytes(m_settings);
    m_curves.clear();
    m_timings.clear();
    m_jobs.submit<CacheCurves>(
        [settings = m_settings, choices = m_choices, budget = m_budget](const CancelCheck&) { return cacheCurves(settings, choices, budget); },
        [this](const CacheCurves& result) {
            m_curves = result.curves;
            m_maxLog2 = result.maxLog2;
            update();
        });
    const std::vector<std::int64_t> sizes = decodeTimingSizes(m_settings.timingMaxN);
    m_total = static_cast<int>(sizes.size() * m_choices.size());
    for (const std::int64_t n : sizes)
        for (int series = 0; series < static_cast<int>(m_choices.size()); ++series)
            m_jobs.submit<std::optional<DecodeTiming>>(
                [settings = m_settings, choice = m_choices[static_cast<std::size_t>(series)], series, n](const CancelCheck& cancelled) {
                    return timeDecodeAt(settings, choice, series, n, JobRunner::kernelThreads(), cancelled);
                },
                [this](const std::optional<DecodeTiming>& timing) {
                    if (!timing) return;
                    m_timings.push_back(*timing);
                    update();
                });
    update();
}

void InferenceView::paintFigure(QPainter& painter, const QRectF& rect) const {
    const QRectF body = m_decode.paintStrips(painter, paintFrame(painter, rect, title(), caption()));
    const double split = body.left() + body.width() * 0.6;
    paintCache(painter, QRectF(body.topLeft(), QPointF(split - 8, body.bottom())));
    paintTiming(painter, QRectF(QPointF(split + 8, body.top()), body.bottomRight()));
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
        const QString name = coreText(curve.choice.label);
        const QString text = !curve.error.empty() ? tr("%1: cannot decode").arg(name)
                             : curve.runsOutAt   ? tr("%1: out at n = %2").arg(name, compactNumber(static_cast<double>(*curve.runsOutAt)))
                                                 : tr("%1: never (≤ %2)").arg(name, bytesBoundText(maxBytes(curve) * layers(m_settings)));
        legend.push_back({text, seriesColor(static_cast<int>(k)), Qt::SolidLine});
    }
    Axis x = Axis::fitted(tr("context length n (tokens)"), AxisScale::Log2, xs);
    x.format = tokensText;
    Axis y = Axis::fitted(tr("KV cache (bytes, float32)"), AxisScale::Log2, ys);
    y.format = bytesText;
    const bool perLayer = m_settings.modelLayers > 1;
    const QString panel = perLayer ? tr("KV cache: %1 layers (solid), one layer (dotted)").arg(m_settings.modelLayers)
                                   : tr("KV cache of one layer vs context");
    const PlotAxes axes(painter, legendBelow(painter, area, legend), x, y, panel);
    axes.drawAxes();
    m_decode.paintMarker(axes);
    if (m_curves.empty()) {
        axes.drawNotice(tr("computing the cache sizes…"));
        return;
    }
    // Window, window + sinks and chunks keep the same cache (and full the same up to the window):
    // nested widths keep every colour of curves that lie on one another in view.
    std::vector<std::vector<QPointF>> cache(m_curves.size());
    for (std::size_t k = 0; k < m_curves.size(); ++k)
        for (const KvCachePoint& point : m_curves[k].points) cache[k].emplace_back(static_cast<double>(point.n), point.layerBytes);
    const std::vector<double> widths = nestedLineWidths(cache);
    for (std::size_t k = 0; k < m_curves.size(); ++k) {
        const QColor color = seriesColor(static_cast<int>(k));
        Series model{coreText(m_curves[k].choice.label), color, {}, Qt::SolidLine, false, widths[k]};
        Series layer{model.name, color, cache[k], Qt::DotLine, false};
        for (const QPointF& point : cache[k]) model.points.emplace_back(point.x(), point.y() * layers(m_settings));
        axes.drawSeries(model);
        if (perLayer) axes.drawSeries(layer);
    }
    paintBudget(painter, axes);
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
    const QString budgetLabel = m_settings.memoryBudget > 0 ? tr("memory budget %1").arg(bytesText(m_budget))
                                                            : tr("memory budget %1 (this machine's RAM)").arg(bytesText(m_budget));
    painter.setPen(QColor(0xaa, 0x00, 0x00));
    painter.drawText(QRectF(plot.left() + 4, y + 2, plot.width() - 8, metrics.height()), Qt::AlignLeft | Qt::AlignTop, budgetLabel);
    std::vector<std::pair<double, int>> crossings; // (n, curve)
    for (std::size_t k = 0; k < m_curves.size(); ++k)
        if (m_curves[k].runsOutAt && *m_curves[k].runsOutAt <= std::ldexp(1.0, m_maxLog2))
            crossings.emplace_back(static_cast<double>(*m_curves[k].runsOutAt), static_cast<int>(k));
    std::sort(crossings.begin(), crossings.end());
    double lastRight = -1e9, lastN = -1;
    int row = 0;
    for (const auto& [n, curve] : crossings) {
        const QPointF at(axes.mapX(n), y);
        painter.setPen(QPen(seriesColor(curve).darker(120), 1.0));
        painter.setBrush(seriesColor(curve));
        painter.drawEllipse(at, 4.0, 4.0);
        if (n == lastN) continue; // the same context: one label
        const QString text = compactNumber(n);
        const double width = metrics.horizontalAdvance(text);
        row = at.x() - width / 2 < lastRight + 4 ? row + 1 : 0;
        const QRectF box(at.x() - width / 2, y - 6 - (row + 1) * metrics.height(), width, metrics.height());
        painter.setPen(Qt::black);
        painter.drawText(box, Qt::AlignCenter, text);
        lastRight = box.right();
        lastN = n;
    }
    painter.restore();
}

void InferenceView::paintTiming(QPainter& painter, const QRectF& area) const {
    std::vector<double> xs, ys;
    for (const std::int64_t n : decodeTimingSizes(m_settings.timingMaxN)) xs.push_back(static_cast<double>(n));
    for (const DecodeTiming& timing : m_timings)
        if (timing.valid()) ys.push_back(timing.medianSeconds);
    if (ys.empty()) ys = {1e-6, 1e-3};
    Axis x = Axis::fitted(tr("context length n (tokens)"), AxisScale::Log2, xs);
    x.format = tokensText;
    Axis y = Axis::fitted(tr("time per decoding step, one layer"), AxisScale::Log10, ys);
    y.format = durationText;
    const int done = static_cast<int>(m_timings.size());
    const QString panel = done < m_total && busy() ? tr("Decoding step, measured (%1/%2)").arg(done).arg(m_total)
                                                   : tr("Decoding step, measured");
    const PlotAxes axes(painter, area, x, y, panel);
    axes.drawAxes();
    m_decode.paintMarker(axes);
    if (m_timings.empty()) {
        axes.drawNotice(busy() ? tr("measuring…") : tr("no measurement"));
        return;
    }
    std::vector<std::vector<QPointF>> times(m_choices.size());
    for (std::size_t k = 0; k < m_choices.size(); ++k) {
        std::vector<DecodeTiming> points;
        for (const DecodeTiming& timing : m_timings)
            if (timing.series == static_cast<int>(k) && timing.valid()) points.push_back(timing);
        std::sort(points.begin(), points.end(), [](const DecodeTiming& a, const DecodeTiming& b) { return a.n < b.n; });
        for (const DecodeTiming& timing : points) times[k].emplace_back(static_cast<double>(timing.n), timing.medianSeconds);
    }
    const std::vector<double> widths = nestedLineWidths(times, 1.6, 0.03); // times within 3 % share a pixel row: nest those curves
    for (std::size_t k = 0; k < m_choices.size(); ++k)
        axes.drawSeries({coreText(m_choices[k].label), seriesColor(static_cast<int>(k)), times[k], Qt::SolidLine, true, widths[k]});
}

QString InferenceView::csvData() const {
    QString csv = QStringLiteral("series,label,n,quantity,value,unit\n");
    const auto row = [&](const QString& series, const std::string& label, double n, const QString& quantity, double value,
                         const QString& unit) {
        csv += QStringLiteral("%1,\"%2\",%3,%4,%5,%6\n")
                   .arg(series, QString::fromStdString(label), QString::number(n, 'g', 17), quantity, QString::number(value, 'g', 17), unit);
    };
    row(QStringLiteral("budget"), {}, 0, QStringLiteral("memory_budget"), m_budget, QStringLiteral("bytes"));
    for (const KvCacheCurve& curve : m_curves) {
        for (const KvCachePoint& point : curve.points) {
            const auto n = static_cast<double>(point.n);
            if (point.retainedKeys)
                row(QStringLiteral("kv_cache"), curve.choice.label, n, QStringLiteral("retained_keys"),
                    static_cast<double>(*point.retainedKeys), QStringLiteral("keys"));
            row(QStringLiteral("kv_cache"), curve.choice.label, n, QStringLiteral("layer_bytes"), point.layerBytes, QStringLiteral("bytes"));
            row(QStringLiteral("kv_cache"), curve.choice.label, n, QStringLiteral("model_bytes"), point.layerBytes * layers(m_settings),
                QStringLiteral("bytes"));
        }
        if (curve.runsOutAt)
            row(QStringLiteral("runs_out"), curve.choice.label, static_cast<double>(*curve.runsOutAt), QStringLiteral("context_n"),
                static_cast<double>(*curve.runsOutAt), QStringLiteral("tokens"));
    }
    for (const DecodeTiming& timing : m_timings) {
        if (!timing.valid()) continue;
        const std::string& label = m_choices[static_cast<std::size_t>(timing.series)].label;
        row(QStringLiteral("decode_step"), label, static_cast<double>(timing.n), QStringLiteral("median_s"), timing.medianSeconds,
            QStringLiteral("s"));
        row(QStringLiteral("decode_step"), label, static_cast<double>(timing.n), QStringLiteral("gflops"), timing.gflops,
            QStringLiteral("GFLOP/s"));
    }
    return csv;
}

} // namespace attnlab
