#include "views/figures/accuracy_view.h"
#include "views/i18n/language.h"

#include "views/figures/accuracy_view_snapshot.h"
#include "views/figures/view_inputs.h"

#include "core/analysis/accuracy.h"
#include "core/errors.h"
#include "core/registry.h"

#include <QRegularExpression>

namespace attnlab {

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

AccuracyView::Snapshot buildSnapshot(const LabSettings& settings, const CancelCheck& cancelled) {
    AccuracyView::Snapshot snapshot;
    snapshot.settings = settings;
    try {
        const ProblemInputs inputs = loadInputs(settings, requireVariant("full"));
        snapshot.inputNote = inputs.note;
        snapshot.heads = inputs.shape.heads;
        AccuracyOptions options;
        options.inputScale = settings.accuracyInputScale;
        options.measure = settings.accuracyOnWeights ? AccuracyMeasure::Weights : AccuracyMeasure::Output;
        options.scales = kAccuracyScales;
        options.threads = JobRunner::kernelThreads();
        const AccuracyReport report = measureAccuracy(inputs.q, inputs.k, inputs.v, inputs.shape, options, cancelled);
        snapshot.measurements = report.measurements;
        snapshot.scaleMeasurements = report.scaleMeasurements;
        for (const std::string& note : report.notes)
            if (const QString text = accuracyNoteText(QString::fromStdString(note)); !snapshot.notes.contains(text)) snapshot.notes << text;
    } catch (const std::exception& error) {
        snapshot.error = QString::fromUtf8(error.what());
    }
    return snapshot;
}

QString csvRow(const char* panel, const AccuracyMeasurement& point, const QString& measure) {
    return QStringLiteral("%1,%2,%3,%4,%5,%6,%7,%8,%9,%10\n")
        .arg(QLatin1String(panel), QString::fromStdString(point.family), QString::fromStdString(point.parameter),
             QString::fromStdString(point.value))
        .arg(point.inputScale, 0, 'g', 17)
        .arg(measure)
        .arg(point.error, 0, 'g', 17)
        .arg(point.seeds)
        .arg(point.minError, 0, 'g', 17)
        .arg(point.maxError, 0, 'g', 17);
}

} // namespace

AccuracyView::AccuracyView(QWidget* parent) : FigureView(parent) {
    setMinimumSize(420, 320);
    watchJobs(m_jobs);
}

AccuracyView::~AccuracyView() = default;

QString AccuracyView::title() const { return tr("Where the approximations of softmax attention work, and where they break"); }

QString AccuracyView::measureText() const {
    return m_settings.accuracyOnWeights
               ? tr("effective-weights error ‖W − W_full‖_F / ‖W_full‖_F (out = W·V per head)")
               : tr("output error ‖out − out_full‖_F / ‖out_full‖_F");
}

QString AccuracyView::caption() const {
    LabSettings reference = m_settings;
    reference.variant = "full";
    reference.params.clear();
    reference.compareVariants.clear();
    QString text = settingsCaption(reference);
    if (m_snapshot && !m_snapshot->inputNote.isEmpty()) text += QStringLiteral("   (") + m_snapshot->inputNote + QLatin1Char(')');
    return text + QStringLiteral("   |   ") +
           tr("Q, K × s = %1 (logits q·k/√d × %2); relative %3 over all %4 head(s), same Q, K, V; other parameters at "
              "their defaults; random methods: mean of %5 seeds, bars min–max")
               .arg(m_settings.accuracyInputScale, 0, 'g', 4)
               .arg(m_settings.accuracyInputScale * m_settings.accuracyInputScale, 0, 'g', 4)
               .arg(measureText())
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

QString AccuracyView::csvData() const {
    QString csv = QStringLiteral(
        "panel,family,parameter,value,input_scale,error_measure,relative_error,seeds,min_error,max_error\n");
    if (!m_snapshot) return csv;
    const QString measure = m_snapshot->settings.accuracyOnWeights ? QStringLiteral("weights") : QStringLiteral("output");
    for (const Measurement& point : m_snapshot->measurements) csv += csvRow("budget", point, measure);
    for (const Measurement& point : m_snapshot->scaleMeasurements) csv += csvRow("scale", point, measure);
    return csv;
}

} // namespace attnlab
