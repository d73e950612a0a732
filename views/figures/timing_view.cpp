#include "views/figures/timing_view.h"
#include "views/i18n/language.h"

#include "views/figures/view_inputs.h"
#include "views/plot/plot_axes.h"
#include "views/plot/variant_colors.h"

#include "core/analysis/timing_sweep.h"
#include "core/cost/cost_model.h"
#include "core/errors.h"
#include "core/measure/timing.h"
#include "core/registry.h"


#include <algorithm>
#include <array>
#include <map>
#include <utility>

namespace attnlab {

namespace {

using Point = TimingView::Point;

QColor partColor(std::size_t part) { return costTermColor(kLayerParts[part].costTerm); }

// Everything a sweep's numbers depend on; other settings (n, the input source, the shown head) leave
// the measurement as it is.
bool sameSweep(const LabSettings& a, const LabSettings& b) { return sameFields(a, b, SettingsUse::TimingSweep); }

// gemmEngineName in the figure's language.
QString engineText(const GemmEngineRate& rate, const std::string& openBlasCore) {
    const QString library = QString::fromStdString(gemmEngineLibrary(rate.engine));
    return rate.engine == GemmEngine::OpenBlas ? TimingView::tr("%1 (kernels: %2)").arg(library, QString::fromStdString(openBlasCore))
                                               : TimingView::tr("%1 (own kernels)").arg(library);
}

} // namespace

TimingView::TimingView(QWidget* parent) : FigureView(parent) {
    connect(&m_jobs, &JobRunner::busyChanged, this, [this](bool nowBusy) {
        if (!nowBusy && m_clock.isValid()) m_sweepSeconds = m_clock.elapsed() / 1000.0;
        update();
    });
    watchJobs(m_jobs);
    watchJobs(m_blockJobs);
    connect(&m_blockJobs, &JobRunner::busyChanged, this, [this] { update(); });
}

TimingView::~TimingView() = default;

std::vector<std::int64_t> TimingView::sweepSizes(std::int64_t maxN) { return timingSweepSizes(maxN); }

std::vector<std::int64_t> TimingView::sweepSizes(const LabSettings& settings) { return timingSweepSizes(settings); }

QString TimingView::sizeAxisLabel() const {
    const QString grid = gridText(m_settings);
    const std::vector<std::int64_t> sizes = sweepSizes(m_settings);
    if (grid.isEmpty() || sizes.empty()) return TimingView::tr("sequence length n");
    const TokenGridPtr problem = makeTokenGrid(m_settings.grid, m_settings.order);
    const auto sides = [&](std::int64_t n) { return QString::fromStdString(scaledGrid(*problem, n)->sizeText()).replace(QLatin1Char(','), QChar(0x00D7)); };
    return TimingView::tr("image cells n = H·W (images %1 … %2)").arg(sides(sizes.front()), sides(sizes.back()));
}

QString TimingView::title() const {
    if (m_settings.timingMode == TimingMode::Layer) {
        const QString title = TimingView::tr("One Transformer layer measured: %1 attention, h=%2, d=%3 (hd=%4)")
                                  .arg(QString::fromStdString(measuredChoices(m_settings).front().variant))
                                  .arg(m_settings.heads)
                                  .arg(m_settings.d)
                                  .arg(static_cast<std::int64_t>(m_settings.heads) * m_settings.d);
        const QString grid = gridText(m_settings);
        return grid.isEmpty() ? title : TimingView::tr("%1, %2, scaled").arg(title, grid);
    }
    QStringList names;
    for (const VariantChoice& choice : measuredChoices(m_settings)) names << QString::fromStdString(choice.variant);
    // With a grid the sweep is over image sizes: the grid scaled to each n, frames and order kept.
    const QString grid = gridText(m_settings);
    if (!grid.isEmpty())
        return TimingView::tr("Measured time vs image size: %1 (d=%2, h=%3), %4, scaled")
            .arg(names.join(TimingView::tr(" vs ")))
            .arg(m_settings.d)
            .arg(m_settings.heads)
            .arg(grid);
    return TimingView::tr("Measured attention time vs n: %1 (d=%2, h=%3)")
        .arg(names.join(TimingView::tr(" vs ")))
        .arg(m_settings.d)
        .arg(m_settings.heads);
}

QString TimingView::caption() const {
    QStringList variants;
    for (const VariantChoice& choice : measuredChoices(m_settings)) variants << QString::fromStdString(choiceLabel(choice));
    const std::vector<std::int64_t> sizes = sweepSizes(m_settings);
    const int threads = JobRunner::kernelThreads();
    const bool layer = m_settings.timingMode == TimingMode::Layer;
    QString text = TimingView::tr("%1=%2   d=%3   h=%4   causal=%5   n=%6…%7   Gaussian inputs   |   threads: %8, "
                                  "median of ≥ %9 runs after a warm-up (≥ %10 s per point)   |   dashed: prediction = "
                                  "cost-model MACs ÷ one MAC rate per curve, fitted to its measured times")
                       .arg(variants.size() > 1 ? TimingView::tr("variants") : TimingView::tr("variant"),
                            variants.join(QStringLiteral(" | ")))
                       .arg(m_settings.d)
                       .arg(m_settings.heads)
                       .arg(m_settings.causal ? TimingView::tr("yes") : TimingView::tr("no"))
                       .arg(sizes.empty() ? 0 : sizes.front())
                       .arg(sizes.empty() ? 0 : sizes.back())
                       .arg(threads)
                       .arg(kTimingMinRepeats)
                       .arg(layer ? kTimingLayerBudgetSeconds : kTimingPointBudgetSeconds);
    if (const QString grid = gridText(m_settings); !grid.isEmpty())
        text += TimingView::tr("   |   grid: %1, scaled to each n (frames, aspect and order kept)").arg(grid);
    if (m_settings.timingBlockModel)
        text += TimingView::tr("   |   dotted: block kernel (B=%1) = computed cells of the B×B blocks × (d + dv) × h MACs ÷ one "
                               "MAC rate per curve, fitted to the same times")
                    .arg(m_settings.blockCost);
    if (layer)
        text += TimingView::tr("   |   projections and FFN on the GEMM engine; self-attention = QKV + core + output "
                               "projection; the FFN's activation is not timed");
    else
        text += TimingView::tr("   |   memory: the process's peak resident set during the runs minus before them "
                               "(outputs and workspaces, and in the app what its window allocates meanwhile; the "
                               "inputs already exist); a kernel's kept workspace counts at the first point that needs "
                               "it; dashed: the output plus the kernel's workspace by the cost model");
    return text;
}

bool TimingView::needsWork(const LabSettings& before, const LabSettings& after) const {
    return !sameSweep(before, after) || (after.timingBlockModel && blockCostKey(after) != m_blockKey);
}

void TimingView::startWork() {
    // Only the block kernel's costs are missing: the measured points stay.
    const bool blocksOnly = !m_pausedFor && m_sweepFor && sameSweep(*m_sweepFor, m_settings) && m_settings.timingBlockModel &&
                            blockCostKey(m_settings) != m_blockKey;
    if (!blocksOnly) {
        const bool resume = m_pausedFor && sameSweep(*m_pausedFor, m_settings);
        m_pausedFor.reset();
        startSweep(resume);
    }
    submitBlockCosts();
}

std::string TimingView::blockCostKey(const LabSettings& settings) {
    return fieldsKey(settings, SettingsUse::TimingSweep) + "block=" + std::to_string(settings.blockCost);
}

void TimingView::submitBlockCosts() {
    if (!m_settings.timingBlockModel || blockCostKey(m_settings) == m_blockKey) return;
    m_blockJobs.bumpGeneration();
    m_blockKey = blockCostKey(m_settings);
    m_blockMacs.clear();
    for (Point& point : m_points) point.blockMacs = std::nan("");
    const LabSettings settings = m_settings;
    m_blockJobs.submit<std::map<std::pair<int, std::int64_t>, double>>(
        [settings](const CancelCheck& cancelled) {
            lowerWorkerPriority();
            std::map<std::pair<int, std::int64_t>, double> macs;
            const std::vector<VariantChoice> choices = measuredChoices(settings);
            // Layer mode: the attention core is the part a block kernel computes.
            const bool layer = settings.timingMode == TimingMode::Layer;
            for (const std::int64_t n : timingSweepSizes(settings))
                for (std::size_t k = 0; k < choices.size(); ++k) {
                    if (cancelled()) return macs;
                    macs[{layer ? 1 : static_cast<int>(k), n}] = sweepBlockMacs(choices[k], settings, n, settings.blockCost);
                }
            return macs;
        },
        [this](const std::map<std::pair<int, std::int64_t>, double>& macs) {
            m_blockMacs = macs;
            for (Point& point : m_points) applyBlockMacs(point);
            update();
        });
}

void TimingView::applyBlockMacs(Point& point) const {
    if (m_blockKey != blockCostKey(m_settings)) return; // counted for other settings
    const auto found = m_blockMacs.find({point.seriesIndex, point.shape.n});
    point.blockMacs = found != m_blockMacs.end() ? found->second : std::nan("");
}

bool TimingView::cancelWork() {
    if (m_cancelled) return false; // the user stopped this sweep: it stays partial
    m_jobs.bumpGeneration();
    m_pausedFor = m_settings;
    return true;
}

void TimingView::remeasure() { startSweep(false); }

void TimingView::setMeasureClock(std::shared_ptr<const MeasureClock> clock) { m_measureClock = std::move(clock); }

void TimingView::cancel() {
    if (!busy() || m_cancelled) return;
    m_jobs.bumpGeneration();
    m_cancelled = true;
    update();
}

bool TimingView::measured(int seriesIndex, std::int64_t n) const {
    return std::any_of(m_points.begin(), m_points.end(), [&](const Point& point) {
        return point.shape.n == n && (m_settings.timingMode == TimingMode::Layer || point.seriesIndex == seriesIndex);
    });
}

void TimingView::startSweep(bool resume) {
    m_jobs.bumpGeneration();
    if (!resume) {
        m_sweepFor = m_settings;
        m_points.clear();
        m_modelCrossover.reset();
        m_gemm.reset();
        m_done = 0;
        m_sweepSeconds = 0;
        m_clock.start();
    }
    m_cancelled = false;
    const LabSettings settings = m_settings;
    // Shared with the jobs, so the clock outlives every reading even if it is replaced meanwhile.
    const std::shared_ptr<const MeasureClock> clock =
        m_measureClock ? m_measureClock : std::shared_ptr<const MeasureClock>(&systemMeasureClock(), [](const MeasureClock*) {});
    const std::vector<VariantChoice> choices = measuredChoices(settings);
    const std::vector<std::int64_t> sizes = sweepSizes(settings);
    const bool layer = settings.timingMode == TimingMode::Layer;
    std::vector<bool> shown(choices.size());
    for (std::size_t k = 0; k < choices.size(); ++k) shown[k] = leftOutNote(choices[k]).isEmpty();
    const auto shownCount = std::count(shown.begin(), shown.end(), true);
    m_total = static_cast<int>(sizes.size()) * static_cast<int>(layer ? std::min<std::ptrdiff_t>(1, shownCount) : shownCount);
    if (m_total == 0) {
        emit progressChanged(m_done, m_total);
        update();
        return;
    }
    if (layer && !m_modelCrossover)
        m_jobs.submit<Crossover>(
            [choice = choices.front(), settings](const CancelCheck&) {
                const VariantInfo& variant = requireVariant(choice.variant);
                return layerCrossovers(variant, problemShape(settings, variant), choice.params).attentionExceedsFfn;
            },
            [this](const Crossover& crossover) {
                m_modelCrossover = crossover;
                update();
            });
    if (layer && !m_gemm) submitGemmChoice(settings, clock);
    // n outermost, so every curve grows at the same pace.
    for (const std::int64_t n : sizes) {
        if (layer) {
            if (measured(0, n)) continue;
            m_jobs.submit<std::vector<Point>>(
                [choice = choices.front(), settings, n, clock, engine = m_gemmEngine](const CancelCheck& cancelled) {
                    return measureLayerAt(choice, settings, n, JobRunner::kernelThreads(), cancelled, *clock, engine->load());
                },
                [this](const std::vector<Point>& points) { deliver(points); });
            continue;
        }
        for (std::size_t k = 0; k < choices.size(); ++k)
            if (shown[k] && !measured(static_cast<int>(k), n))
                m_jobs.submit<std::vector<Point>>(
                [choice = choices[k], index = static_cast<int>(k), settings, n, clock](const CancelCheck& cancelled) {
                    return measureVariantAt(choice, index, settings, n, JobRunner::kernelThreads(), cancelled, *clock);
                },
                [this](const std::vector<Point>& points) { deliver(points); });
    }
    emit progressChanged(m_done, m_total);
    update();
}

void TimingView::submitGemmChoice(const LabSettings& settings, const std::shared_ptr<const MeasureClock>& clock) {
    m_gemmEngine = std::make_shared<std::atomic<GemmEngine>>(defaultGemmEngine());
    const std::int64_t width = static_cast<std::int64_t>(settings.heads) * settings.d;
    m_jobs.submit<std::optional<GemmChoice>>(
        [width, clock, engine = m_gemmEngine](const CancelCheck& cancelled) -> std::optional<GemmChoice> {
            lowerWorkerPriority();
            const auto rates = measureGemmEngines(width, JobRunner::kernelThreads(), kGemmProbeBudgetSeconds, cancelled, *clock);
            if (!rates) return std::nullopt;
            GemmChoice choice = chooseGemmEngine(*rates);
            engine->store(choice.chosen.engine);
            return choice;
        },
        [this](const std::optional<GemmChoice>& choice) {
            m_gemm = choice;
            update();
        });
}

QStringList TimingView::gemmNotes() const {
    if (m_settings.timingMode != TimingMode::Layer || !m_gemm) return {};
    QStringList others;
    for (const GemmEngineRate& rate : m_gemm->measured)
        if (rate.engine != m_gemm->chosen.engine)
            others << TimingView::tr("%1, %2 GFLOP/s").arg(engineText(rate, m_gemm->openBlasCore)).arg(rate.gflops, 0, 'f', 1);
    const QString chosen = engineText(m_gemm->chosen, m_gemm->openBlasCore);
    QStringList notes{others.isEmpty() ? TimingView::tr("projections and FFN on %1, %2 GFLOP/s")
                                             .arg(chosen)
                                             .arg(m_gemm->chosen.gflops, 0, 'f', 1)
                                       : TimingView::tr("projections and FFN on the faster GEMM engine: %1, %2 GFLOP/s (also timed: %3)")
                                             .arg(chosen)
                                             .arg(m_gemm->chosen.gflops, 0, 'f', 1)
                                             .arg(others.join(QStringLiteral("; ")))};
    double attention = 0;
    for (const Point& point : m_points)
        if (point.valid() && point.series == "attention") attention = std::max(attention, point.gflops);
    if (gemmFarBelowAttention(m_gemm->chosen.gflops, attention))
        notes << TimingView::tr("warning: the GEMM engine runs at %1% of the attention core's %2 GFLOP/s, so the projections and "
                                "the FFN are slowed and the measured crossover moves to larger n")
                     .arg(100.0 * m_gemm->chosen.gflops / attention, 0, 'f', 0)
                     .arg(attention, 0, 'f', 1);
    return notes;
}

void TimingView::deliver(const std::vector<Point>& points) {
    if (points.empty()) return; // cancelled inside the kernel
    for (Point point : points) {
        applyBlockMacs(point);
        m_points.push_back(std::move(point));
    }
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
    for (std::size_t k = 0; k < choices.size(); ++k)
        if (leftOutNote(choices[k]).isEmpty()) list.push_back({choiceLabel(choices[k]), static_cast<int>(k)});
    return list;
}

QString TimingView::leftOutNote(const VariantChoice& choice) const {
    const VariantInfo* variant = findVariant(choice.variant);
    return variant ? compareCausalProblem(m_settings, *variant) : QString();
}

QStringList TimingView::leftOutNotes() const {
    QStringList notes;
    for (const VariantChoice& choice : measuredChoices(m_settings))
        if (const QString note = leftOutNote(choice); !note.isEmpty()) notes << note;
    return notes;
}

std::vector<const Point*> TimingView::seriesPoints(int seriesIndex) const { return attnlab::seriesPoints(m_points, seriesIndex); }

QString TimingView::seriesLabel(const SeriesInfo& series) const {
    if (m_settings.timingMode != TimingMode::Layer) return QString::fromStdString(series.name);
    const LayerPartInfo& part = kLayerParts[static_cast<std::size_t>(series.index)];
    if (std::string(part.id) == "attention")
        return QStringLiteral("%1 (%2)").arg(coreText(part.label), QString::fromStdString(measuredChoices(m_settings).front().variant));
    return coreText(part.label);
}

QColor TimingView::seriesColorOf(const SeriesInfo& series) const {
    if (m_settings.timingMode == TimingMode::Layer) return partColor(static_cast<std::size_t>(series.index));
    std::vector<std::string> variants;
    for (const VariantChoice& choice : measuredChoices(m_settings)) variants.push_back(choice.variant);
    return variantColors(variants).at(static_cast<std::size_t>(series.index));
}

double TimingView::predictedSeconds(const Point& point, CostModel model) const { return attnlab::predictedSeconds(m_points, point, model); }

MeasuredCrossover TimingView::measuredCrossover() const {
    if (m_settings.timingMode != TimingMode::Layer) return {};
    return layerCrossover(m_points);
}

QString TimingView::statusText() const {
    const QStringList leftOut = leftOutNotes();
    if (m_total == 0 && !leftOut.isEmpty()) return {}; // the plot's notice says why nothing is measured
    QString text;
    if (busy() && !m_cancelled)
        text = TimingView::tr("measuring %1/%2…").arg(m_done).arg(m_total);
    else if (partial())
        text = TimingView::tr("cancelled: %1 of %2 points measured (partial)").arg(m_done).arg(m_total);
    else if (m_total == 0 || busy())
        text = TimingView::tr("waiting to measure");
    else
        text = TimingView::tr("%1 points measured in %2").arg(m_done).arg(durationText(m_sweepSeconds));
    if (m_settings.timingMode == TimingMode::Layer) text += QStringLiteral("   ·   ") + crossoverText();
    for (const QString& note : leftOut) text += QStringLiteral("   ·   ") + note;
    return text;
}

} // namespace attnlab
