#include "views/figures/inference_view.h"

#include "views/plot/plot_axes.h"

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

struct CacheCurves {
    std::vector<KvCacheCurve> curves;
    int maxLog2 = 20;
};

// The cache axis ends at 2^24 (16M tokens) at most, past the longest context deployed models take: a
// curve that outgrows the budget only beyond it (a window's cache, at billions of tokens) says where in
// its legend, and the axes stay on the sizes a deployment is planned at.
constexpr int kCacheAxisMaxLog2 = 24;

// The curves from n = 16 to twice the largest context that runs out (at least 2^20, at most 2^24).
CacheCurves cacheCurves(const LabSettings& settings, const std::vector<InferenceChoice>& choices,
                        double budget) {
    int maxLog2 = 20;
    for (const InferenceChoice& choice : choices)
        if (const auto limit = contextLimit(settings, choice.choice, budget))
            maxLog2 =
                std::max(maxLog2, static_cast<int>(std::ceil(std::log2(static_cast<double>(*limit)))) + 1);
    CacheCurves result;
    result.maxLog2 = std::min(maxLog2, kCacheAxisMaxLog2);
    for (const InferenceChoice& choice : choices)
        result.curves.push_back(kvCacheCurve(settings, choice, budget, result.maxLog2));
    return result;
}

} // namespace

InferenceView::InferenceView(QWidget* parent) : FigureView(parent) {
    watchJobs(m_jobs);
    watchJobs(m_decode.jobs());
}

void InferenceView::frameMarkChanged() {
    m_decode.update(m_settings, m_choices, m_frameMark.decodeStep, [this] { update(); });
}

QString InferenceView::precisionText() const {
    const std::string& dtype = m_settings.kvDtype;
    return dtype == "f16" ? tr("float16") : dtype == "bf16" ? tr("bfloat16") : tr("float32");
}

QString InferenceView::title() const {
    return tr("Decoding, %5 cache (h=%1, h_kv=%2, d=%3, L=%4)")
        .arg(m_settings.heads)
        .arg(m_settings.kvHeads > 0 ? m_settings.kvHeads : m_settings.heads)
        .arg(m_settings.d)
        .arg(m_settings.modelLayers)
        .arg(precisionText());
}

QString InferenceView::caption() const {
    return settingsCaption(m_settings) + tr("   |   KV cache: what one layer must keep after a step to "
                                            "produce every later token exactly, in %1: "
                                            "retained keys × h_kv × (d + d_v) × bytes per element, plus any "
                                            "recurrent state in float32 (docs/inference.md). "
                                            "Memory budget %2. Decoding step: one query row against a cache "
                                            "of n − 1 tokens read from memory (the caches "
                                            "flushed before every run), median of timed runs on this "
                                            "machine; bandwidth = the cached bytes the step reads / its "
                                            "time, beside the STREAM triad. Chunked prefill: a prompt of n = "
                                            "%3 tokens through one layer's attention core in "
                                            "chunks of c queries, each over every key before it.")
                                             .arg(precisionText(), bytesText(m_budget))
                                             .arg(m_settings.n);
}

bool InferenceView::needsWork(const LabSettings& before, const LabSettings& after) const {
    return !sameFields(before, after, SettingsUse::Inference);
}

bool InferenceView::cancelWork() {
    m_jobs.bumpGeneration();
    return true;
}

void InferenceView::startWork() {
    m_jobs.bumpGeneration();
    m_choices = inferenceChoices(m_settings);
    m_decode.update(m_settings, m_choices, m_frameMark.decodeStep, [this] { update(); });
    m_budget = memoryBudgetBytes(m_settings);
    m_curves.clear();
    m_timings.clear();
    m_prefills.clear();
    m_jobs.submit<PeakResult>(
        [](const CancelCheck&) { return sessionMachinePeak(JobRunner::kernelThreads()); },
        [this](const PeakResult& peak) {
            m_peak = peak;
            update();
        });
    m_jobs.submit<CacheCurves>([settings = m_settings, choices = m_choices, budget = m_budget](
                                   const CancelCheck&) { return cacheCurves(settings, choices, budget); },
                               [this](const CacheCurves& result) {
                                   m_curves = result.curves;
                                   m_maxLog2 = result.maxLog2;
                                   update();
                               });
    const std::vector<std::int64_t> sizes = decodeTimingSizes(m_settings.timingMaxN),
                                    chunks = prefillChunkSizes(m_settings.n);
    m_total = static_cast<int>((sizes.size() + chunks.size()) * m_choices.size());
    for (const std::int64_t n : sizes)
        for (int series = 0; series < static_cast<int>(m_choices.size()); ++series)
            m_jobs.submit<std::optional<DecodeTiming>>(
                [settings = m_settings, choice = m_choices[static_cast<std::size_t>(series)], series,
                 n](const CancelCheck& cancelled) {
                    return timeDecodeAt(settings, choice, series, n, JobRunner::kernelThreads(), cancelled);
                },
                [this](const std::optional<DecodeTiming>& timing) {
                    if (!timing) return;
                    m_timings.push_back(*timing);
                    update();
                });
    for (const std::int64_t chunk : chunks)
        for (int series = 0; series < static_cast<int>(m_choices.size()); ++series)
            m_jobs.submit<std::optional<PrefillTiming>>(
                [settings = m_settings, choice = m_choices[static_cast<std::size_t>(series)], series,
                 chunk](const CancelCheck& cancelled) {
                    return timeChunkedPrefill(settings, choice, series, chunk, JobRunner::kernelThreads(),
                                              cancelled);
                },
                [this](const std::optional<PrefillTiming>& timing) {
                    if (!timing) return;
                    m_prefills.push_back(*timing);
                    update();
                });
    update();
}

std::vector<DecodeTiming> InferenceView::seriesTimings(int series) const {
    std::vector<DecodeTiming> points;
    for (const DecodeTiming& timing : m_timings)
        if (timing.series == series && timing.valid()) points.push_back(timing);
    std::sort(points.begin(), points.end(),
              [](const DecodeTiming& a, const DecodeTiming& b) { return a.n < b.n; });
    return points;
}

QString InferenceView::csvData() const {
    QString csv = QStringLiteral("series,label,n,quantity,value,unit\n");
    const auto row = [&](const QString& series, const std::string& label, double n, const QString& quantity,
                         double value, const QString& unit) {
        csv += QStringLiteral("%1,\"%2\",%3,%4,%5,%6\n")
                   .arg(series, QString::fromStdString(label), QString::number(n, 'g', 17), quantity,
                        QString::number(value, 'g', 17), unit);
    };
    row(QStringLiteral("budget"), {}, 0, QStringLiteral("memory_budget"), m_budget, QStringLiteral("bytes"));
    row(QStringLiteral("cache"), m_settings.kvDtype, 0, QStringLiteral("bytes_per_element"),
        m_settings.kvDtype == "f32" ? 4 : 2, QStringLiteral("bytes"));
    if (m_peak)
        row(QStringLiteral("machine"), {}, 0, QStringLiteral("triad_bandwidth"), m_peak->bandwidthGBs,
            QStringLiteral("GB/s"));
    for (const KvCacheCurve& curve : m_curves) {
        for (const KvCachePoint& point : curve.points) {
            const auto n = static_cast<double>(point.n);
            if (point.retainedKeys)
                row(QStringLiteral("kv_cache"), curve.choice.label, n, QStringLiteral("retained_keys"),
                    static_cast<double>(*point.retainedKeys), QStringLiteral("keys"));
            row(QStringLiteral("kv_cache"), curve.choice.label, n, QStringLiteral("layer_bytes"),
                point.layerBytes, QStringLiteral("bytes"));
            row(QStringLiteral("kv_cache"), curve.choice.label, n, QStringLiteral("model_bytes"),
                point.layerBytes * static_cast<double>(m_settings.modelLayers), QStringLiteral("bytes"));
        }
        if (curve.runsOutAt)
            row(QStringLiteral("runs_out"), curve.choice.label, static_cast<double>(*curve.runsOutAt),
                QStringLiteral("context_n"), static_cast<double>(*curve.runsOutAt), QStringLiteral("tokens"));
    }
    for (const DecodeTiming& timing : m_timings) {
        if (!timing.valid()) continue;
        const std::string& label = m_choices[static_cast<std::size_t>(timing.series)].label;
        const auto n = static_cast<double>(timing.n);
        row(QStringLiteral("decode_step"), label, n, QStringLiteral("median_s"), timing.medianSeconds,
            QStringLiteral("s"));
        row(QStringLiteral("decode_step"), label, n, QStringLiteral("gflops"), timing.gflops,
            QStringLiteral("GFLOP/s"));
        row(QStringLiteral("decode_step"), label, n, QStringLiteral("kv_read_bytes"), timing.kvReadBytes,
            QStringLiteral("bytes"));
        row(QStringLiteral("decode_step"), label, n, QStringLiteral("bandwidth"), timing.bandwidthGBs(),
            QStringLiteral("GB/s"));
        row(QStringLiteral("decode_step"), label, n, QStringLiteral("cpu_share"), timing.cpuShare,
            QStringLiteral("fraction"));
        row(QStringLiteral("decode_step"), label, n, QStringLiteral("starved"), timing.starved() ? 1 : 0,
            QStringLiteral("flag"));
    }
    for (const PrefillTiming& timing : m_prefills) {
        if (!timing.valid()) continue;
        const std::string& label = m_choices[static_cast<std::size_t>(timing.series)].label;
        const auto chunk = static_cast<double>(timing.chunk);
        row(QStringLiteral("chunked_prefill"), label, chunk, QStringLiteral("first_token_s"), timing.seconds,
            QStringLiteral("s"));
        row(QStringLiteral("chunked_prefill"), label, chunk, QStringLiteral("cpu_share"), timing.cpuShare,
            QStringLiteral("fraction"));
    }
    return csv;
}

} // namespace attnlab
