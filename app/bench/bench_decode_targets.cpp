// The decoding targets of `attnlab bench --targets`: a decoding step's cache read against the triad measured
// in the same run, over the keys each pattern keeps, and half-precision caches against float32.
#include "app/bench/bench_targets.h"

#include "core/cost/cost_model.h"
#include "core/measure/machine_peak.h"
#include "core/registry.h"

#include <algorithm>
#include <cstdio>
#include <functional>

namespace attnlab {

namespace {

// LLaMA-2-70B's attention shape at a long context: a 1 GiB float32 cache per layer.
constexpr std::int64_t kDecodeLength = 131072;
constexpr int kDecodeHeads = 32, kDecodeKvHeads = 8;
constexpr std::int64_t kDecodeHeadSize = 128;
constexpr double kBandwidthGoal = 0.85, kHalfTimeGoal = 0.6;
constexpr int kRounds = 3;

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

// The triad measured again before each round of steps, its best kept: a shared host's bandwidth drifts over
// the minutes a target run takes, so the step is compared with the machine as it was meanwhile.
class AlternatedTriad {
  public:
    AlternatedTriad(const BenchSettings& settings, const PeakResult& peak)
        : m_threads(settings.threads), m_arrayBytes(peak.triadArrayBytes) {}

    std::function<void()> hook() {
        return [this] {
            m_best = std::max(m_best, measureTriadBandwidth(m_threads, kTriadSeconds, m_arrayBytes).gbPerSecond);
        };
    }
    double best() const { return m_best; }

  private:
    static constexpr double kTriadSeconds = 0.3;
    int m_threads;
    std::int64_t m_arrayBytes;
    double m_best = 0;
};

TargetRow bandwidthRow(const std::string& name, const TimingRequest& request, const TimingResult& timing,
                       double triadGBs) {
    const double bytes = kvReadBytes(request, request.kvDtype), rate = bytes / timing.medianSeconds / 1e9;
    char detail[220];
    std::snprintf(detail, sizeof detail,
                  "%.1f GB/s (%.0f MiB in %.2f ms, CPU share %.2f) vs triad %.1f GB/s (best of %d rounds, "
                  "alternated)",
                  rate, bytes / (1024.0 * 1024.0), 1e3 * timing.medianSeconds, timing.cpuShare, triadGBs,
                  kRounds);
    return {name, rate / triadGBs, ">= 0.85", rate >= kBandwidthGoal * triadGBs, detail};
}

// One pattern's step, alternated with the triad.
TargetRow keptKeysRow(const std::string& name, const TimingRequest& request, const BenchSettings& settings,
                      const PeakResult& peak) {
    AlternatedTriad triad(settings, peak);
    const TimingResult step = timeDecodePrecisions(request, {request.kvDtype}, kRounds, triad.hook()).front();
    return bandwidthRow(name, request, step, triad.best());
}

TargetRow halfRow(const std::string& name, const TimingResult& half, const TimingResult& full) {
    char detail[160];
    std::snprintf(detail, sizeof detail, "%.2f ms vs %.2f ms (alternated, best round of %d)",
                  1e3 * half.medianSeconds, 1e3 * full.medianSeconds, kRounds);
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
    AlternatedTriad triad(settings, peak);
    const std::vector<TimingResult> precisions =
        timeDecodePrecisions(full, {KvDtype::F32, KvDtype::F16, KvDtype::BF16}, kRounds, triad.hook());
    rows.push_back(bandwidthRow("full decode n=131072 h=32 h_kv=8 d=128: cache read / triad", full,
                                precisions[0], triad.best()));
    rows.push_back(halfRow("full decode n=131072: f16 cache step time / f32", precisions[1], precisions[0]));
    rows.push_back(halfRow("full decode n=131072: bf16 cache step time / f32", precisions[2], precisions[0]));
    const ParamOverrides window = {{"window", "8190"}}, sinks = {{"window", "8190"}, {"globals", "0,1,2,3"}};
    progress.step("decoding step n=131072, window 4096");
    const TimingRequest windowed = decodeRequest("longformer", window, settings, pointBudget(settings, 1.0));
    rows.push_back(keptKeysRow("window 4096 decode n=131072: read of its keys / triad", windowed, settings, peak));
    progress.step("decoding step n=131072, window 4096 + 4 sinks");
    const TimingRequest sunk = decodeRequest("longformer", sinks, settings, pointBudget(settings, 1.0));
    rows.push_back(keptKeysRow("window 4096 + 4 sinks decode n=131072: read of its keys / triad", sunk, settings,
                               peak));
    return rows;
}

} // namespace attnlab
