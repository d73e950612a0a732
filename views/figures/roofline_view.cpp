#include "views/figures/roofline_view.h"

#include "core/analysis/timing_sweep.h"
#include "views/plot/plot_axes.h"
#include "views/plot/text_style.h"
#include "views/plot/variant_colors.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QPainterPath>

#include <algorithm>
#include <cmath>
#include <optional>
#include <vector>

namespace attnlab {

namespace {

// The chosen variants, labelled as the timing view labels them.
std::vector<InferenceChoice> rooflineChoices(const LabSettings& settings) {
    std::vector<InferenceChoice> choices;
    for (const VariantChoice& choice : chosenVariants(settings)) choices.push_back({choice, choiceLabel(choice)});
    return choices;
}

double ridge(const PeakResult& peak) { return peak.bandwidthGBs > 0 ? peak.fmaGflops / peak.bandwidthGBs : 1.0; }

// A place for a point's label inside the plot, clear of the labels already drawn: right of the point,
// then left, each at 0, ±1, ±2, … lines up or down; the text elided to the wider side of the point.
std::optional<QRectF> freeLabelBox(const QRectF& plot, const QPointF& at, const QFontMetricsF& metrics, const QString& text,
                                   double line, const std::vector<QRectF>& taken) {
    const double room = std::max(plot.right() - at.x() - 8, at.x() - 8 - plot.left()) - 4;
    const double width = metrics.horizontalAdvance(metrics.elidedText(text, Qt::ElideRight, std::max(0.0, room))) + 4;
    for (int shift = 0; shift <= 12; ++shift) {
        const double dy = (shift % 2 == 0 ? 1 : -1) * ((shift + 1) / 2) * line - line / 2;
        for (const double x : {at.x() + 8, at.x() - 8 - width}) {
            const QRectF candidate(QPointF(x, at.y() + dy), QSizeF(width, line));
            if (plot.contains(candidate) &&
                std::none_of(taken.begin(), taken.end(), [&](const QRectF& r) { return r.intersects(candidate); }))
                return candidate;
        }
    }
    return std::nullopt;
}

} // namespace

RooflineView::RooflineView(QWidget* parent) : FigureView(parent) { watchJobs(m_jobs); }

QString RooflineView::title() const {
    if (!m_peak) return tr("Roofline of this machine: prefill vs one decoding step");
    return tr("Roofline: FMA peak %1 GFLOP/s, memory %2 GB/s (threads: %3)")
        .arg(m_peak->fmaGflops, 0, 'f', 0)
        .arg(m_peak->bandwidthGBs, 0, 'f', 1)
        .arg(m_peak->threads);
}

QString RooflineView::caption() const {
    return settingsCaption(m_settings) +
           tr("   |   h_kv=%1. Arithmetic intensity = 2 × MACs / bytes_min (the least memory traffic: docs/benchmarks.md, "
              "docs/inference.md); GFLOP/s = 2 × MACs / median time. Roof = min(FMA peak, intensity × STREAM-triad "
              "bandwidth); left of the ridge memory-bound, right of it compute-bound. Prefill: a full forward at n; "
              "decode: one token at context n. A kernel repeated on data that fits the caches (last level: %2) reads "
              "it from there and can pass the memory roof, which is measured on arrays larger than the cache.")
               .arg(m_settings.kvHeads > 0 ? m_settings.kvHeads : m_settings.heads)
               .arg(m_peak && m_peak->lastLevelCacheBytes > 0 ? bytesText(static_cast<double>(m_peak->lastLevelCacheBytes)) : tr("size unknown"));
}

bool RooflineView::needsWork(const LabSettings& before, const LabSettings& after) const {
    return !sameFields(before, after, SettingsUse::Inference);
}

bool RooflineView::cancelWork() {
    m_jobs.bumpGeneration();
    return true;
}

void RooflineView::startWork() {
    m_jobs.bumpGeneration();
    m_points.clear();
    const int threads = JobRunner::kernelThreads();
    if (!m_peak || m_peak->threads != threads)
        m_jobs.submit<PeakResult>([threads](const CancelCheck&) { return sessionMachinePeak(threads); },
                                  [this](const PeakResult& peak) {
                                      m_peak = peak;
                                      update();
                                  });
    for (const InferenceChoice& choice : rooflineChoices(m_settings))
        for (const bool decode : {false, true})
            m_jobs.submit<std::optional<RooflineMeasurement>>(
                [settings = m_settings, choice, decode, threads](const CancelCheck& cancelled) {
                    return measureRoofline(settings, choice, decode, sessionMachinePeak(threads), threads, cancelled);
                },
                [this](const std::optional<RooflineMeasurement>& point) {
                    if (!point) return;
                    m_points.push_back(*point);
                    update();
                });
    update();
}

void RooflineView::drawFigure(QPainter& painter, const QRectF& rect) const {
    const QRectF body = paintFrame(painter, rect, title(), caption());
    std::vector<double> xs = {0.1, 100.0}, ys = {1.0};
    if (m_peak) {
        xs.push_back(ridge(*m_peak) * 4);
        ys.push_back(m_peak->fmaGflops * 2);
        ys.push_back(m_peak->bandwidthGBs * 0.1);
    }
    for (const RooflineMeasurement& point : m_points)
        if (point.valid()) {
            xs.push_back(point.roof.intensity);
            ys.push_back(point.gflops);
        }
    Axis x = Axis::fitted(tr("arithmetic intensity (flop per byte of minimum memory traffic)"), AxisScale::Log10, xs);
    Axis y = Axis::fitted(tr("GFLOP/s (measured)"), AxisScale::Log10, ys);
    const PlotAxes axes(painter, body, x, y, tr("Prefill (filled circles) and one decoding step (open squares) under the roof"));
    axes.drawAxes();
    if (!m_peak) {
        axes.drawNotice(tr("measuring this machine's FMA peak and memory bandwidth…"));
        return;
    }
    paintRoof(axes, axes.xAxis().min, axes.xAxis().max);
    paintPoints(axes, painter);
    if (m_points.empty()) axes.drawNotice(busy() ? tr("timing prefill and decoding…") : tr("no measurement"));
}

void RooflineView::paintRoof(const PlotAxes& axes, double xMin, double xMax) const {
    const double ridgeX = ridge(*m_peak);
    Series roof{tr("roof"), Qt::black, {}, Qt::SolidLine, false};
    for (const double intensity : {xMin, std::clamp(ridgeX, xMin, xMax), xMax})
        roof.points.emplace_back(intensity, std::min(m_peak->fmaGflops, intensity * m_peak->bandwidthGBs));
    axes.drawSeries(roof);
    axes.drawVerticalMarkers({{ridgeX, tr("ridge %1 flop/byte").arg(ridgeX, 0, 'f', 1), QColor(0x55, 0x55, 0x55)}});
}

// Each point's label at the first place beside it (right or left, then a line farther up or down each
// time) inside the plot that covers neither an earlier label (the ridge's among them) nor any point.

void RooflineView::paintPoints(const PlotAxes& axes, QPainter& painter) const {
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double line = metrics.height();
    std::vector<QRectF> taken = axes.drawnLabels();
    for (const RooflineMeasurement& point : m_points)
        if (point.valid()) {
            const QPointF at = axes.map(point.roof.intensity, point.gflops);
            taken.emplace_back(at.x() - 6, at.y() - 6, 12, 12);
        }
    // Points arrive in any order: each takes the colour of the choice its label names.
    const std::vector<InferenceChoice> choices = rooflineChoices(m_settings);
    std::vector<std::string> variants;
    for (const InferenceChoice& choice : choices) variants.push_back(choice.choice.variant);
    const std::vector<QColor> colours = variantColors(variants);
    const auto colourOf = [&](const RooflineMeasurement& point) {
        for (std::size_t k = 0; k < choices.size(); ++k)
            if (choices[k].label == point.label) return colours[k];
        return variantColor(std::string());
    };
    std::vector<LegendEntry> notes;
    painter.save();
    for (const RooflineMeasurement& point : m_points) {
        const QColor color = colourOf(point);
        const QString kind = point.decode ? tr("decode") : tr("prefill");
        if (!point.valid()) {
            notes.push_back({tr("%1 %2: %3").arg(QString::fromStdString(point.label), kind, QString::fromStdString(point.error)), color,
                             Qt::SolidLine});
            continue;
        }
        const QPointF at = axes.map(point.roof.intensity, point.gflops);
        painter.setPen(QPen(color.darker(130), 1.5));
        painter.setBrush(point.decode ? QBrush(Qt::white) : QBrush(color));
        if (point.decode)
            painter.drawRect(QRectF(at.x() - 4.5, at.y() - 4.5, 9, 9));
        else
            painter.drawEllipse(at, 5.0, 5.0);
        const QString rate = QString::number(point.gflops, 'f', point.gflops < 10 ? 2 : 0);
        const QString text = point.roof.fractionOfRoof > 1.0
                                 ? tr("%1 %2: %3 GFLOP/s (cached)").arg(QString::fromStdString(point.label), kind, rate)
                                 : tr("%1 %2: %3 GFLOP/s, %4% of roof")
                                       .arg(QString::fromStdString(point.label), kind, rate,
                                            QString::number(100.0 * point.roof.fractionOfRoof, 'f', 0));
        // The full label, else the rate alone, at the first free place; where points crowd so that neither
        // fits without covering another label, the point stays unlabelled (the CSV has its numbers).
        const QString brief = point.roof.fractionOfRoof > 1.0
                                  ? tr("%1 GFLOP/s (cached)").arg(rate)
                                  : tr("%1 GFLOP/s, %2%").arg(rate, QString::number(100.0 * point.roof.fractionOfRoof, 'f', 0));
        for (const QString& candidateText : {text, brief}) {
            const std::optional<QRectF> box = freeLabelBox(axes.plotRect(), at, metrics, candidateText, line, taken);
            if (!box) continue;
            taken.push_back(*box);
            painter.setPen(color.darker(150));
            drawAlignedText(painter, *box, Qt::AlignLeft | Qt::AlignVCenter,
                            metrics.elidedText(candidateText, Qt::ElideRight, box->width() - 4));
            break;
        }
    }
    painter.restore();
    if (!notes.empty()) axes.drawLegend(notes, Qt::BottomRightCorner);
}

QString RooflineView::csvData() const {
    QString csv = QStringLiteral("kind,label,intensity_flop_per_byte,gflops,attention_macs,bytes_min,median_s,roof_gflops,memory_bound\n");
    if (m_peak)
        csv += QStringLiteral("machine,\"fma peak %1 GFLOP/s; triad %2 GB/s\",%3,%1,,,,%1,\n")
                   .arg(QString::number(m_peak->fmaGflops, 'g', 17), QString::number(m_peak->bandwidthGBs, 'g', 17),
                        QString::number(ridge(*m_peak), 'g', 17));
    for (const RooflineMeasurement& point : m_points) {
        if (!point.valid()) continue;
        csv += QStringLiteral("%1,\"%2\",%3,%4,%5,%6,%7,%8,%9\n")
                   .arg(point.decode ? QStringLiteral("decode") : QStringLiteral("prefill"), QString::fromStdString(point.label),
                        QString::number(point.roof.intensity, 'g', 17), QString::number(point.gflops, 'g', 17),
                        QString::number(point.macs, 'g', 17), QString::number(point.bytesMin, 'g', 17),
                        QString::number(point.medianSeconds, 'g', 17), QString::number(point.roof.roofGflops, 'g', 17))
                   .arg(point.roof.memoryBound ? QStringLiteral("yes") : QStringLiteral("no"));
    }
    return csv;
}

} // namespace attnlab
