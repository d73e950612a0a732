#include "views/timing_view.h"

#include "views/plot_axes.h"

#include "core/analysis/timing_sweep.h"
#include "core/cost_model.h"
#include "core/errors.h"
#include "core/registry.h"
#include "core/timing.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <array>
#include <map>

namespace attnlab {

namespace {

using Point = TimingView::Point;

QColor partColor(std::size_t part) { return costTermColor(kLayerParts[part].costTerm); }

// Everything a sweep's numbers depend on; other settings (n, the input source, the shown head) leave
// the measurement as it is.
bool sameSweep(const LabSettings& a, const LabSettings& b) { return sameFields(a, b, SettingsUse::TimingSweep); }

// Axis range of log-scaled values, ignoring what a log axis cannot show.
std::vector<double> positive(std::vector<double> values) {
    values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !(v > 0) || !std::isfinite(v); }),
                 values.end());
    return values;
}

QString csvField(const std::string& text) {
    QString field = QString::fromStdString(text);
    if (!field.contains(QLatin1Char(',')) && !field.contains(QLatin1Char('"')) && !field.contains(QLatin1Char('\n')))
        return field;
    field.replace(QLatin1Char('"'), QStringLiteral("\"\""));
    return QLatin1Char('"') + field + QLatin1Char('"');
}

QString csvNumber(double value) { return std::isfinite(value) ? QString::number(value, 'g', 9) : QString(); }

} // namespace

TimingView::TimingView(QWidget* parent) : FigureView(parent) {
    connect(&m_jobs, &JobRunner::busyChanged, this, [this](bool nowBusy) {
        if (!nowBusy && m_clock.isValid()) m_sweepSeconds = m_clock.elapsed() / 1000.0;
        emit busyChanged(nowBusy);
        update();
    });
}

TimingView::~TimingView() = default;

std::vector<std::int64_t> TimingView::sweepSizes(std::int64_t maxN) { return timingSweepSizes(maxN); }

QString TimingView::title() const {
    if (m_settings.timingMode == TimingMode::Layer)
        return QStringLiteral("One Transformer layer measured: %1 attention, h=%2, d=%3 (hd=%4)")
            .arg(QString::fromStdString(measuredChoices(m_settings).front().variant))
            .arg(m_settings.heads)
            .arg(m_settings.d)
            .arg(static_cast<std::int64_t>(m_settings.heads) * m_settings.d);
    QStringList names;
    for (const VariantChoice& choice : measuredChoices(m_settings)) names << QString::fromStdString(choice.variant);
    return QStringLiteral("Measured attention time vs n: %1 (d=%2, h=%3)")
        .arg(names.join(QStringLiteral(" vs ")))
        .arg(m_settings.d)
        .arg(m_settings.heads);
}

QString TimingView::caption() const {
    QStringList variants;
    for (const VariantChoice& choice : measuredChoices(m_settings)) variants << QString::fromStdString(choiceLabel(choice));
    const std::vector<std::int64_t> sizes = sweepSizes(m_settings.timingMaxN);
    const int threads = JobRunner::kernelThreads();
    const bool layer = m_settings.timingMode == TimingMode::Layer;
    QString text = QStringLiteral("%1=%2   d=%3   h=%4   causal=%5   n=%6…%7   Gaussian inputs   |   %8 thread%9, "
                                  "median of ≥ %10 runs after a warm-up (≥ %11 s per point)   |   dashed: prediction = "
                                  "cost-model MACs ÷ the MAC rate measured at the largest n of the same curve")
                       .arg(variants.size() > 1 ? QStringLiteral("variants") : QStringLiteral("variant"),
                            variants.join(QStringLiteral(" | ")))
                       .arg(m_settings.d)
                       .arg(m_settings.heads)
                       .arg(m_settings.causal ? QStringLiteral("yes") : QStringLiteral("no"))
                       .arg(sizes.front())
                       .arg(sizes.back())
                       .arg(threads)
                       .arg(threads == 1 ? QString() : QStringLiteral("s"))
                       .arg(kTimingMinRepeats)
                       .arg(layer ? kTimingLayerBudgetSeconds : kTimingPointBudgetSeconds);
    if (layer)
        text += QStringLiteral("   |   projections and FFN on the GEMM engine; self-attention = QKV + core + output "
                               "projection; the FFN's activation is not timed");
    else
        text += QStringLiteral("   |   memory: the process's peak resident set during the runs minus before them "
                               "(outputs and workspaces; the inputs already exist); a kernel's kept workspace "
                               "counts at the first point that needs it");
    return text;
}

void TimingView::setSettings(const LabSettings& settings) {
    const bool restart = !sameSweep(settings, m_settings);
    m_settings = settings;
    if (restart) {
        m_jobs.bumpGeneration();
        m_points.clear();
        m_done = m_total = 0;
        m_cancelled = false;
        m_sweepWanted = true;
        emit progressChanged(0, 0);
    }
    if (m_sweepWanted && isVisible()) startSweep();
    update();
}

void TimingView::showEvent(QShowEvent* event) {
    FigureView::showEvent(event);
    if (m_sweepWanted) startSweep();
}

void TimingView::remeasure() {
    m_sweepWanted = true;
    startSweep();
}

void TimingView::cancel() {
    if (!busy() || m_cancelled) return;
    m_jobs.bumpGeneration();
    m_cancelled = true;
    update();
}

void TimingView::startSweep() {
    m_jobs.bumpGeneration();
    m_sweepWanted = false;
    m_points.clear();
    m_done = 0;
    m_cancelled = false;
    m_sweepSeconds = 0;
    m_clock.start();
    const LabSettings settings = m_settings;
    const std::vector<VariantChoice> choices = measuredChoices(settings);
    const std::vector<std::int64_t> sizes = sweepSizes(settings.timingMaxN);
    const bool layer = settings.timingMode == TimingMode::Layer;
    m_total = static_cast<int>(sizes.size() * (layer ? 1 : choices.size()));
    // n outermost, so every curve grows at the same pace.
    for (const std::int64_t n : sizes) {
        if (layer) {
            m_jobs.submit<std::vector<Point>>(
                [choice = choices.front(), settings, n](const CancelCheck& cancelled) {
                    return measureLayerAt(choice, settings, n, JobRunner::kernelThreads(), cancelled);
                },
                [this](const std::vector<Point>& points) { deliver(points); });
            continue;
        }
        for (std::size_t k = 0; k < choices.size(); ++k)
            m_jobs.submit<std::vector<Point>>(
                [choice = choices[k], index = static_cast<int>(k), settings, n](const CancelCheck& cancelled) {
                    return measureVariantAt(choice, index, settings, n, JobRunner::kernelThreads(), cancelled);
                },
                [this](const std::vector<Point>& points) { deliver(points); });
    }
    emit progressChanged(0, m_total);
    update();
}

void TimingView::deliver(const std::vector<Point>& points) {
    if (points.empty()) return; // cancelled inside the kernel
    m_points.insert(m_points.end(), points.begin(), points.end());
    ++m_done;
    emit progressChanged(m_done, m_total);
    update();
}

std::vector<TimingView::SeriesInfo> TimingView::seriesList() const {
    std::vector<SeriesInfo> list;
    if (m_settings.timingMode == TimingMode::Layer) {
        for (std::size_t k = 0; k < kLayerParts.size(); ++k) list.push_back({kLayerParts[k].id, static_cast<int>(k)});
        return list;
    }
    const std::vector<VariantChoice> choices = measuredChoices(m_settings);
    for (std::size_t k = 0; k < choices.size(); ++k) list.push_back({choiceLabel(choices[k]), static_cast<int>(k)});
    return list;
}

std::vector<const Point*> TimingView::seriesPoints(int seriesIndex) const { return attnlab::seriesPoints(m_points, seriesIndex); }

QString TimingView::seriesLabel(const SeriesInfo& series) const {
    if (m_settings.timingMode != TimingMode::Layer) return QString::fromStdString(series.name);
    const LayerPartInfo& part = kLayerParts[static_cast<std::size_t>(series.index)];
    if (std::string(part.id) == "attention")
        return QStringLiteral("%1 (%2)").arg(QString::fromLatin1(part.label),
                                             QString::fromStdString(measuredChoices(m_settings).front().variant));
    return QString::fromLatin1(part.label);
}

QColor TimingView::seriesColorOf(const SeriesInfo& series) const {
    return m_settings.timingMode == TimingMode::Layer ? partColor(static_cast<std::size_t>(series.index))
                                                      : seriesColor(series.index);
}

double TimingView::predictedSeconds(const Point& point) const { return attnlab::predictedSeconds(m_points, point); }

MeasuredCrossover TimingView::measuredCrossover() const {
    if (m_settings.timingMode != TimingMode::Layer) return {};
    return layerCrossover(m_points);
}

QString TimingView::statusText() const {
    QString text;
    if (busy() && !m_cancelled)
        text = QStringLiteral("measuring %1/%2…").arg(m_done).arg(m_total);
    else if (partial())
        text = QStringLiteral("cancelled: %1 of %2 points measured (partial)").arg(m_done).arg(m_total);
    else if (m_total == 0 || busy())
        text = QStringLiteral("waiting to measure");
    else
        text = QStringLiteral("%1 points measured in %2").arg(m_done).arg(durationText(m_sweepSeconds));
    if (m_settings.timingMode == TimingMode::Layer) text += QStringLiteral("   ·   ") + crossoverText();
    const auto starved = std::count_if(m_points.begin(), m_points.end(), [](const Point& point) { return point.starved(); });
    if (starved > 0)
        text += QStringLiteral("   ·   %1 point(s) got less than %2% of their cores (other programs were busy): "
                               "their times are inflated")
                    .arg(starved)
                    .arg(static_cast<int>(kStarvedCpuShare * 100));
    return text;
}

void TimingView::paintFigure(QPainter& painter, const QRectF& rect) const {
    QRectF body = paintFrame(painter, rect, title(), caption());
    const double line = QFontMetricsF(painter.font(), painter.device()).height();
    painter.save();
    painter.setPen(partial() ? QColor(0xB0, 0x00, 0x20) : QColor(0x44, 0x44, 0x44));
    painter.drawText(QRectF(body.left(), body.top() - 2, body.width(), line), Qt::AlignHCenter | Qt::AlignTop, statusText());
    painter.restore();
    body.setTop(body.top() + line + 2);

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

void TimingView::paintTime(QPainter& painter, const QRectF& area) const {
    std::vector<double> xs;
    for (const std::int64_t n : sweepSizes(m_settings.timingMaxN)) xs.push_back(static_cast<double>(n));
    std::vector<double> ys;
    for (const Point& point : m_points) {
        ys.push_back(point.medianSeconds);
        ys.push_back(predictedSeconds(point));
    }
    Axis x = Axis::fitted(QStringLiteral("sequence length n"), AxisScale::Log2, xs);
    Axis y = Axis::fitted(QStringLiteral("wall time per run (median)"), AxisScale::Log10, positive(ys));
    y.format = durationText;
    const bool layer = m_settings.timingMode == TimingMode::Layer;
    const PlotAxes axes(painter, area, x, y,
                        layer ? QStringLiteral("Time of each part (log-log); markers: self-attention = FFN") : QStringLiteral("Attention core time (log-log)"));
    axes.drawAxes();
    std::vector<LegendEntry> legend;
    QString firstError;
    for (const SeriesInfo& series : seriesList()) {
        const QColor color = seriesColorOf(series);
        Series measured{seriesLabel(series), color, {}, Qt::SolidLine, true};
        Series predicted{seriesLabel(series), color, {}, Qt::DashLine, false};
        QStringList skipped;
        for (const Point* point : seriesPoints(series.index)) {
            if (!point->valid()) {
                skipped << QString::number(point->shape.n);
                if (firstError.isEmpty()) firstError = QString::fromStdString(point->error);
                continue;
            }
            const double n = static_cast<double>(point->shape.n);
            measured.points.emplace_back(n, point->medianSeconds);
            predicted.points.emplace_back(n, predictedSeconds(*point));
        }
        axes.drawSeries(predicted);
        axes.drawSeries(measured);
        QString name = seriesLabel(series);
        if (!skipped.isEmpty() && !layer) name += QStringLiteral(" — not valid at n = %1").arg(skipped.join(QStringLiteral(", ")));
        legend.push_back({name, color, Qt::SolidLine, false});
    }
    legend.push_back({QStringLiteral("cost model, scaled to the largest n"), QColor(0x55, 0x55, 0x55), Qt::DashLine, false});
    if (layer) paintCrossoverMarkers(axes);
    if (m_points.empty() || std::none_of(m_points.begin(), m_points.end(), [](const Point& p) { return p.valid(); })) {
        if (!firstError.isEmpty())
            axes.drawNotice(firstError);
        else if (busy())
            axes.drawNotice(QStringLiteral("measuring %1/%2…").arg(m_done).arg(m_total));
        else
            axes.drawNotice(QStringLiteral("no measurement yet"));
        return;
    }
    axes.drawLegend(legend, layer ? Qt::BottomRightCorner : Qt::TopLeftCorner);
}

void TimingView::paintCrossoverMarkers(const PlotAxes& axes) const {
    // The model's label (top row) is drawn last so its box covers the measured line where they cross.
    if (const MeasuredCrossover measured = measuredCrossover(); measured.n)
        axes.drawVerticalMarker(*measured.n, QStringLiteral("measured ≈ %1").arg(compactNumber(std::round(*measured.n))),
                                Qt::black, 1);
    const double model = attentionOvertakesFfn(m_settings.heads, m_settings.d);
    axes.drawVerticalMarker(model, QStringLiteral("cost model 2hd = %1").arg(compactNumber(model)), QColor(0x66, 0x66, 0x66), 0);
}

QString TimingView::crossoverText() const {
    const MeasuredCrossover measured = measuredCrossover();
    const std::vector<std::int64_t> sizes = sweepSizes(m_settings.timingMaxN);
    QString found;
    if (measured.n)
        found = QStringLiteral("n ≈ %1").arg(compactNumber(std::round(*measured.n)));
    else if (measured.alwaysAbove)
        found = QStringLiteral("already at n = %1").arg(sizes.front());
    else if (busy())
        found = QStringLiteral("not yet");
    else
        found = QStringLiteral("not up to n = %1").arg(sizes.back());
    const bool full = measuredChoices(m_settings).front().variant == "full";
    return QStringLiteral("self-attention > FFN: measured %1, cost model%2 n = 2hd = %3")
        .arg(found, full ? QString() : QStringLiteral(" (full attention)"),
             compactNumber(attentionOvertakesFfn(m_settings.heads, m_settings.d)));
}

void TimingView::paintRate(QPainter& painter, const QRectF& area) const {
    std::vector<double> xs;
    for (const std::int64_t n : sweepSizes(m_settings.timingMaxN)) xs.push_back(static_cast<double>(n));
    std::vector<double> rates;
    for (const Point& point : m_points)
        if (point.valid()) rates.push_back(point.gflops);
    const PlotAxes axes(painter, area, Axis::fitted(QStringLiteral("n"), AxisScale::Log2, xs),
                        Axis::fitted(QStringLiteral("GFLOP/s"), AxisScale::Linear, rates),
                        QStringLiteral("Rate: 2 × cost-model MACs / median time"));
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
    for (const std::int64_t n : sweepSizes(m_settings.timingMaxN)) xs.push_back(static_cast<double>(n));
    std::vector<double> bytes;
    for (const Point& point : m_points)
        if (point.valid()) {
            bytes.push_back(point.peakExtraBytes);
            bytes.push_back(point.modelExtraBytes);
        }
    Axis y = Axis::fitted(QStringLiteral("bytes"), AxisScale::Log2, positive(bytes));
    y.format = bytesText;
    const PlotAxes axes(painter, area, Axis::fitted(QStringLiteral("n"), AxisScale::Log2, xs), y,
                        QStringLiteral("Peak extra memory (dashed: output + workspace)"));
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
    for (const std::int64_t n : sweepSizes(m_settings.timingMaxN)) sizes.push_back(static_cast<double>(n));
    Axis y;
    y.label = QStringLiteral("% of layer time");
    y.min = 0;
    y.max = 100;
    const PlotAxes axes(painter, area, Axis::fitted(QStringLiteral("n"), AxisScale::Log2, sizes), y,
                        QStringLiteral("Measured layer time, stacked"));
    axes.drawAxes();
    if (xs.size() < 2) return;
    std::vector<QColor> colors;
    for (std::size_t part = 0; part < kLayerParts.size(); ++part) colors.push_back(partColor(part));
    axes.drawStackedAreas(xs, layers, colors);
    paintCrossoverMarkers(axes);
}

QString TimingView::csvData() const {
    QString csv = QStringLiteral("mode,series,n,d,heads,causal,median_s,min_s,max_s,repeats,macs,gflops,"
                                 "peak_extra_bytes,model_extra_bytes,predicted_s,cpu_share,note\n");
    const QString mode = QString::fromStdString(timingModeName(m_settings.timingMode));
    for (const SeriesInfo& series : seriesList())
        for (const Point* point : seriesPoints(series.index)) {
            const bool valid = point->valid();
            csv += QStringList{mode,
                               csvField(point->series),
                               QString::number(point->shape.n),
                               QString::number(m_settings.d),
                               QString::number(m_settings.heads),
                               point->shape.causal ? QStringLiteral("true") : QStringLiteral("false"),
                               valid ? csvNumber(point->medianSeconds) : QString(),
                               valid ? csvNumber(point->minSeconds) : QString(),
                               valid ? csvNumber(point->maxSeconds) : QString(),
                               valid && point->repeats > 0 ? QString::number(point->repeats) : QString(),
                               valid ? csvNumber(point->macs) : QString(),
                               valid ? csvNumber(point->gflops) : QString(),
                               valid ? csvNumber(point->peakExtraBytes) : QString(),
                               valid ? csvNumber(point->modelExtraBytes) : QString(),
                               valid ? csvNumber(predictedSeconds(*point)) : QString(),
                               valid ? csvNumber(point->cpuShare) : QString(),
                               csvField(point->error)}
                       .join(QLatin1Char(',')) +
                   QLatin1Char('\n');
        }
    if (m_settings.timingMode == TimingMode::Layer) {
        const auto marker = [&](const QString& series, double n, const QString& note) {
            csv += QStringLiteral("%1,%2,%3,%4,%5,,,,,,,,,,,,%6\n")
                       .arg(mode, series, csvNumber(n))
                       .arg(m_settings.d)
                       .arg(m_settings.heads)
                       .arg(note);
        };
        const MeasuredCrossover measured = measuredCrossover();
        if (measured.n) marker(QStringLiteral("crossover_measured"), *measured.n, QStringLiteral("self-attention > FFN"));
        marker(QStringLiteral("crossover_cost_model_2hd"), attentionOvertakesFfn(m_settings.heads, m_settings.d),
               QStringLiteral("self-attention > FFN"));
    }
    return csv;
}

} // namespace attnlab
