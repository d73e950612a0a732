#include "core/analysis/inference.h"

#include "core/analysis/timing_sweep.h"
#include "core/cost/cost_model.h"
#include "core/decode/decode.h"
#include "core/errors.h"
#include "core/jobs/memory_budget.h"
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
    shape.setLength(n);
    shape.causal = true;
    return shape;
}

double modelBytes(const LabSettings& settings, const VariantInfo& variant, const VariantChoice& choice, std::int64_t n) {
    const ProblemShape shape = decodeShape(settings, variant, n);
    const ParamSet params = prepareParams(variant, shape, choice.params);
    return static_cast<double>(settings.modelLayers) * decodeCache(variant, shape, params).kvCacheBytes;
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
    for (const std::int64_t n : kvCacheSizes(maxLog2)) {
        try {
            const ProblemShape shape = decodeShape(settings, variant, n);
            const DecodeCost cache = decodeCache(variant, shape, prepareParams(variant, shape, choice.choice.params));
            curve.points.push_back({n, cache.retainedKeys, cache.kvCacheBytes});
        } catch (const InputError&) {
            // these parameters do not fit this n (e.g. a global index beyond it): no point
        }
    }
    curve.runsOutAt = contextLimit(settings, choice.choice, budgetBytes);
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
        const ProblemShape shape = decodeShape(settings, requireVariant(choice.choice.variant), n);
        requireMemory(4.0 * static_cast<double>(n) * static_cast<double>(shape.heads * shape.d + 2 * shape.keyValueHeads() * shape.d),
                      "the decoding step's context");
        const TimingResult result = timeDecodeStep(requestFor(choice, shape, threads, cancelled));
        if (result.cancelled) return std::nullopt;
        timing.medianSeconds = result.medianSeconds;
        timing.macs = result.attentionMacs;
        timing.gflops = result.gflops;
    } catch (const InputError& error) {
        timing.error = error.what();
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
        const LayerCost cost = decode ? decodeLayerCost(variant, shape, params) : layerCost(variant, shape, params);
        point.bytesMin = cost.bytesMin;
        const TimingRequest request = requestFor(choice, shape, threads, cancelled);
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
