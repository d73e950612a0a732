#include "views/accuracy_view.h"

#include "views/plot_axes.h"
#include "views/view_inputs.h"

#include "core/errors.h"
#include "core/registry.h"

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

// Errors below this are float32 rounding of an exact method (e.g. pooling with k = n): listed, not plotted.
constexpr double kRoundingLevel = 1e-5;

bool plotted(const AccuracyView::Measurement& point) { return point.error >= kRoundingLevel; }

struct Family {
    const char* id;
    const char* variant;
    const char* parameter;
    QString label;
    QColor color;
};

const std::vector<Family>& families() {
    static const std::vector<Family> list = {
        {"performer", "performer", "features", QStringLiteral("performer vs features m"), seriesColor(0)},
        {"linformer_gaussian", "linformer", "k", QStringLiteral("linformer, Gaussian E, F vs k"), seriesColor(1)},
        {"linformer_pool", "linformer", "k", QStringLiteral("linformer, pooling vs k"), seriesColor(2)},
        {"lsh", "lsh", "rounds", QStringLiteral("lsh (shared_qk=false) vs rounds"), seriesColor(3)},
    };
    return list;
}

QColor kernelColor(const QString& kernel) {
    if (kernel == QLatin1String("elu")) return seriesColor(4);
    if (kernel == QLatin1String("efficient")) return seriesColor(5);
    return seriesColor(7);
}

const QColor kUnitErrorColor(0xAA, 0xAA, 0xAA);

Qt::PenStyle kernelStyle(const QString& kernel) {
    if (kernel == QLatin1String("elu")) return Qt::DashLine;
    if (kernel == QLatin1String("efficient")) return Qt::DashDotLine;
    return Qt::DotLine;
}

// The settings that change Q, K, V or the reference; anything else leaves the figure as it is.
bool sameInputs(const LabSettings& a, const LabSettings& b) {
    return a.n == b.n && a.d == b.d && a.heads == b.heads && a.causal == b.causal && a.source == b.source &&
           a.inputSeed == b.inputSeed && a.qPath == b.qPath && a.kPath == b.kPath && a.vPath == b.vPath;
}

// ‖out − reference‖_F / ‖reference‖_F in double precision over every head.
double relativeError(const Tensor3& out, const Tensor3& reference) {
    double difference = 0, norm = 0;
    for (std::size_t c = 0; c < reference.values.size(); ++c) {
        const double r = reference.values[c], e = static_cast<double>(out.values[c]) - r;
        difference += e * e;
        norm += r * r;
    }
    return std::sqrt(difference) / std::sqrt(norm);
}

// Runs variants on one set of inputs and compares them with the exact output computed once.
class Comparer {
public:
    Comparer(const ProblemInputs& inputs, const CancelCheck& cancelled) : m_inputs(inputs), m_cancelled(cancelled) {
        const VariantInfo& full = requireVariant("full");
        const RunResult result = full.run(AttentionInputs{&inputs.q, &inputs.k, &inputs.v}, options(prepareParams(full, inputs.shape, {})));
        m_reference = result.out;
        m_valid = !result.cancelled;
    }

    bool cancelled() const { return !m_valid || (m_cancelled && m_cancelled()); }

    // The relative error of one variant with `overrides`; nullopt when cancelled. Throws InputError for
    // parameters outside their range.
    std::optional<double> error(const VariantInfo& variant, const ParamOverrides& overrides) const {
        const ParamSet params = prepareParams(variant, m_inputs.shape, overrides);
        const bool needsKeys = !variant.needsKeys || variant.needsKeys(params);
        const RunResult result = variant.run(AttentionInputs{&m_inputs.q, needsKeys ? &m_inputs.k : nullptr, &m_inputs.v}, options(params));
        if (result.cancelled || cancelled()) return std::nullopt;
        return relativeError(result.out, m_reference);
    }

private:
    RunOptions options(const ParamSet& params) const {
        RunOptions run;
        run.causal = m_inputs.shape.causal;
        run.params = params;
        run.threads = JobRunner::kernelThreads();
        run.cancelled = m_cancelled;
        return run;
    }

    const ProblemInputs& m_inputs;
    CancelCheck m_cancelled;
    Tensor3 m_reference;
    bool m_valid = false;
};

// One point: the mean, min and max error over the seeds (one run when `seeded` is false).
std::optional<AccuracyView::Measurement> measure(const Comparer& comparer, const Family& family, std::int64_t value, bool seeded,
                                                 ParamOverrides overrides) {
    const VariantInfo& variant = requireVariant(family.variant);
    overrides[family.parameter] = std::to_string(value);
    AccuracyView::Measurement point{QString::fromLatin1(family.id), QString::fromLatin1(family.parameter), QString::number(value),
                                    static_cast<double>(value), 0, std::numeric_limits<double>::infinity(), 0, seeded ? AccuracyView::kSeeds : 1};
    for (int seed = 0; seed < point.seeds; ++seed) {
        if (seeded) overrides["seed"] = std::to_string(seed);
        const auto error = comparer.error(variant, overrides);
        if (!error) return std::nullopt;
        point.error += *error / point.seeds;
        point.minError = std::min(point.minError, *error);
        point.maxError = std::max(point.maxError, *error);
    }
    return point;
}

QString valuesText(const std::vector<std::int64_t>& values) {
    QStringList items;
    for (const std::int64_t value : values) items << QString::number(value);
    return items.join(QStringLiteral(", "));
}

void measureFamily(AccuracyView::Snapshot& snapshot, const Comparer& comparer, const Family& family, const ProblemShape& shape) {
    const std::string id = family.id;
    const VariantInfo& variant = requireVariant(family.variant);
    if (shape.causal && variant.causalSupport == CausalSupport::BidirectionalOnly) {
        if (id == "linformer_gaussian")
            snapshot.notes << QStringLiteral("linformer is bidirectional only: left out for causal attention");
        return;
    }
    std::vector<std::int64_t> values, leftOut;
    if (id == "performer") values.assign(AccuracyView::kPerformerFeatures.begin(), AccuracyView::kPerformerFeatures.end());
    if (id == "lsh") values.assign(AccuracyView::kLshRounds.begin(), AccuracyView::kLshRounds.end());
    if (id.rfind("linformer", 0) == 0)
        for (const std::int64_t k : AccuracyView::kLinformerK) (k <= shape.n ? values : leftOut).push_back(k);
    if (!leftOut.empty() && id == "linformer_gaussian")
        snapshot.notes << QStringLiteral("linformer: k = %1 left out (k > n = %2)").arg(valuesText(leftOut)).arg(shape.n);
    ParamOverrides overrides;
    if (id == "linformer_gaussian") overrides["proj"] = "gaussian";
    if (id == "linformer_pool") overrides["proj"] = "pool";
    if (id == "lsh") overrides["shared_qk"] = "false";
    const bool seeded = id != "linformer_pool";
    for (const std::int64_t value : values) {
        if (comparer.cancelled()) return;
        try {
            if (auto point = measure(comparer, family, value, seeded, overrides)) snapshot.measurements.push_back(*point);
        } catch (const InputError& error) {
            snapshot.notes << QStringLiteral("%1 %2 = %3 left out: %4")
                                  .arg(QString::fromLatin1(family.variant), QString::fromLatin1(family.parameter))
                                  .arg(value)
                                  .arg(QString::fromUtf8(error.what()));
        }
    }
}

AccuracyView::Snapshot buildSnapshot(const LabSettings& settings, const CancelCheck& cancelled) {
    AccuracyView::Snapshot snapshot;
    snapshot.settings = settings;
    try {
        const ProblemInputs inputs = loadInputs(settings, requireVariant("full"));
        snapshot.inputNote = inputs.note;
        snapshot.heads = inputs.shape.heads;
        const Comparer comparer(inputs, cancelled);
        for (const Family& family : families()) measureFamily(snapshot, comparer, family, inputs.shape);
        const VariantInfo& linear = requireVariant("linear");
        for (const char* kernel : AccuracyView::kLinearKernels) {
            if (comparer.cancelled()) break;
            if (const auto error = comparer.error(linear, {{"kernel", kernel}}))
                snapshot.measurements.push_back({QStringLiteral("linear"), QStringLiteral("kernel"), QString::fromLatin1(kernel), 0,
                                                 *error, *error, *error, 1});
        }
    } catch (const std::exception& error) {
        snapshot.error = QString::fromUtf8(error.what());
    }
    return snapshot;
}

} // namespace

// ---------------------------------------------------------------------------------------------------

AccuracyView::AccuracyView(QWidget* parent) : FigureView(parent) {
    setMinimumSize(420, 320);
    connect(&m_jobs, &JobRunner::busyChanged, this, &FigureView::busyChanged);
    startJob();
}

AccuracyView::~AccuracyView() = default;

QString AccuracyView::title() const { return QStringLiteral("Error of the approximations against exact softmax attention"); }

QString AccuracyView::caption() const {
    LabSettings reference = m_settings;
    reference.variant = "full";
    reference.params.clear();
    reference.compareVariants.clear();
    QString text = settingsCaption(reference);
    if (m_snapshot && !m_snapshot->inputNote.isEmpty()) text += QStringLiteral("   (") + m_snapshot->inputNote + QLatin1Char(')');
    return text + QStringLiteral("   |   relative error ‖out − out_full‖_F / ‖out_full‖_F over all %1 head(s), same Q, K, V; "
                                 "other parameters at their defaults; random methods: mean of %2 seeds, bars min–max")
                      .arg(m_snapshot && m_snapshot->heads > 0 ? m_snapshot->heads : m_settings.heads)
                      .arg(kSeeds);
}

void AccuracyView::setSettings(const LabSettings& settings) {
    const bool recompute = !m_snapshot || !sameInputs(settings, m_settings);
    m_settings = settings;
    if (recompute)
        startJob();
    else
        update();
}

void AccuracyView::startJob() {
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
            if (point.family != QLatin1String("linear")) xs.push_back(point.x);
            if (plotted(point)) errors.insert(errors.end(), {point.error, point.minError, point.maxError});
        }
    const Axis x = Axis::fitted(QStringLiteral("features m (performer) · projected length k (linformer) · hashing rounds (lsh)"),
                                AxisScale::Log2, xs);
    const Axis y = Axis::fitted(QStringLiteral("relative error (Frobenius)"), AxisScale::Log10, errors);
    const PlotAxes axes(painter, plotArea, x, y, QStringLiteral("Relative error vs the method's own budget (log–log)"));
    axes.drawAxes();
    if (!m_snapshot) {
        axes.drawNotice(QStringLiteral("Computing exact attention and the approximations…"));
        return;
    }
    if (!m_snapshot->error.isEmpty()) {
        axes.drawNotice(m_snapshot->error);
        return;
    }
    axes.drawSeries({QString(), kUnitErrorColor, {{x.min, 1.0}, {x.max, 1.0}}, Qt::SolidLine, false});
    for (const Measurement& point : m_snapshot->measurements)
        if (point.family == QLatin1String("linear"))
            axes.drawSeries({point.value, kernelColor(point.value), {{x.min, point.error}, {x.max, point.error}}, kernelStyle(point.value), false});
    for (const Family& family : families()) {
        Series series{family.label, family.color, {}, Qt::SolidLine, true};
        painter.save();
        painter.setPen(QPen(family.color, 1.2));
        for (const Measurement& point : m_snapshot->measurements) {
            if (point.family != QLatin1String(family.id) || !plotted(point)) continue;
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
    for (const Family& family : families())
        if (std::any_of(m_snapshot->measurements.begin(), m_snapshot->measurements.end(),
                        [&](const Measurement& point) { return point.family == QLatin1String(family.id); }))
            entry(family.color, Qt::SolidLine, true, family.label);
    for (const Measurement& point : m_snapshot->measurements)
        if (point.family == QLatin1String("linear"))
            entry(kernelColor(point.value), kernelStyle(point.value), false,
                  QStringLiteral("linear, kernel=%1: %2").arg(point.value, QString::number(point.error, 'g', 3)));
    entry(kUnitErrorColor, Qt::SolidLine, false, QStringLiteral("error 1: as far off as an all-zero output"));
    QStringList notes = m_snapshot->notes;
    for (const Measurement& point : m_snapshot->measurements)
        if (!plotted(point))
            notes << QStringLiteral("%1 %2 = %3: error %4 is float32 rounding (exact method), not plotted")
                         .arg(QString(point.family).replace(QLatin1Char('_'), QLatin1Char(' ')), point.parameter, point.value,
                              QString::number(point.error, 'g', 2));
    notes.prepend(QStringLiteral("Exact softmax (full) is the reference; it is not plotted (error 0)."));
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
                   .arg(point.family, point.parameter, point.value)
                   .arg(point.error, 0, 'g', 17)
                   .arg(point.seeds)
                   .arg(point.minError, 0, 'g', 17)
                   .arg(point.maxError, 0, 'g', 17);
    return csv;
}

} // namespace attnlab
