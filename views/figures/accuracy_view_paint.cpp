// The accuracy view's drawing: one panel per method with its own budget axis, the error-vs-input-scale
// panel and the key with what each series means.
#include "views/figures/accuracy_view.h"
#include "views/figures/accuracy_view_snapshot.h"
#include "views/i18n/language.h"

#include "views/plot/legend_below.h"
#include "views/plot/plot_axes.h"
#include "views/plot/text_style.h"
#include "views/plot/variant_colors.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <vector>

namespace attnlab {

namespace {

// Errors below this are float32 rounding of an exact method (e.g. pooling with k = n): listed, not plotted.
constexpr double kRoundingLevel = 1e-5;
// Figures narrower than this put the key under the panels.
constexpr double kKeyBesideWidth = 820;

// A curve's label without its method's id in front ("linformer, mean pooling E = F" → "mean pooling E = F"),
// for a panel whose title names the method.
QString withoutMethod(const QString& label, const std::string& id) {
    const QString method = QString::fromStdString(id);
    for (const QString& comma : {QStringLiteral(", "), QStringLiteral("，")})
        if (label.startsWith(method + comma)) return label.mid(method.size() + comma.size());
    return label;
}

bool plotted(const AccuracyMeasurement& point) { return std::isfinite(point.error) && point.error >= kRoundingLevel; }

QString text(const std::string& value) { return QString::fromStdString(value); }

// A registered sweep as the figure draws it.
struct Curve {
    const VariantInfo* variant;
    const AccuracySweep* sweep;
    QColor color;
};

// Budget sweeps in their own colours, in registry order.
std::vector<Curve> budgetCurves() {
    std::vector<Curve> list;
    std::vector<std::string> variants;
    for (const RegisteredSweep& entry : registeredAccuracySweeps())
        if (entry.sweep->budget) {
            list.push_back({entry.variant, entry.sweep, QColor()});
            variants.push_back(entry.variant->id);
        }
    const std::vector<QColor> colours = variantColors(variants);
    for (std::size_t k = 0; k < list.size(); ++k) list[k].color = colours[k];
    return list;
}

// The variants with a budget sweep: one panel each.
std::vector<const VariantInfo*> budgetVariants() {
    std::vector<const VariantInfo*> variants;
    for (const Curve& curve : budgetCurves())
        if (std::find(variants.begin(), variants.end(), curve.variant) == variants.end()) variants.push_back(curve.variant);
    return variants;
}

// Reference lines by their order of appearance.
Qt::PenStyle lineStyle(int index) {
    static const Qt::PenStyle styles[] = {Qt::DashLine, Qt::DashDotLine, Qt::DotLine};
    return styles[index % 3];
}

const QColor kUnitErrorColor(0xAA, 0xAA, 0xAA);

std::vector<const AccuracyMeasurement*> referenceLines(const std::vector<AccuracyMeasurement>& measurements) {
    std::vector<const AccuracyMeasurement*> lines;
    for (const RegisteredSweep& entry : registeredAccuracySweeps()) {
        if (entry.sweep->budget) continue;
        for (const AccuracyMeasurement& point : measurements)
            if (point.family == entry.sweep->family) lines.push_back(&point);
    }
    return lines;
}

const RegisteredSweep* sweepOf(const std::string& family) {
    static const std::vector<RegisteredSweep> sweeps = registeredAccuracySweeps();
    for (const RegisteredSweep& entry : sweeps)
        if (entry.sweep->family == family) return &entry;
    return nullptr;
}

// A reference line (a value without a budget, e.g. one of linear attention's kernels) in its variant's
// colour; the lines of one variant differ by their dashes (lineStyle).
QColor referenceColour(const AccuracyMeasurement& line) {
    const RegisteredSweep* owner = sweepOf(line.family);
    return owner ? variantColor(owner->variant->id) : variantColor(std::string());
}

bool isReferenceFamily(const std::string& family) {
    const RegisteredSweep* entry = sweepOf(family);
    return entry && !entry->sweep->budget;
}

// A series with min–max bars of its seeds.
void drawCurve(QPainter& painter, const PlotAxes& axes, const std::vector<AccuracyMeasurement>& measurements,
               const std::string& family, const std::string& value, const QColor& color, Qt::PenStyle style, const QString& name) {
    Series series{name, color, {}, style, true};
    painter.save();
    painter.setPen(QPen(color, 1.2));
    for (const AccuracyMeasurement& point : measurements) {
        if (point.family != family || (!value.empty() && point.value != value) || !plotted(point)) continue;
        series.points.emplace_back(point.x, point.error);
        if (point.seeds > 1 && point.minError > 0) painter.drawLine(axes.map(point.x, point.minError), axes.map(point.x, point.maxError));
    }
    painter.restore();
    axes.drawSeries(series);
}

void drawUnitError(const PlotAxes& axes) {
    const Axis& x = axes.xAxis();
    axes.drawSeries({QString(), kUnitErrorColor, {{x.min, 1.0}, {x.max, 1.0}}, Qt::SolidLine, false});
}

} // namespace

void AccuracyView::drawFigure(QPainter& painter, const QRectF& rect) const {
    const QRectF body = paintFrame(painter, rect, title(), caption());
    // The key beside the panels where the figure is wide; in a narrow one (the window's tab) a column of
    // 28 % would cut its names and notes, so it goes below the panels at the full width.
    const bool keyBelow = m_snapshot && m_snapshot->error.isEmpty() && body.width() < kKeyBesideWidth;
    const double keyTop = keyBelow ? body.bottom() - std::min(keyHeight(painter, body.width()), body.height() * 0.4) : body.top();
    const double split = keyBelow ? body.right() + 8 : body.left() + body.width() * 0.72;
    const QRectF panels(body.topLeft(), QPointF(split - 8, keyBelow ? keyTop - 8 : body.bottom()));
    if (!m_snapshot || !m_snapshot->error.isEmpty()) {
        const PlotAxes axes(painter, panels, Axis::fitted(QString(), AxisScale::Linear, {}), Axis::fitted(QString(), AxisScale::Linear, {}));
        axes.drawNotice(m_snapshot ? m_snapshot->error : tr("Computing exact attention and the approximations…"));
        return;
    }
    std::vector<double> errors{1.0};
    for (const auto* list : {&m_snapshot->measurements, &m_snapshot->scaleMeasurements})
        for (const Measurement& point : *list)
            if (plotted(point)) errors.insert(errors.end(), {point.error, point.minError, point.maxError});
    // Short panels (key below) keep the short label; the caption says of what.
    const QString what = keyBelow ? tr("relative error")
                                  : m_settings.accuracyOnWeights ? tr("relative error of the weights W") : tr("relative error of the output");
    const Axis y = Axis::fitted(what, AxisScale::Log10, errors);

    const std::vector<const VariantInfo*> variants = budgetVariants();
    const int count = static_cast<int>(variants.size()) + 1, columns = 2, rows = (count + columns - 1) / columns;
    const double width = panels.width() / columns, height = panels.height() / rows;
    const auto cell = [&](int index) {
        return QRectF(panels.left() + (index % columns) * width, panels.top() + (index / columns) * height, width - 6, height - 6);
    };
    for (int index = 0; index < static_cast<int>(variants.size()); ++index)
        paintBudgetPanel(painter, cell(index), *variants[static_cast<std::size_t>(index)], y);
    paintScalePanel(painter, cell(count - 1), y);
    paintKey(painter, keyBelow ? QRectF(QPointF(body.left(), keyTop), body.bottomRight())
                               : QRectF(QPointF(split + 8, body.top()), body.bottomRight()));
}

void AccuracyView::paintBudgetPanel(QPainter& painter, const QRectF& area, const VariantInfo& variant, const Axis& y) const {
    std::vector<const Curve*> own;
    const std::vector<Curve> curves = budgetCurves();
    for (const Curve& curve : curves)
        if (curve.variant == &variant) own.push_back(&curve);
    std::vector<double> xs;
    for (const Curve* curve : own)
        for (const std::string& value : curve->sweep->values) xs.push_back(std::stod(value));
    const Axis x = Axis::fitted(coreText(own.front()->sweep->axis), AxisScale::Log2, xs);
    // The x axis names the budget, so the title names the method and the scale only.
    const PlotAxes axes(painter, area, x, y, tr("%1 at s = %2").arg(coreText(variant.displayName)).arg(m_settings.accuracyInputScale, 0, 'g', 4));
    axes.drawAxes();
    const bool measured = std::any_of(m_snapshot->measurements.begin(), m_snapshot->measurements.end(), [&](const Measurement& point) {
        return std::any_of(own.begin(), own.end(), [&](const Curve* curve) { return curve->sweep->family == point.family; });
    });
    if (!measured) {
        axes.drawNotice(variant.causalSupport == CausalSupport::BidirectionalOnly && m_settings.causal
                            ? tr("%1 is bidirectional only: not measured for causal attention").arg(coreText(variant.displayName))
                            : tr("no value of this sweep fits the inputs (see the notes)"));
        return;
    }
    drawUnitError(axes);
    int reference = 0;
    for (const Measurement* line : referenceLines(m_snapshot->measurements)) {
        const RegisteredSweep* owner = sweepOf(line->family);
        if (owner && owner->variant->family == variant.family)
            axes.drawSeries({QString(),
                             referenceColour(*line),
                             {{axes.xAxis().min, line->error}, {axes.xAxis().max, line->error}},
                             lineStyle(reference),
                             false});
        ++reference;
    }
    std::vector<LegendEntry> legend;
    for (const Curve* curve : own) {
        drawCurve(painter, axes, m_snapshot->measurements, curve->sweep->family, {}, curve->color, Qt::SolidLine, QString());
        legend.push_back({withoutMethod(coreText(curve->sweep->label), variant.id), curve->color});
    }
    axes.drawLegend(legend, Qt::BottomLeftCorner);
}

// Every method's curve crosses this panel, so no corner of it is free: its legend goes below the plot.
void AccuracyView::paintScalePanel(QPainter& painter, const QRectF& area, const Axis& y) const {
    std::vector<double> xs = kAccuracyScales;
    xs.push_back(m_settings.accuracyInputScale);
    const Axis x = Axis::fitted(tr("input scale s (Q, K × s)"), AxisScale::Log2, xs);
    const auto& points = m_snapshot->scaleMeasurements;
    std::vector<Curve> curves;
    std::vector<LegendEntry> legend;
    for (const Curve& curve : budgetCurves()) {
        if (std::none_of(points.begin(), points.end(), [&](const Measurement& point) { return point.family == curve.sweep->family; }))
            continue;
        curves.push_back(curve);
        legend.push_back({QStringLiteral("%1, %2 = %3").arg(coreText(curve.sweep->label), text(curve.sweep->parameter), text(curve.sweep->scaleBudget)),
                          curve.color});
    }
    // Its legend below leaves the plot short: the y label says less than its neighbour's, whose axis it shares.
    Axis shortY = y;
    shortY.label = tr("relative error");
    const PlotAxes axes(painter, legendBelow(painter, area, legend), x, shortY, tr("Error vs input scale at a fixed budget"));
    axes.drawAxes();
    drawUnitError(axes);
    for (const Curve& curve : curves)
        drawCurve(painter, axes, points, curve.sweep->family, {}, curve.color, Qt::SolidLine, QString());
    int reference = 0;
    for (const Measurement* line : referenceLines(m_snapshot->measurements)) {
        drawCurve(painter, axes, points, line->family, line->value, referenceColour(*line), lineStyle(reference), QString());
        ++reference;
    }
    axes.drawVerticalMarkers({{m_settings.accuracyInputScale, tr("s of the budget panels"), QColor(0x55, 0x55, 0x55)}});
}

QString AccuracyView::keyNotes() const {
    QStringList notes;
    notes << tr("Error: %1. Exact softmax (full) is the reference (error 0).").arg(measureText());
    for (const Curve& curve : budgetCurves())
        if (!curve.sweep->note.empty()) notes << QStringLiteral("%1: %2").arg(coreText(curve.sweep->label), coreText(curve.sweep->note));
    notes << m_snapshot->notes;
    for (const Measurement& point : m_snapshot->measurements)
        if (!std::isfinite(point.error))
            notes << tr("%1 %2 = %3: the output is not finite (the kernel overflowed at this input scale), not plotted")
                         .arg(text(point.family).replace(QLatin1Char('_'), QLatin1Char(' ')), text(point.parameter), text(point.value));
        else if (!plotted(point) && !isReferenceFamily(point.family))
            notes << tr("%1 %2 = %3: error %4 is float32 rounding (exact method), not plotted")
                         .arg(text(point.family).replace(QLatin1Char('_'), QLatin1Char(' ')), text(point.parameter), text(point.value))
                         .arg(point.error, 0, 'g', 2);
    return notes.join(QStringLiteral("\n"));
}

double AccuracyView::keyHeight(const QPainter& painter, double width) const {
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double entries = static_cast<double>(referenceLines(m_snapshot->measurements).size() + 1) * (metrics.height() + 2);
    const QRectF notes = metrics.boundingRect(QRectF(0, 0, width, 1e6), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap, keyNotes());
    return 4 + entries + 8 + notes.height();
}

void AccuracyView::paintKey(QPainter& painter, const QRectF& box) const {
    painter.save();
    const QFontMetricsF metrics(painter.font(), painter.device());
    const double line = metrics.height() + 2, swatch = 24;
    double y = box.top() + 4;
    const auto entry = [&](const QColor& colour, Qt::PenStyle style, const QString& label) {
        painter.setPen(QPen(colour, 1.8, style));
        painter.drawLine(QPointF(box.left(), y + line / 2), QPointF(box.left() + swatch, y + line / 2));
        painter.setPen(Qt::black);
        drawFittedText(painter, QRectF(box.left() + swatch + 6, y, box.width() - swatch - 6, line), Qt::AlignLeft | Qt::AlignVCenter,
                       label);
        y += line;
    };
    int reference = 0;
    for (const Measurement* point : referenceLines(m_snapshot->measurements)) {
        entry(referenceColour(*point), lineStyle(reference),
              tr("%1, %2 = %3: %4").arg(text(point->family), text(point->parameter), text(point->value)).arg(point->error, 0, 'g', 3));
        ++reference;
    }
    entry(kUnitErrorColor, Qt::SolidLine, tr("error 1 = an all-zero output"));
    painter.setPen(QColor(0x44, 0x44, 0x44));
    drawAlignedText(painter, QRectF(box.left(), y + 8, box.width(), box.bottom() - y - 8), Qt::AlignLeft | Qt::AlignTop | Qt::TextWordWrap,
                    keyNotes());
    painter.restore();
}

} // namespace attnlab
