#include "core/measure/timing.h"

#include "core/cost/cost_model.h"
#include "core/cost/job_limits.h"
#include "core/jobs/memory_budget.h"
#include "core/kernels/gemm.h"
#include "core/measure/machine_peak.h"
#include "core/measure/thread_cpu_clock.h"
#include "core/random/input_generator.h"
#include "core/registry.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#if defined(__GLIBC__)
#include <malloc.h>
#endif

namespace attnlab {

namespace {

// A field of /proc/self/status in bytes (VmHWM: peak resident set, VmRSS: current).
double statusBytes(const std::string& field) {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == field) {
            double kib = 0;
            status >> kib;
            return kib * 1024.0;
        }
        status.ignore(1 << 20, '\n');
    }
    return 0;
}

// Starts a new peak-resident-memory window (Linux: writing 5 to clear_refs resets VmHWM to VmRSS).
void resetPeakResident() { std::ofstream("/proc/self/clear_refs") << "5"; }

// A row-major matrix of generated values in [−0.5, 0.5).
std::vector<float> filledMatrix(std::int64_t rows, std::int64_t cols, std::uint32_t seed) {
    std::vector<float> values(static_cast<std::size_t>(rows * cols));
    std::uint32_t state = seed * 2654435761u + 1u;
    for (float& x : values) {
        state = state * 1664525u + 1013904223u;
        x = static_cast<float>(state >> 8) / 16777216.0f - 0.5f;
    }
    return values;
}

// Memory and multiply-adds of the products C = A·B (A m×k, B k×n) of one layer timing, each given as
// {m, k, n}: memory for the largest (one product's matrices live at a time), work for all of them.
void requireProductLimits(const std::vector<std::array<double, 3>>& products, const std::string& what) {
    double largestBytes = 0, macs = 0;
    for (const auto& [m, k, n] : products) {
        largestBytes = std::max(largestBytes, 4.0 * (m * k + k * n + m * n));
        macs += m * k * n;
    }
    requireMemory(largestBytes, what);
    requireWork(macs, what);
}

// Median seconds of C = A·B with A m×k, B k×n.
double timeProduct(std::int64_t m, std::int64_t k, std::int64_t n, int threads, double budget, const CancelCheck& cancelled,
                   bool& wasCancelled, const MeasureClock& clock, GemmEngine engine) {
    const auto a = filledMatrix(m, k, 1), b = filledMatrix(k, n, 2);
    std::vector<float> c(static_cast<std::size_t>(m * n));
    const TimingResult result = timeRepeated(
        [&] {
            multiplyRowMajor(a.data(), b.data(), c.data(), m, k, n, threads, engine);
            return true;
        },
        budget, 2, 1000, cancelled, 0, clock);
    wasCancelled = wasCancelled || result.cancelled;
    return result.medianSeconds;
}

// The attention core of a layer timing: at least two repeats within `budget`.
TimingResult timeCore(const ResolvedVariant& resolved, int threads, double budget, const CancelCheck& cancelled,
                      const MeasureClock& clock = systemMeasureClock()) {
    TimingOptions options;
    options.threads = threads;
    options.budgetSeconds = budget;
    options.minRepeats = 2;
    options.cancelled = cancelled;
    options.clock = &clock;
    return timeVariant(resolved, options);
}

} // namespace

// Two settings of glibc's allocator, for the memory figure and the repeats:
// - One heap for every thread. A thread's own heap keeps the free memory at its top resident even
//   through malloc_trim, and the next measurement on that thread (the app measures on a worker) reused
//   it without growing the resident set: its output read as a few KiB instead of megabytes. The main
//   heap's top is handed back. The limit binds only threads that allocate after it is set, hence the
//   call at the start of main.
// - Freed memory stays in the heap (no mmap for large blocks, trimming only when asked): mapping a
//   50 MB block again costs a page fault per 4 KiB page (docs/execution_plans.md, "Memory layout and
//   traffic").
void prepareAllocatorForMeasurements() {
#if defined(__GLIBC__)
    static const bool done = [] {
        mallopt(M_ARENA_MAX, 1);
        mallopt(M_MMAP_MAX, 0);
        mallopt(M_TRIM_THRESHOLD, 1 << 30);
        return true;
    }();
    (void)done;
#endif
}

TimingResult timeRepeated(const std::function<bool()>& once, double budgetSeconds, int minRepeats, int maxRepeats,
                          const CancelCheck& cancelled, int shareThreads, const MeasureClock& clock,
                          const std::function<void()>& between) {
    prepareAllocatorForMeasurements();
    TimingResult result;
#if defined(__GLIBC__)
    // Hands memory freed by earlier measurements back to the system, so that this one's outputs and
    // workspaces show up as growth instead of silently reusing it. Workspaces the kernels keep between
    // calls stay resident and are counted only by the first measurement that needs them.
    malloc_trim(0);
#endif
    resetPeakResident();
    const double residentBefore = statusBytes("VmRSS:"), fileBefore = statusBytes("RssFile:");
    if (!once()) { // warm-up
        result.cancelled = true;
        return result;
    }
    std::vector<double> seconds, shares;
    double spent = 0;
    while (static_cast<int>(seconds.size()) < maxRepeats &&
           (static_cast<int>(seconds.size()) < minRepeats || spent < budgetSeconds)) {
        if (cancelled && cancelled()) {
            result.cancelled = true;
            return result;
        }
        if (between) {
            const double before = clock.wallSeconds();
            between();
            spent += clock.wallSeconds() - before;
        }
        std::optional<TeamCpuShareClock> share;
        if (shareThreads > 0) share.emplace(shareThreads, clock);
        const double start = clock.wallSeconds();
        const bool finished = once();
        const double elapsed = clock.wallSeconds() - start;
        if (!finished) {
            result.cancelled = true;
            return result;
        }
        if (share) shares.push_back(share->share());
        seconds.push_back(elapsed);
        spent += elapsed;
    }
    if (!shares.empty()) {
        std::sort(shares.begin(), shares.end());
        result.cpuShare = shares[shares.size() / 2];
    }
    std::sort(seconds.begin(), seconds.end());
    result.repeats = static_cast<int>(seconds.size());
    result.minSeconds = seconds.front();
    result.maxSeconds = seconds.back();
    result.medianSeconds = seconds[seconds.size() / 2];
    // Pages of code and files mapped in meanwhile (the first run of a kernel faults in its code, a few
    // MB) are not the run's memory; they stay mapped, so their growth is what to take away.
    const double fileGrowth = statusBytes("RssFile:") - fileBefore;
    result.peakExtraBytes = std::max(0.0, statusBytes("VmHWM:") - residentBefore - fileGrowth);
    return result;
}

TimingResult timeVariant(const ResolvedVariant& resolved, const TimingOptions& options) {
    const VariantInfo& variant = *resolved.variant;
    const ProblemShape& shape = resolved.shape;
    requireRunLimits(variant, shape, resolved.params, false);
    // Queries that are not the whole sequence: Q of those rows only (bench --queries 1 at n = 2^20 would
    // otherwise draw and page in n rows of Q per head to use one).
    const auto data = generateInputs(GeneratedKind::Gaussian, shape.heads, shape.n, shape.d, shape.dv, 1, shape.keyValueHeads(),
                                     shape.queries);
    const AttentionInputs inputs{&data.q, &data.k, &data.v};
    RunOptions run;
    run.causal = shape.causal;
    run.grid = shape.grid;
    run.params = resolved.params;
    run.threads = options.threads;
    run.useReference = options.useReference;
    run.cancelled = options.cancelled;

    RunResult previous; // each run overwrites the previous run's output instead of allocating its own
    run.recycle = &previous;
    const auto once = [&] {
        previous = variant.run(inputs, run);
        return !previous.cancelled;
    };
    TimingResult result = timeRepeated(once, options.budgetSeconds, options.minRepeats, options.maxRepeats,
                                       options.cancelled, options.threads,
                                       options.clock ? *options.clock : systemMeasureClock());
    result.attentionMacs = layerCost(variant, shape, resolved.params).attentionMacs;
    if (!result.cancelled) result.gflops = 2.0 * result.attentionMacs / result.medianSeconds / 1e9;
    return result;
}

TimingResult timeVariant(const TimingRequest& request) {
    return timeVariant(resolveVariant(requireVariant(request.variant), request.shape, request.overrides), request);
}

PeakResult measurePeak(int threads, double budgetSeconds, std::int64_t sgemmSize, std::int64_t triadArrayBytes) {
    PeakResult peak;
    peak.threads = threads;
    peak.fmaGflops = measureFmaPeakGflops(threads, 0.4 * budgetSeconds);
    peak.fmaKernel = fmaKernelName();
    peak.sgemmSize = sgemmSize;
    peak.sgemmGflops = measureSgemmGflops(threads, sgemmSize, 0.3 * budgetSeconds);
    peak.gemmEngine = gemmEngineName();
    const BandwidthResult bandwidth = measureTriadBandwidth(threads, 0.3 * budgetSeconds, triadArrayBytes);
    peak.bandwidthGBs = bandwidth.gbPerSecond;
    peak.triadArrayBytes = bandwidth.arrayBytes;
    peak.lastLevelCacheBytes = bandwidth.lastLevelCacheBytes;
    return peak;
}

RooflinePoint rooflinePoint(double attentionMacs, double bytesMin, double measuredGflops, const PeakResult& peak) {
    RooflinePoint point;
    point.intensity = bytesMin > 0 ? 2.0 * attentionMacs / bytesMin : 0.0;
    const double memoryRoof = point.intensity * peak.bandwidthGBs;
    point.memoryBound = memoryRoof < peak.fmaGflops;
    point.roofGflops = std::min(peak.fmaGflops, memoryRoof);
    point.fractionOfRoof = point.roofGflops > 0 ? measuredGflops / point.roofGflops : 0.0;
    return point;
}

double fittedMacRate(const std::vector<double>& macs, const std::vector<double>& seconds) {
    double logRates = 0;
    for (std::size_t k = 0; k < macs.size(); ++k) logRates += std::log(macs[k] / seconds[k]);
    return macs.empty() ? 0.0 : std::exp(logRates / static_cast<double>(macs.size()));
}

void requireLayerPartsLimits(const ResolvedVariant& resolved) {
    const ProblemShape& shape = resolved.shape;
    requireRunLimits(*resolved.variant, shape, resolved.params, false);
    const double n = static_cast<double>(shape.n), width = static_cast<double>(shape.heads) * static_cast<double>(shape.d);
    requireProductLimits({{n, width, 3 * width}, {n, width, width}, {n, width, 4 * width}, {n, 4 * width, width}},
                         "the projections and FFN of a layer of width " + std::to_string(shape.heads * shape.d) +
                             " at n=" + std::to_string(shape.n));
}

std::optional<std::vector<GemmEngineRate>> measureGemmEngines(std::int64_t width, int threads, double budgetSeconds,
                                                              const CancelCheck& cancelled, const MeasureClock& clock) {
    const std::int64_t m = kGemmProbeRows, k = width, n = 4 * width;
    requireProductLimits({{static_cast<double>(m), static_cast<double>(k), static_cast<double>(n)}},
                         "the GEMM engines' probe product of width " + std::to_string(width));
    std::vector<GemmEngineRate> rates;
    for (const GemmEngine engine : availableGemmEngines()) {
        bool wasCancelled = false;
        const double seconds = timeProduct(m, k, n, threads, budgetSeconds, cancelled, wasCancelled, clock, engine);
        if (wasCancelled) return std::nullopt;
        rates.push_back({engine, gemmEngineName(engine), seconds > 0 ? 2.0 * m * k * n / seconds / 1e9 : 0.0});
    }
    return rates;
}

LayerPartTimes timeLayerParts(const ResolvedVariant& resolved, int threads, double budgetSeconds, const CancelCheck& cancelled,
                              const MeasureClock& clock, GemmEngine engine) {
    requireLayerPartsLimits(resolved);
    const ProblemShape& shape = resolved.shape;
    LayerPartTimes times;
    const std::int64_t width = shape.heads * shape.d;
    const double budget = budgetSeconds / 4;
    times.qkvProj = timeProduct(shape.n, width, 3 * width, threads, budget, cancelled, times.cancelled, clock, engine);
    if (times.cancelled) return times;
    const TimingResult core = timeCore(resolved, threads, budget, cancelled, clock);
    times.attention = core.medianSeconds;
    times.cancelled = core.cancelled;
    if (times.cancelled) return times;
    times.outProj = timeProduct(shape.n, width, width, threads, budget, cancelled, times.cancelled, clock, engine);
    if (times.cancelled) return times;
    times.ffn = timeProduct(shape.n, width, 4 * width, threads, budget / 2, cancelled, times.cancelled, clock, engine) +
                timeProduct(shape.n, 4 * width, width, threads, budget / 2, cancelled, times.cancelled, clock, engine);
    return times;
}

void requireGauLayerLimits(std::int64_t n, std::int64_t width, bool causal) {
    const VariantInfo& relu2 = requireVariant("relu2");
    const ProblemShape shape = gauCoreShape(n, width, causal);
    requireRunLimits(relu2, shape, prepareParams(relu2, shape, {}), false);
    const double rows = static_cast<double>(n), w = static_cast<double>(width), e = 2 * w;
    requireProductLimits({{rows, w, 2 * e + kGauHeadSize}, {rows, e, w}},
                         "the projections of a GAU layer of width " + std::to_string(width) + " at n=" + std::to_string(n));
}

GauPartTimes timeGauLayer(std::int64_t n, std::int64_t width, bool causal, int threads, double budgetSeconds,
                          const CancelCheck& cancelled, GemmEngine engine) {
    requireGauLayerLimits(n, width, causal);
    GauPartTimes times;
    const std::int64_t expanded = 2 * width;
    const double budget = budgetSeconds / 3;
    // X·[W_u W_v W_z] as one product: the three share their input.
    times.projections =
        timeProduct(n, width, 2 * expanded + kGauHeadSize, threads, budget, cancelled, times.cancelled, systemMeasureClock(), engine);
    if (times.cancelled) return times;
    const TimingResult core = timeCore(resolveVariant(requireVariant("relu2"), gauCoreShape(n, width, causal), {}), threads, budget, cancelled);
    times.attention = core.medianSeconds;
    times.cancelled = core.cancelled;
    if (times.cancelled) return times;
    times.outProj = timeProduct(n, expanded, width, threads, budget, cancelled, times.cancelled, systemMeasureClock(), engine);
    return times;
}

MeasuredCrossover measuredCrossover(const std::vector<double>& ns, const std::vector<double>& ratios) {
    MeasuredCrossover crossing;
    if (ratios.empty() || ratios.back() <= 1) return crossing;
    std::size_t first = ratios.size() - 1; // first index of the final run of ratios > 1
    while (first > 0 && ratios[first - 1] > 1) --first;
    if (first == 0) {
        crossing.alwaysAbove = true;
        return crossing;
    }
    const double before = std::log(ratios[first - 1]), after = std::log(ratios[first]);
    const double t = before / (before - after);
    crossing.n = std::exp(std::log(ns[first - 1]) + t * (std::log(ns[first]) - std::log(ns[first - 1])));
    return crossing;
}

} // namespace attnlab
