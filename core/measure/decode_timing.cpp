// Timing decoding steps (timeDecodeStep, timeDecodePrecisions in core/measure/timing.h).
#include "core/measure/timing.h"

#include "core/cost/job_limits.h"
#include "core/decode/decode.h"
#include "core/jobs/memory_budget.h"
#include "core/jobs/parallel_tasks.h"
#include "core/measure/machine_peak.h"
#include "core/random/input_generator.h"
#include "core/registry.h"

#include <algorithm>
#include <memory>

namespace attnlab {

namespace {

// Reads a buffer of twice the last-level cache on the step's threads, so that what the step read last time
// has left every cache level: at least 8 MiB, at most 128 MiB (a virtual machine may report the host's whole
// cache, 320 MiB here for a 32 MiB share, and each repetition would read gigabytes). Kept for one timing only.
class CacheFlush {
  public:
    static double bytesFor() {
        return static_cast<double>(std::clamp<std::int64_t>(2 * lastLevelCacheBytes(), std::int64_t{8} << 20, std::int64_t{128} << 20));
    }

    explicit CacheFlush(int threads) : m_threads(threads) {
        m_lines.assign(static_cast<std::size_t>(bytesFor()) / sizeof(Line), Line{});
    }

    void operator()() {
        const auto count = static_cast<std::int64_t>(m_lines.size());
        const std::int64_t share = (count + m_threads - 1) / m_threads;
        runTasks(m_threads, m_threads, {}, [this, count, share](std::int64_t t) {
            std::uint64_t sum = 0;
            for (std::int64_t i = t * share; i < std::min(count, (t + 1) * share); ++i)
                sum += m_lines[static_cast<std::size_t>(i)].word[0];
            m_sink[t % 2] = sum;
        });
    }

  private:
    struct alignas(64) Line {
        std::uint64_t word[8];
    };
    int m_threads;
    std::vector<Line, CacheLineAllocator<Line>> m_lines;
    volatile std::uint64_t m_sink[2] = {};
};

} // namespace

std::vector<TimingResult> timeDecodePrecisions(const TimingRequest& request,
                                               const std::vector<KvDtype>& dtypes, int rounds,
                                               const std::function<void()>& beforeRound) {
    const VariantInfo& variant = requireVariant(request.variant);
    requireDecoding(variant);
    ProblemShape shape = request.shape;
    shape.causal = true;
    shape.queries = 0;
    const ParamSet params = prepareParams(variant, shape, request.overrides);
    // The context once and every precision's own cache, all alive at once, and the flush buffer.
    double bytes = CacheFlush::bytesFor();
    for (std::size_t k = 0; k < dtypes.size(); ++k) {
        requireDecodeLimits(variant, shape, params, dtypes[k]);
        const double contextBytes = 4.0 * shape.keyValueHeads() * static_cast<double>(shape.n) *
                                    static_cast<double>(shape.d + shape.dv);
        bytes += decodeCache(variant, shape, params, dtypes[k]).kvCacheBytes + (k == 0 ? contextBytes : 0.0);
    }
    requireMemory(bytes, "the decoding steps of " + variant.id + " at n=" + std::to_string(shape.n) +
                             " with their caches");
    const std::int64_t queryRows = decodeReadsEveryQuery(variant, params) ? shape.n : 1;
    const auto data = generateInputs(GeneratedKind::Gaussian, shape.heads, shape.n, shape.d, shape.dv, 1,
                                     shape.keyValueHeads(), queryRows);
    const AttentionInputs context{&data.q, &data.k, &data.v};
    std::vector<std::unique_ptr<DecodeStep>> steps;
    for (const KvDtype dtype : dtypes) {
        DecodeOptions options;
        options.threads = request.threads;
        options.kvDtype = dtype;
        options.chunkKeys = request.chunkKeys;
        options.grid = shape.grid;
        steps.push_back(prepareDecodeStep(variant, context, params, options));
    }
    CacheFlush flush(request.threads);
    std::vector<float> out(static_cast<std::size_t>(shape.heads * shape.dv));
    std::vector<TimingResult> best(dtypes.size());
    const MeasureClock& clock = request.clock ? *request.clock : systemMeasureClock();
    for (int round = 0; round < std::max(1, rounds); ++round) {
        if (beforeRound) beforeRound();
        for (std::size_t k = 0; k < steps.size(); ++k) {
            DecodeStep& step = *steps[k];
            const TimingResult result = timeRepeated(
                [&step, &out] {
                    step.run(out.data());
                    return true;
                },
                request.budgetSeconds / std::max(1, rounds), request.minRepeats, request.maxRepeats,
                request.cancelled, request.threads, clock, [&flush] { flush(); });
            if (result.cancelled) {
                for (TimingResult& each : best)
                    each.cancelled = true;
                return best;
            }
            if (best[k].repeats == 0 || result.medianSeconds < best[k].medianSeconds) best[k] = result;
        }
    }
    for (std::size_t k = 0; k < dtypes.size(); ++k) {
        for (const auto& [name, macs] : decodeCost(variant, shape, params, dtypes[k]).core.terms)
            best[k].attentionMacs += macs;
        best[k].gflops = 2.0 * best[k].attentionMacs / best[k].medianSeconds / 1e9;
    }
    return best;
}

TimingResult timeDecodeStep(const TimingRequest& request) {
    return timeDecodePrecisions(request, {request.kvDtype}, 1).front();
}

} // namespace attnlab
