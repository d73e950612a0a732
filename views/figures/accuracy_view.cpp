#include "views/figures/accuracy_view.h"
#include "views/i18n/language.h"

#include "views/plot/plot_axes.h"
#include "views/figures/view_inputs.h"

#include "core/analysis/accuracy.h"
#include "core/errors.h"
#include "core/registry.h"

#include <QRegularExpression>
#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>
#include <vector>

namespace attnlab {

struct AccuracyView::Snapshot {
    LabSettings settings;
    std::vector<Measurement> measurements;
    QStringList notes; // values left out and why
    QString error;     // set when nothing could be measured
    QString inputNote;
    int heads = 0;     // of the inputs measured (the NPY files' when they are the source)
};

namespace {

// The core's notes on values it left out, in the UI language: their forms are fixed
// (core/analysis/accuracy.cpp), ids and values stay; a note of another form is shown as it is.
QString accuracyNoteText(const QString& note) {
    static const QRegularExpression aboveN(QStringLiteral("^(\\w+): (\\w+) = (.+) left out \\((\\w+) > n = (\\d+)\\)$"));
    static const QRegularExpression causal(QStringLiteral("^(\\w+) is bidirectional only: left out for causal attention$"));
    static const QRegularExpression failed(QStringLiteral("^(\\w+) (\\w+) = (\\S+) left out: (.*)$"));
    if (const auto match = aboveN.match(note); match.hasMatch())
        return AccuracyView::tr("%1: %2 = %3 left out (%4 > n = %5)")
            .arg(match.captured(1), match.captured(2), match.captured(3), match.captured(4), match.captured(5));
    if (const auto match = causal.match(note); match.hasMatch())
        return AccuracyView::tr("%1 is bidirectional only: left out for causal attention").arg(match.captured(1));
    if (const auto match = failed.match(note); match.hasMatch())
        return AccuracyView::tr("%1 %2 = %3 left out: %4").arg(match.captured(1), match.captured(2), match.captured(3), match.captured(4));
    return note;
}

// Errors below this are float32 rounding of an exact method (e.g. pooling with k = n): listed, not plotted.
constexpr double kRoundingLevel = 1e-5;

bool plotted(const AccuracyView::Measurement& point) { return point.error >= kRoundingLevel; }

// A budget sweep as the figure draws it: a curve in its own colour.
struct Curve {
    QString family;
    QString label;
    QColor color;
};

std::vector<Curve> curves() {
    std::vector<Curve> list;
    for (const RegisteredSweep& entry : registeredAccuracySweeps())
        if (entry.sweep->budget)
            list.push_back({QString::fromStdString(entry.sweep->family), coreText(entry.sweep->label),
                            seriesColor(static_cast<int>(list.size()))});
    return list;
}

bool isCurve(const AccuracyView::Measurement& point) { return point.x > 0; }

// Reference lines (values without a budget, e.g. linear attention's kernels) by their order of appearance.
QColor lineColor(int index) {
    static const int colours[] = {4, 5, 7};
    return seriesColor(colours[index % 3]);
}

Qt::PenStyle lineStyle(int index) {
    static const Qt::PenStyle styles[] = {Qt::DashLine, Qt::DashDotLine, Qt::DotLine};
    return styles[index % 3];
}

const QColor kUnitErrorColor(0xAA, 0xAA, 0xAA);

AccuracyView::Snapshot buildSnapshot(const LabSettings& settings, const CancelCheck& cancelled) {
    AccuracyView::Snapshot snapshot;
    snapshot.settings = settings;
    try {
        const ProblemInputs inputs = loadInputs(settings, requireVariant("full"));
        snapshot.inputNote = inputs.note;
        snapshot.heads = inputs.shape.heads;
        const AccuracyReport report = measureAccuracy(inputs.q, inputs.k, inputs.v, inputs.shape, JobRunner::kernelThreads(), cancelled);
        snapshot.measurements = report.measurements;
        for (const std::string& note : report.notes) snapshot.notes << accuracyNoteText(QString::fromStdString(note));
    } catch (const std::exception& error) {
        snapshot.error = QString::fromUtf8(error.what());
    }
    return snapshot;
}

} // namespace

// ---------------------------------------------------------------------------------------------------

AccuracyView::AccuracyView(QWidget* parent) : FigureView(parent) {
    setMinimumSize(420, 320);
    watchJobs(m_jobs);
}

AccuracyView::~AccuracyView() = default;

QString AccuracyView::title() const { return AccuracyView::tr("Error of the approximations against exact softmax attention"); }

QString AccuracyView::caption() const {
    LabSettings reference = m_settings;
    reference.variant = "full";
    reference.params.clear();
    reference.compareVariants.clear();
    QString text = settingsCaption(reference);
    if (m_snapshot && !m_snapshot->inputNote.isEmpty()) text += QStringLiteral("   (") + m_snapshot->inputNote + QLatin1Char(')');
    return text + AccuracyView::tr("   |   relative error ‖out − out_full‖_F / ‖out_full‖_F over all %1 head(s), same Q, K, V; "
                                 "other parameters at their defaults; random methods: mean of %2 seeds, bars min–max")
                      .arg(m_snapshot && m_snapshot->heads > 0 ? m_snapshot->heads : m_settings.heads)
                      .arg(kAccuracySeeds);
}

bool AccuracyView::needsWork(const LabSettings& before, const LabSettings& after) const {
    return !sameFields(before, after, SettingsUse::AccuracyInputs);
}

void AccuracyView::startWork() {
    m_jobs.bumpGeneration();
    const LabSettings settings = m_settings;
    m_jobs.submit<Snapshot>([settings](const CancelCheck& cancelled) { return buildSnapshot(settings, cancelled); },
                            [this](const Snapshot& snapshot) {
                                m_snapshot = std::make_shared<const Snapshot>(snapshot);
                                if (!snapshot.error.isEmpty()) emit statusMessage(snapshot.error);
                                update();
                            });
    update();
}

void AccuracyView::paintFigure(QPainter& painter, const QRectF& rect) const {
    const QRectF body = paintFrame(painter, rect, title(), caption());
    const double split = body.left() + body.width() * 0.68;
    const QRectF plotArea(body.topLeft(), QPointF(split - 8, body.bottom()));

    std::vector<double> xs, errors{1.0};
    if (m_snapshot)
        for (const Measurement& point : m_snapshot->measurements) {
            if (isCurve(point)) xs.push_back(point.x);
            if (plotted(point)) errors.insert(errors.end(), {point.error, point.minError, point.maxError});
        }
    const Axis x = Axis::fitted(AccuracyView::tr("features m (performer) · projected length k (linformer) · hashing rounds (lsh)"),
                                AxisScale::Log2, xs);
    const Axis y = Axis::fitted(AccuracyView::tr("relative error (Frobenius)"), AxisScale::Log10, errors);
    const PlotAxes axes(painter, plotArea, x, y, AccuracyView::tr("Relative error vs the method's own budget (log–log)"));
    axes.drawAxes();
    if (!m_snapshot) {
        axes.drawNotice(AccuracyView::tr("Computing exact attention and the approximations…"));
        return;
    }
    if (!m_snapshot->error.isEmpty()) {
        axes.drawNotice(m_snapshot->error);
        return;
    }
    axes.drawSeries({QString(), kUnitErrorColor, {{x.min, 1.0}, {x.max, 1.0}}, Qt::SolidLine, false});
    int reference = 0;
    for (const Measurement& point : m_snapshot->measurements) {
        if (isCurve(point)) continue;
        axes.drawSeries({QString::fromStdString(point.value), lineColor(reference), {{x.min, point.error}, {x.max, point.error}},
                         lineStyle(reference), false});
        ++reference;
    }
    for (const Curve& curve : curves()) {
        Series series{curve.label, curve.color, {}, Qt::SolidLine, true};
        painter.save();
        painter.setPen(QPen(curve.color, 1.2));
        for (const Measurement& point : m_snapshot->measurements) {
            if (QString::fromStdString(point.family) != curve.family || !plotted(point)) continue;
            series.points.emplace_back(point.x, point.error);
            if (point.seeds > 1 && point.minError > 0)
                painter.drawLine(axes.map(point.x, point.minError), axes.map(point.x, point.maxError));
        }
        painter.restore();
        axes.drawSeries(series);
    }
    paintKey(painter, QRectF(QPointF(split + 8, body.top()), body.bottomRight()));
}

void AccuracyView::paintKey(QPainter& painter, const QRectF& box) const {
    painter.save();
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double line = metrics.height() + 2, swatch = 24;
    double y = box.top() + 4;
    const auto entry = [&](const QColor& colour, Qt::PenStyle style, bool marker, const QString& text) {
        painter.setPen(QPen(colour, 1.8, style));
        painter.drawLine(QPointF(box.left(), y + line / 2), QPointF(box.left() + swatch, y + line / 2));
        if (marker) {
            painter.setBrush(colour);
            painter.setPen(QPen(colour, 1.0));
            painter.drawEllipse(QPointF(box.left() + swatch / 2, y + line / 2), 3, 3);
        }
        painter.setPen(Qt::black);
        painter.drawText(QRectF(box.left() + swatch + 6, y, box.width() - swatch - 6, line), Qt::AlignLeft | Qt::AlignVCenter,
                         metrics.elidedText(text, Qt::ElideRight, box.width() - swatch - 6));
        y += line;
    };
    for (const Curve& curve : curves())
        if (std::any_of(m_snapshot->measurements.begin(), m_snapshot->measurements.end(),
                        [&](const Measurement& point) { return QString::fromStdString(point.family) == curve.family; }))
            entry(curve.color, Qt::SolidLine, true, curve.label);
    int reference = 0;
    for (const Measurement& point : m_snapshot->measurements) {
        if (isCurve(point)) continue;
        entry(lineColor(reference), lineStyle(reference), false,
              QStringLiteral("%1, %2=%3: %4")
                  .arg(QString::fromStdString(point.family), QString::fromStdString(point.parameter),
                       QString::fromStdString(point.value), QString::number(point.error, 'g', 3)));
        ++reference;
    }
    entry(kUnitErrorColor, Qt::SolidLine, false, AccuracyView::tr("error 1: as far off as an all-zero output"));
    QStringList notes = m_snapshot->notes;
    for (const Measurement& point : m_snapshot->measurements)
        if (!plotted(point))
            notes << AccuracyView::tr("%1 %2 = %3: error %4 is float32 rounding (exact method), not plotted")
                         .arg(QString::fromStdString(point.family).replace(QLatin1Char('_'), QLatin1Char(' ')),
                              QString::fromStdString(point.parameter), QString::fromStdString(point.value),
                              QString::number(point.error, 'g', 2));
    notes.prepend(AccuracyView::tr("Exact softmax (full) is the reference; it is not plotted (error 0)."));
    painter.setPen(QColor(0x44, 0x44, 0x44));
    painter.drawText(QRectF(box.left(), y + 8, box.width(), box.bottom() - y - 8), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                     notes.join(QStringLiteral("\n")));
    painter.restore();
}

QString AccuracyView::csvData() const {
    QString csv = QStringLiteral("family,parameter,value,relative_error,seeds,min_error,max_error\n");
    if (!m_snapshot) return csv;
    for (const Measurement& point : m_snapshot->measurements)
        csv += QStringLiteral("%1,%2,%3,%4,%5,%6,%7\n")
                   .arg(QString::fromStdString(point.family), QString::fromStdString(point.parameter),
                        QString::fromStdString(point.value))
                   .arg(point.error, 0, 'g', 17)
                   .arg(point.seeds)
                   .arg(point.minError, 0, 'g', 17)
                   .arg(point.maxError, 0, 'g', 17);
    return csv;
}

} // namespace attnlab
