#include "core/analysis/timing_sweep.h"

#include "core/analysis/block_cost.h"
#include "core/analysis/scaling.h"
#include "core/cost/cost_model.h"
#include "core/errors.h"
#include "core/measure/thread_cpu_clock.h"
#include "core/registry.h"

#include <algorithm>
#include <iterator>
#include <set>

namespace attnlab {

namespace {

// The choice resolved once at n: the variant, the settings' shape at n under its causal rule (on the grid
// scaled to n cells, sweepShape), and its parameters for that shape. Everything the point measures and models reads this value.
ResolvedVariant resolveAt(const VariantChoice& choice, const LabSettings& settings, std::int64_t n) {
    const VariantInfo& variant = requireVariant(choice.variant);
    return resolveVariant(variant, sweepShape(choiceSettings(settings, choice), variant, n), choice.params);
}

} // namespace

std::vector<std::int64_t> timingSweepSizes(std::int64_t maxN) {
    std::vector<std::int64_t> sizes;
    for (std::int64_t n = 64; n <= std::max<std::int64_t>(64, maxN); n *= 2) sizes.push_back(n);
    return sizes;
}

std::vector<std::int64_t> timingSweepSizes(const LabSettings& settings) {
    const std::int64_t top = std::max<std::int64_t>(64, settings.timingMaxN);
    if (settings.grid.empty()) return timingSweepSizes(top);
    try {
        return scaledGridSizes(*makeTokenGrid(settings.grid, settings.order), 64, top);
    } catch (const InputError&) {
        return timingSweepSizes(top); // the settings' own check names the grid's problem
    }
}

std::vector<VariantChoice> measuredChoices(const LabSettings& settings) {
    std::vector<VariantChoice> choices = chosenVariants(settings);
    if (settings.timingMode == TimingMode::Layer) choices.resize(1);
    return choices;
}

std::string choiceLabel(const VariantChoice& choice) {
    std::string params;
    for (const auto& [key, value] : choice.params) params += (params.empty() ? "" : ", ") + key + "=" + value;
    if (!choice.order.empty()) params += (params.empty() ? "" : ", ") + std::string("order=") + choice.order;
    return choice.variant + (params.empty() ? std::string() : " (" + params + ")");
}

std::vector<TimingPoint> measureVariantAt(const VariantChoice& choice, int index, const LabSettings& settings, std::int64_t n,
                                          int threads, const CancelCheck& cancelled, const MeasureClock& clock) {
    lowerWorkerPriority();
    TimingPoint point;
    point.series = choiceLabel(choice);
    point.seriesIndex = index;
    point.shape.n = n;
    try {
        const ResolvedVariant resolved = resolveAt(choice, settings, n);
        point.shape = resolved.shape;
        point.modelExtraBytes = resolved.variant->cost(point.shape, resolved.params).workspaceBytes +
                                4.0 * point.shape.heads * static_cast<double>(n) * static_cast<double>(point.shape.dv);
        TimingOptions options;
        options.threads = threads;
        options.budgetSeconds = kTimingPointBudgetSeconds;
        options.minRepeats = kTimingMinRepeats;
        options.maxRepeats = kTimingMaxRepeats;
        options.cancelled = cancelled;
        options.clock = &clock;
        const TimingResult result = timeVariant(resolved, options);
        if (result.cancelled) return {};
        point.cpuShare = result.cpuShare;
        point.medianSeconds = result.medianSeconds;
        point.minSeconds = result.minSeconds;
        point.maxSeconds = result.maxSeconds;
        point.repeats = result.repeats;
        point.macs = result.attentionMacs;
        point.gflops = result.gflops;
        point.peakExtraBytes = result.peakExtraBytes;
    } catch (const InputError& error) {
        point.error = error.what();
    }
    return {point};
}

std::vector<TimingPoint> measureLayerAt(const VariantChoice& choice, const LabSettings& settings, std::int64_t n, int threads,
                                        const CancelCheck& cancelled, const MeasureClock& clock, GemmEngine engine) {
    lowerWorkerPriority();
    std::vector<TimingPoint> points(kLayerParts.size());
    for (std::size_t k = 0; k < kLayerParts.size(); ++k) {
        points[k].series = kLayerParts[k].id;
        points[k].seriesIndex = static_cast<int>(k);
        points[k].shape.n = n;
    }
    try {
        const ResolvedVariant resolved = resolveAt(choice, settings, n);
        const ProblemShape& shape = resolved.shape;
        const LayerCost cost = layerCost(*resolved.variant, shape, resolved.params);
        const TeamCpuShareClock share(threads, clock);
        const LayerPartTimes times = timeLayerParts(resolved, threads, kTimingLayerBudgetSeconds, cancelled, clock, engine);
        if (times.cancelled) return {};
        const double cpuShare = share.share();
        const std::array<double, 4> seconds = {times.qkvProj, times.attention, times.outProj, times.ffn};
        const std::array<double, 4> macs = {qkvProjectionMacs(shape), cost.attentionMacs, outputProjectionMacs(shape), ffnMacs(shape)};
        for (std::size_t k = 0; k < points.size(); ++k) {
            points[k].shape = shape;
            points[k].medianSeconds = seconds[k];
            points[k].macs = macs[k];
            points[k].gflops = seconds[k] > 0 ? 2.0 * macs[k] / seconds[k] / 1e9 : 0.0;
            points[k].cpuShare = cpuShare;
        }
    } catch (const InputError& error) {
        for (TimingPoint& point : points) point.error = error.what();
    }
    return points;
}

double sweepBlockMacs(const VariantChoice& choice, const LabSettings& settings, std::int64_t n, std::int64_t blockSize) {
    try {
        const ResolvedVariant resolved = resolveAt(choice, settings, n);
        const auto cost = blockKernelCost(*resolved.variant, resolved.shape, resolved.params, blockSize);
        return cost ? cost->blockMacs : std::nan("");
    } catch (const InputError&) {
        return std::nan("");
    }
}

std::vector<const TimingPoint*> seriesPoints(const std::vector<TimingPoint>& points, int seriesIndex) {
    std::vector<const TimingPoint*> found;
    for (const TimingPoint& point : points)
        if (point.seriesIndex == seriesIndex) found.push_back(&point);
    std::sort(found.begin(), found.end(), [](const TimingPoint* a, const TimingPoint* b) { return a->shape.n < b->shape.n; });
    return found;
}

std::optional<SeriesSlopes> seriesSlopes(const std::vector<TimingPoint>& points, int seriesIndex) {
    std::vector<double> ns, seconds, macs, blockMacs;
    for (const TimingPoint* point : seriesPoints(points, seriesIndex))
        if (point->valid() && !point->starved() && point->shape.n >= kSlopeMinN && point->macs > 0) {
            ns.push_back(static_cast<double>(point->shape.n));
            seconds.push_back(point->medianSeconds);
            macs.push_back(point->macs);
            blockMacs.push_back(point->blockMacs);
        }
    if (static_cast<int>(ns.size()) < kSlopeMinPoints) return std::nullopt;
    const auto measured = logLogSlope(ns, seconds), model = logLogSlope(ns, macs);
    if (!measured || !model) return std::nullopt;
    SeriesSlopes slopes{*measured, *model, static_cast<int>(ns.size())};
    const bool allBlocks = std::all_of(blockMacs.begin(), blockMacs.end(), [](double value) { return value > 0; });
    if (const auto block = allBlocks ? logLogSlope(ns, blockMacs) : std::nullopt) slopes.blockModel = *block;
    return slopes;
}

double predictedSeconds(const std::vector<TimingPoint>& points, const TimingPoint& point, CostModel model) {
    const auto macsOf = [model](const TimingPoint& p) { return model == CostModel::Exact ? p.macs : p.blockMacs; };
    if (!point.valid() || !(macsOf(point) > 0)) return std::nan("");
    const auto series = seriesPoints(points, point.seriesIndex);
    std::vector<double> macs, seconds;
    for (const bool trustedOnly : {true, false}) {
        for (const TimingPoint* candidate : series)
            if (candidate->valid() && macsOf(*candidate) > 0 &&
                (!trustedOnly || (!candidate->starved() && candidate->shape.n >= kSlopeMinN))) {
                macs.push_back(macsOf(*candidate));
                seconds.push_back(candidate->medianSeconds);
            }
        if (!macs.empty()) break;
    }
    return macsOf(point) / fittedMacRate(macs, seconds);
}

std::vector<OverheadMiss> overheadMisses(const std::vector<TimingPoint>& points) {
    const auto trusted = [](const TimingPoint& point) { return point.valid() && !point.starved(); };
    std::map<int, const TimingPoint*> largest; // per series, its trusted point at the largest n
    for (const TimingPoint& point : points)
        if (trusted(point) && (!largest.count(point.seriesIndex) || largest[point.seriesIndex]->shape.n < point.shape.n))
            largest[point.seriesIndex] = &point;
    std::vector<OverheadMiss> misses;
    for (const TimingPoint& point : points) {
        if (!trusted(point)) continue;
        const TimingPoint& last = *largest[point.seriesIndex];
        const double ratio = point.medianSeconds / predictedSeconds(points, point);
        const double lastRatio = last.medianSeconds / predictedSeconds(points, last);
        if (ratio >= kOverheadMiss && ratio >= kOverheadMiss * lastRatio) misses.push_back({point.seriesIndex, point.shape.n, ratio});
    }
    return misses;
}

std::map<std::int64_t, std::array<double, 4>> completeLayers(const std::vector<TimingPoint>& points) {
    std::map<std::int64_t, std::array<double, 4>> parts;
    std::map<std::int64_t, int> counts;
    for (const TimingPoint& point : points) {
        if (!point.valid()) continue;
        parts[point.shape.n][static_cast<std::size_t>(point.seriesIndex)] = point.medianSeconds;
        ++counts[point.shape.n];
    }
    std::erase_if(parts, [&](const auto& entry) { return counts[entry.first] != static_cast<int>(kLayerParts.size()); });
    return parts;
}

MeasuredCrossover layerCrossover(const std::vector<TimingPoint>& points) {
    // A layer with a CPU-starved part says nothing about where the parts cross: left out whole.
    std::set<std::int64_t> starved;
    for (const TimingPoint& point : points)
        if (point.starved()) starved.insert(point.shape.n);
    std::vector<TimingPoint> trusted;
    std::copy_if(points.begin(), points.end(), std::back_inserter(trusted),
                 [&](const TimingPoint& point) { return starved.count(point.shape.n) == 0; });
    std::vector<double> ns, ratios; // self-attention / FFN per n
    for (const auto& [n, seconds] : completeLayers(trusted)) {
        ns.push_back(static_cast<double>(n));
        ratios.push_back((seconds[0] + seconds[1] + seconds[2]) / seconds[3]);
    }
    return measuredCrossover(ns, ratios);
}

} // namespace attnlab
