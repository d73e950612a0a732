// The timing view's CSV: a row per measured point (times, MACs, rates, memory, the cost model's
// prediction, CPU share, each curve's fitted and model slopes, the block kernel's columns when shown) and,
// for a layer sweep, the crossovers and the GEMM engines timed.
#include "views/figures/csv_text.h"
#include "views/figures/timing_view.h"
#include "views/i18n/language.h"

#include "core/analysis/timing_sweep.h"
#include "core/cost/cost_model.h"
#include "core/measure/timing.h"

#include <cmath>

namespace attnlab {

namespace {

QString csvNumber(double value) { return std::isfinite(value) ? QString::number(value, 'g', 9) : QString(); }

} // namespace

QString TimingView::csvData() const {
    QString csv = QStringLiteral("mode,series,n,d,heads,causal,median_s,min_s,max_s,repeats,macs,gflops,"
                                 "peak_extra_bytes,model_extra_bytes,predicted_s,cpu_share,fitted_slope,model_slope,grid,block_size,"
                                 "block_macs,block_predicted_s,block_model_slope,note\n");
    const bool blocks = m_settings.timingBlockModel;
    const QString mode = QString::fromStdString(timingModeName(m_settings.timingMode));
    for (const SeriesInfo& series : seriesList()) {
        // The curve's log-log slopes over its trusted points, on each of its rows (empty without a fit).
        const auto slopes = seriesSlopes(m_points, series.index);
        for (const Point* point : seriesPoints(series.index)) {
            const bool valid = point->valid();
            csv += QStringList{mode,
                               csvField(QString::fromStdString(point->series)),
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
                               slopes ? csvNumber(slopes->measured) : QString(),
                               slopes ? csvNumber(slopes->model) : QString(),
                               point->shape.grid ? csvField(QString::fromStdString(point->shape.grid->sizeText())) : QString(),
                               blocks ? QString::number(m_settings.blockCost) : QString(),
                               blocks && valid ? csvNumber(point->blockMacs) : QString(),
                               blocks && valid ? csvNumber(predictedSeconds(*point, CostModel::BlockKernel)) : QString(),
                               blocks && slopes ? csvNumber(slopes->blockModel) : QString(),
                               csvField(QString::fromStdString(point->error))}
                       .join(QLatin1Char(',')) +
                   QLatin1Char('\n');
        }
    }
    if (m_settings.timingMode == TimingMode::Layer) {
        const auto marker = [&](const QString& series, double n, const QString& note) {
            csv += QStringLiteral("%1,%2,%3,%4,%5,,,,,,,,,,,,,,,,,,,%6\n")
                       .arg(mode, series, csvNumber(n))
                       .arg(m_settings.d)
                       .arg(m_settings.heads)
                       .arg(note);
        };
        const MeasuredCrossover measured = measuredCrossover();
        if (measured.n) marker(QStringLiteral("crossover_measured"), *measured.n, TimingView::tr("self-attention > FFN"));
        if (m_modelCrossover && m_modelCrossover->threshold)
            marker(QStringLiteral("crossover_cost_model"), static_cast<double>(*m_modelCrossover->threshold),
                   TimingView::tr("self-attention > FFN: %1").arg(attnlab::crossoverText(*m_modelCrossover)));
        // Every GEMM engine timed on the probe product (n = its rows), its rate in gflops.
        if (m_gemm)
            for (const GemmEngineRate& rate : m_gemm->measured)
                csv += QStringLiteral("%1,%2,%3,%4,%5,,,,,,,%6,,,,,,,,,,,,%7\n")
                           .arg(mode, rate.engine == m_gemm->chosen.engine ? QStringLiteral("gemm_engine_chosen") : QStringLiteral("gemm_engine"),
                                QString::number(kGemmProbeRows))
                           .arg(m_settings.d)
                           .arg(m_settings.heads)
                           .arg(csvNumber(rate.gflops), csvField(QString::fromStdString(rate.name)));
    }
    return csv;
}

} // namespace attnlab
