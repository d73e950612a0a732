#include "core/analysis/inference.h"

#include "core/analysis/timing_sweep.h"
#include "core/cost/cost_model.h"
#include "core/decode/decode.h"
#include "core/errors.h"
#include "core/jobs/memory_budget.h"
#include "core/measure/machine_peak.h"
#include "core/measure/thread_cpu_clock.h"
#include "core/registry.h"

#include <algorithm>
#include <mutex>

namespace attnlab {

namespace {

bool sameChoice(const VariantChoice& a, const VariantChoice& b) { return a.variant == b.variant && a.params == b.params; }

// The settings' shape at context n for `variant`'s decoding step: causal, dv = d.
ProblemShape decodeShape(const LabSettings& settings, const VariantInfo& variant, std::int64_t n) {
    ProblemShape shape = problemShape(settings, variant);
    shape.setCausalContext(n);
    return shape;
}

double modelBytes(const LabSettings& settings, const VariantInfo& variant, const VariantChoice& choice, std::int64_t n) {
    const ProblemShape shape = decodeShape(settings, variant, n);
    const ParamSet params = prepareParams(variant, shape, choice.params);
    return static_cast<double>(settings.modelLayers) * decodeCache(variant, shape, params, settingsKvDtype(settings)).kvCacheBytes;
}

TimingRequest requestFor(const InferenceChoice& choice, const ProblemShape& shape, int threads, const CancelCheck& cancelled) {
    TimingRequest request;
    request.variant = choice.choice.variant;
    request.shape = shape;
    request.overrides = choice.choice.params;
    request.threads = threads;
    request.budgetSeconds = kTimingPointBudgetSeconds;
    request.minRepeats = kTimingMinRepeats;
    request.maxRepeats = kTimingMaxRepeats;
    request.cancelled = cancelled;
    return request;
}

} // namespace

KvDtype settingsKvDtype(const LabSettings& settings) { return kvDtypeFromName(settings.kvDtype, "the cache precision"); }

std::vector<InferenceChoice> inferenceChoices(const LabSettings& settings) {
    std::vector<InferenceChoice> choices = {
        {{"full", {}}, "full"},
        {{"longformer", {{"window", "8190"}}}, "window 4096"},
        {{"longformer", {{"window", "8190"}, {"globals", "0,1,2,3"}}}, "window + 4 sinks"},
        {{"chunk", {{"chunk", "4096"}}}, "chunk 4096"},
        {{"linear", {}}, "linear (elu)"},
    };
    for (const VariantChoice& chosen : chosenVariants(settings))
        if (std::none_of(choices.begin(), choices.end(), [&](const InferenceChoice& c) { return sameChoice(c.choice, chosen); }))
            choices.push_back({chosen, choiceLabel(chosen)});
    return choices;
}

double memoryBudgetBytes(const LabSettings& settings) {
    return settings.memoryBudget > 0 ? static_cast<double>(settings.memoryBudget) : physicalMemoryBytes();
}

std::vector<std::int64_t> kvCacheSizes(int maxLog2) {
    std::vector<std::int64_t> sizes;
    for (int k = 4; k <= maxLog2; ++k) sizes.push_back(std::int64_t{1} << k);
    return sizes;
}

KvCacheCurve kvCacheCurve(const LabSettings& settings, const InferenceChoice& choice, double budgetBytes, int maxLog2) {
    KvCacheCurve curve;
    curve.choice = choice;
    const VariantInfo& variant = requireVariant(choice.choice.variant);
    try {
        requireDecoding(variant);
    } catch (const InputError& error) {
        curve.error = error.what();
        return curve;
    }
    std::vector<std::int64_t> sizes = kvCacheSizes(maxLog2);
    if (!settings.grid.empty() && settings.n > 0 && std::find(sizes.begin(), sizes.end(), settings.n) == sizes.end())
        sizes.insert(std::upper_bound(sizes.begin(), sizes.end(), settings.n), settings.n); // the grid's own n
    for (const std::int64_t n : sizes) {
        try {
            const ProblemShape shape = decodeShape(settings, variant, n);
            const DecodeCost cache = decodeCache(variant, shape, prepareParams(variant, shape, choice.choice.params), settingsKvDtype(settings));
            curve.points.push_back({n, cache.retainedKeys, cache.kvCacheBytes});
        } catch (const InputError&) {
            // these parameters do not fit this n (e.g. a global index beyond it): no point
        }
    }
    curve.partial = curve.points.size() < sizes.size();
    curve.runsOutAt = contextLimit(settings, choice.choice, budgetBytes);
    if (!curve.runsOutAt && curve.partial) { // contextLimit passes over the n the pattern rejects
        const auto layers = static_cast<double>(settings.modelLayers);
        const auto over = std::find_if(curve.points.begin(), curve.points.end(),
                                       [&](const KvCachePoint& point) { return point.layerBytes * layers > budgetBytes; });
        if (over != curve.points.end()) curve.runsOutAt = over->n;
    }
    return curve;
}

std::optional<std::int64_t> contextLimit(const LabSettings& settings, const VariantChoice& choice, double budgetBytes) {
    const VariantInfo& variant = requireVariant(choice.variant);
    const auto over = [&](std::int64_t n) {
        try {
            return modelBytes(settings, variant, choice, n) > budgetBytes;
        } catch (const InputError&) {
            return false;
        }
    };
    std::int64_t high = 1;
    while (high <= kMaxContext && !over(high)) high *= 2;
    if (high > kMaxContext) return std::nullopt;
    std::int64_t low = high / 2; // not over (or 0)
    while (high - low > 1) {
        const std::int64_t middle = low + (high - low) / 2;
        (over(middle) ? high : low) = middle;
    }
    return high;
}

std::vector<std::int64_t> decodeTimingSizes(std::int64_t maxN) {
    std::vector<std::int64_t> sizes;
    for (std::int64_t n = 256; n <= std::max<std::int64_t>(256, maxN); n *= 2) sizes.push_back(n);
    return sizes;
}

std::optional<DecodeTiming> timeDecodeAt(const LabSettings& settings, const InferenceChoice& choice, int series, std::int64_t n,
                                         int threads, const CancelCheck& cancelled) {
    lowerWorkerPriority();
    DecodeTiming timing;
    timing.series = series;
    timing.n = n;
    try {
        const VariantInfo& variant = requireVariant(choice.choice.variant);
        const ProblemShape shape = decodeShape(settings, variant, n);
        TimingRequest request = requestFor(choice, shape, threads, cancelled);
        request.kvDtype = settingsKvDtype(settings);
        const TimingResult result = timeDecodeStep(request);
        if (result.cancelled) return std::nullopt;
        timing.medianSeconds = result.medianSeconds;
        timing.macs = result.attentionMacs;
        timing.gflops = result.gflops;
        timing.cpuShare = result.cpuShare;
        timing.kvReadBytes = decodeCost(variant, shape, prepareParams(variant, shape, choice.choice.params), request.kvDtype).kvReadBytes;
    } catch (const InputError& error) {
        timing.error = error.what();
    }
    return timing;
}

double fittedReadRate(const std::vector<DecodeTiming>& points) {
    std::vector<double> bytes, seconds;
    const auto cached = static_cast<double>(lastLevelCacheBytes());
    for (const DecodeTiming& point : points)
        if (point.valid() && !point.starved() && point.kvReadBytes > cached) {
            bytes.push_back(point.kvReadBytes);
            seconds.push_back(point.medianSeconds);
        }
    return fittedMacRate(bytes, seconds);
}

std::vector<std::int64_t> prefillChunkSizes(std::int64_t n) {
    std::vector<std::int64_t> sizes;
    for (std::int64_t c = 64; c < n; c *= 2) sizes.push_back(c);
    sizes.push_back(std::max<std::int64_t>(1, n));
    return sizes;
}

std::optional<PrefillTiming> timeChunkedPrefill(const LabSettings& settings, const InferenceChoice& choice, int series, std::int64_t chunk,
                                                int threads, const CancelCheck& cancelled) {
    lowerWorkerPriority();
    PrefillTiming timing;
    timing.series = series;
    timing.n = settings.n;
    timing.chunk = chunk;
    try {
        const VariantInfo& variant = requireVariant(choice.choice.variant);
        if (!variant.queryRows)
            throw InputError(variant.id + " runs whole sequences only: it has no chunk of queries over a cache");
        double lowest = 1.0;
        for (std::int64_t begin = 0; begin < settings.n; begin += chunk) {
            const std::int64_t end = std::min(settings.n, begin + chunk);
            ProblemShape shape = problemShape(settings, variant);
            shape.setCausalContext(end);
            shape.queries = begin == 0 ? 0 : end - begin;
            TimingRequest request = requestFor(choice, shape, threads, cancelled);
            request.minRepeats = 1;
            request.budgetSeconds = 0;
            const TimingResult result = timeVariant(request);
            if (result.cancelled) return std::nullopt;
            timing.seconds += result.medianSeconds;
            if (!std::isnan(result.cpuShare)) lowest = std::min(lowest, result.cpuShare);
        }
        timing.cpuShare = lowest;
    } catch (const InputError& error) {
        timing.error = error.what();
        timing.seconds = 0;
    }
    return timing;
}

std::optional<RooflineMeasurement> measureRoofline(const LabSettings& settings, const InferenceChoice& choice, bool decode,
                                                   const PeakResult& peak, int threads, const CancelCheck& cancelled) {
    lowerWorkerPriority();
    RooflineMeasurement point;
    point.label = choice.label;
    point.decode = decode;
    try {
        const VariantInfo& variant = requireVariant(choice.choice.variant);
        const ProblemShape shape = decode ? decodeShape(settings, variant, settings.n) : problemShape(settings, variant);
        const ParamSet params = prepareParams(variant, shape, choice.choice.params);
        const KvDtype dtype = settingsKvDtype(settings);
        const LayerCost cost = decode ? decodeLayerCost(variant, shape, params, dtype) : layerCost(variant, shape, params);
        point.bytesMin = cost.bytesMin;
        TimingRequest request = requestFor(choice, shape, threads, cancelled);
        request.kvDtype = dtype;
        const TimingResult result = decode ? timeDecodeStep(request) : timeVariant(request);
        if (result.cancelled) return std::nullopt;
        point.macs = result.attentionMacs;
        point.medianSeconds = result.medianSeconds;
        point.gflops = result.gflops;
        point.roof = rooflinePoint(point.macs, point.bytesMin, point.gflops, peak);
    } catch (const InputError& error) {
        point.error = error.what();
    }
    return point;
}

PeakResult sessionMachinePeak(int threads) {
    static std::mutex mutex;
    static std::optional<PeakResult> cached;
    const std::lock_guard lock(mutex);
    if (!cached || cached->threads != threads) cached = measurePeak(threads, 1.0, 1024);
    return *cached;
}

} // namespace attnlab
