// The decoding targets of `attnlab bench --targets`: a decoding step's cache read against the triad measured
// in the same run, over the keys each pattern keeps, and half-precision caches against float32.
#include "app/bench/bench_targets.h"

#include "core/cost/cost_model.h"
#include "core/registry.h"

#include <cstdio>

namespace attnlab {

namespace {

// LLaMA-2-70B's attention shape at a long context: a 1 GiB float32 cache per layer.
constexpr std::int64_t kDecodeLength = 131072;
constexpr int kDecodeHeads = 32, kDecodeKvHeads = 8;
constexpr std::int64_t kDecodeHeadSize = 128;
constexpr double kBandwidthGoal = 0.85, kHalfTimeGoal = 0.6;

TimingRequest decodeRequest(const std::string& variant, const ParamOverrides& overrides,
                            const BenchSettings& settings, double budget) {
    TimingRequest request;
    request.variant = variant;
    request.shape.heads = kDecodeHeads;
    request.shape.kvHeads = kDecodeKvHeads;
    request.shape.n = kDecodeLength;
    request.shape.d = request.shape.dv = kDecodeHeadSize;
    request.shape.causal = true;
    request.overrides = overrides;
    request.threads = settings.threads;
    request.budgetSeconds = budget;
    request.minRepeats = 5;
    return request;
}

double kvReadBytes(const TimingRequest& request, KvDtype dtype) {
    const VariantInfo& variant = requireVariant(request.variant);
    return decodeLayerCost(variant, request.shape, prepareParams(variant, request.shape, request.overrides),
                           dtype)
        .kvReadBytes;
}

TargetRow bandwidthRow(const std::string& name, const TimingRequest& request, const TimingResult& timing,
                       const PeakResult& peak) {
    const double bytes = kvReadBytes(request, request.kvDtype), rate = bytes / timing.medianSeconds / 1e9;
    char detail[200];
    std::snprintf(detail, sizeof detail, "%.1f GB/s (%.0f MiB in %.2f ms, CPU share %.2f) vs triad %.1f GB/s",
                  rate, bytes / (1024.0 * 1024.0), 1e3 * timing.medianSeconds, timing.cpuShare,
                  peak.bandwidthGBs);
    return {name, rate / peak.bandwidthGBs, ">= 0.85", rate >= kBandwidthGoal * peak.bandwidthGBs, detail};
}

TargetRow halfRow(const std::string& name, const TimingResult& half, const TimingResult& full) {
    char detail[160];
    std::snprintf(detail, sizeof detail, "%.2f ms vs %.2f ms (alternated, best round of 3)",
                  1e3 * half.medianSeconds, 1e3 * full.medianSeconds);
    const double ratio = half.medianSeconds / full.medianSeconds;
    return {name, ratio, "<= 0.60", ratio <= kHalfTimeGoal, detail};
}

} // namespace

std::size_t decodeTargetSteps() {
    return 3;
}

std::vector<TargetRow> decodeTargets(const BenchSettings& settings, const PeakResult& peak,
                                     Progress& progress) {
    std::vector<TargetRow> rows;
    progress.step("decoding steps n=131072: f32, f16, bf16 caches, alternated");
    const TimingRequest full = decodeRequest("full", {}, settings, pointBudget(settings, 3.0));
    const std::vector<TimingResult> precisions =
        timeDecodePrecisions(full, {KvDtype::F32, KvDtype::F16, KvDtype::BF16}, 3);
    rows.push_back(bandwidthRow("full decode n=131072 h=32 h_kv=8 d=128: cache read / triad", full,
                                precisions[0], peak));
    rows.push_back(halfRow("full decode n=131072: f16 cache step time / f32", precisions[1], precisions[0]));
    rows.push_back(halfRow("full decode n=131072: bf16 cache step time / f32", precisions[2], precisions[0]));
    const ParamOverrides window = {{"window", "8190"}}, sinks = {{"window", "8190"}, {"globals", "0,1,2,3"}};
    progress.step("decoding step n=131072, window 4096");
    const TimingRequest windowed = decodeRequest("longformer", window, settings, pointBudget(settings, 1.0));
    rows.push_back(bandwidthRow("window 4096 decode n=131072: read of its keys / triad", windowed,
                                timeDecodeStep(windowed), peak));
    progress.step("decoding step n=131072, window 4096 + 4 sinks");
    const TimingRequest sunk = decodeRequest("longformer", sinks, settings, pointBudget(settings, 1.0));
    rows.push_back(bandwidthRow("window 4096 + 4 sinks decode n=131072: read of its keys / triad", sunk,
                                timeDecodeStep(sunk), peak));
    return rows;
}

} // namespace attnlab
