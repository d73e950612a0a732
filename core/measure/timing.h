#pragma once

#include "core/decode/kv_cache.h"
#include "core/measure/gemm_choice.h"
#include "core/measure/thread_cpu_clock.h"
#include "core/registry.h"

#include <cmath>
#include <cstdint>
#include <functional>
#include <string>
#include <optional>
#include <vector>

namespace attnlab {

// How a measurement repeats, on how many threads and which kernel path.
struct TimingOptions {
    int threads = 1;
    double budgetSeconds = 0.5; // keep repeating until this much time is spent (after warm-up)
    int minRepeats = 3;
    int maxRepeats = 1000;
    bool useReference = false;
    CancelCheck cancelled; // polled between repeats and inside kernels
    const MeasureClock* clock = nullptr; // the readings timed; nullptr: systemMeasureClock()
};

// One timed configuration named by id: a variant at a shape with parameter overrides (resolved for the
// shape), for callers that hold no resolved variant.
struct TimingRequest : TimingOptions {
    std::string variant;
    ProblemShape shape;
    ParamOverrides overrides;
    // A decoding step's cache (timeDecodeStep): its precision and the keys per chunk of the split step
    // (0: the step's own choice).
    KvDtype kvDtype = KvDtype::F32;
    std::int64_t chunkKeys = 0;
};

struct TimingResult {
    double medianSeconds = 0;
    double minSeconds = 0;
    double maxSeconds = 0;
    int repeats = 0;
    double attentionMacs = 0; // cost model's core MACs for this shape
    double gflops = 0;        // 2 · attentionMacs / medianSeconds / 1e9
    double peakExtraBytes = 0; // peak resident memory during the runs minus the resident memory before them,
                               // less file pages mapped meanwhile (code run for the first time): the inputs
                               // already exist; outputs and workspaces count
    // The median over the repetitions of the share of its cores the kernel's thread team got (CPU time /
    // (wall time × threads)): well below 1 when other programs held the cores for most repetitions,
    // not when one repetition of many was held up. NaN when not measured.
    double cpuShare = std::nan("");
    bool cancelled = false;
};

// Times the variant's run at its shape and parameters on generated Gaussian inputs (generated once, outside
// the timed region; with shape.queries set, Q holds the last rows only), with the CPU share of its team of options.threads threads, after checking the job's
// limits. Throws InputError.
TimingResult timeVariant(const ResolvedVariant& resolved, const TimingOptions& options);
// The same for a request by id (resolved here). Throws InputError for an unknown variant or bad parameters.
TimingResult timeVariant(const TimingRequest& request);

// Times one decoding step of request.variant at context request.shape.n (causal; heads, kvHeads, d, dv
// from the shape) on generated Gaussian inputs, its cache in request.kvDtype, with the CPU share of its team
// (core/measure/decode_timing.cpp). The cache is built before timing, and Q holds only the new token's row
// unless the step reads every query. Before every repetition the last-level cache is flushed by reading a
// buffer twice its size, as the other layers' steps flush it in a model: each repetition reads its cache from
// memory. attentionMacs and gflops are the step's core (core/decode/decode.h: decodeCost). Throws InputError
// for a variant that cannot decode or a step that does not fit the job's limits.
TimingResult timeDecodeStep(const TimingRequest& request);
// The same step at each precision of `dtypes` on one generated context, alternating: `rounds` rounds each
// time every precision's step for request.budgetSeconds / rounds; per precision the round with the lowest
// median is kept (the one other programs disturbed least). In the order of `dtypes`. `beforeRound`, when
// given, runs at the start of every round (a reference measured in the same conditions as the steps).
std::vector<TimingResult> timeDecodePrecisions(const TimingRequest& request, const std::vector<KvDtype>& dtypes, int rounds,
                                               const std::function<void()>& beforeRound = {});

// Sets up the C allocator so that peakExtraBytes sees what the runs allocate (timing.cpp says how and why).
// timeRepeated calls it too; a program that measures on a thread other than main calls it first thing in
// main, before any thread starts.
void prepareAllocatorForMeasurements();

// Repeats `once` (false = cancelled) after one warm-up call until minRepeats and budgetSeconds are both
// reached (or maxRepeats); attentionMacs and gflops are left for the caller. Every repetition's seconds
// are the difference of two clock.wallSeconds() readings around `once`. With shareThreads > 0, cpuShare is
// measured for the calling thread's OpenMP team of that many threads (the one `once` runs on), from
// clock.teamCpuSeconds readings taken just outside the wall readings. `between`, when given, runs before
// every timed repetition, outside the readings; its wall time counts toward budgetSeconds.
TimingResult timeRepeated(const std::function<bool()>& once, double budgetSeconds, int minRepeats, int maxRepeats,
                          const CancelCheck& cancelled = {}, int shareThreads = 0,
                          const MeasureClock& clock = systemMeasureClock(), const std::function<void()>& between = {});

// The machine's limits measured in this process, for printing every rate as a fraction of them.
struct PeakResult {
    int threads = 1;
    double fmaGflops = 0;     // fp32 FMA loop
    std::string fmaKernel;    // its instruction set, e.g. "AVX-512, 16 lanes x 24 chains"
    double sgemmGflops = 0;   // the GEMM engine on a sgemmSize³ product
    std::int64_t sgemmSize = 0;
    std::string gemmEngine;   // e.g. "Eigen 3.4 over OpenBLAS 0.3.26 (kernels: Haswell)"
    double bandwidthGBs = 0;  // STREAM triad, 12 bytes per element (see measureTriadBandwidth)
    std::int64_t triadArrayBytes = 0;
    std::int64_t lastLevelCacheBytes = 0;
};
// Spends about budgetSeconds on the timed passes (FMA 40%, sgemm 30%, triad 30%); allocating and
// touching the triad's arrays comes on top. triadArrayBytes 0: defaultTriadArrayBytes.
PeakResult measurePeak(int threads, double budgetSeconds, std::int64_t sgemmSize = 2048, std::int64_t triadArrayBytes = 0);

// The roofline of one measured kernel: arithmetic intensity = 2·MACs / bytes_min (flop per byte),
// roof = min(FMA peak, intensity × bandwidth), and the measured rate as a fraction of that roof.
struct RooflinePoint {
    double intensity = 0;     // flop / byte
    double roofGflops = 0;
    bool memoryBound = false; // intensity × bandwidth < FMA peak
    double fractionOfRoof = 0;
};
RooflinePoint rooflinePoint(double attentionMacs, double bytesMin, double measuredGflops, const PeakResult& peak);

// The cost model counts MACs, not seconds; the one constant it lacks, a MAC rate, is fitted to a measured
// curve: the geometric mean of the curve's rates macs[k] / seconds[k], which minimises the squared error
// of log time. The timing view's dashed prediction at n is then MACs(n) / that rate. 0 without points.
double fittedMacRate(const std::vector<double>& macs, const std::vector<double>& seconds);

// Measured median seconds of one Transformer layer's parts at `shape` (model width hd = heads·d,
// FFN width 4hd): qkv_proj X·W_qkv, the attention core (the variant on [h, n, d] inputs), out_proj,
// and ffn (two products; the activation is not timed). Projections run on the GEMM engine.
struct LayerPartTimes {
    double qkvProj = 0;
    double attention = 0;
    double outProj = 0;
    double ffn = 0;
    bool cancelled = false;
    double total() const { return qkvProj + attention + outProj + ffn; }
};
// The projections and the FFN run on `engine`.
LayerPartTimes timeLayerParts(const ResolvedVariant& resolved, int threads, double budgetSeconds,
                              const CancelCheck& cancelled = {},
                              const MeasureClock& clock = systemMeasureClock(), GemmEngine engine = defaultGemmEngine());
// Each available engine's rate on the FFN's first product at n = kGemmProbeRows (rows × width by
// width × 4·width), `budgetSeconds` each after a warm-up, in availableGemmEngines() order; nothing when
// cancelled. chooseGemmEngine picks the one a layer measurement then uses.
inline constexpr std::int64_t kGemmProbeRows = 512;
std::optional<std::vector<GemmEngineRate>> measureGemmEngines(std::int64_t width, int threads, double budgetSeconds,
                                                              const CancelCheck& cancelled = {},
                                                              const MeasureClock& clock = systemMeasureClock());
// The job limits of timeLayerParts (the core as a run, the four products in memory and multiply-adds),
// checked before anything is allocated; timeLayerParts checks them itself, callers may check first.
void requireLayerPartsLimits(const ResolvedVariant& resolved);

// One GAU layer (FLASH) of model width hd with expansion e = 2·hd and shared head size s = 128:
// projections X·W_u, X·W_v (n×hd·hd×e each) and X·W_z (hd×s), relu² attention over Z (h = 1, d = s,
// dv = e), output projection (n×e·e×hd). Element-wise gates and offsets are not timed.
struct GauPartTimes {
    double projections = 0;
    double attention = 0;
    double outProj = 0;
    bool cancelled = false;
    double total() const { return projections + attention + outProj; }
};
GauPartTimes timeGauLayer(std::int64_t n, std::int64_t width, bool causal, int threads, double budgetSeconds,
                          const CancelCheck& cancelled = {}, GemmEngine engine = defaultGemmEngine());
// The job limits of timeGauLayer, as requireLayerPartsLimits.
void requireGauLayerLimits(std::int64_t n, std::int64_t width, bool causal);

// GAU's shared head size s.
inline constexpr std::int64_t kGauHeadSize = 128;

// Where a measured ratio (e.g. self-attention time / FFN time) crosses 1 for good: the smallest grid n
// from which every later ratio is > 1, interpolated in log-log space with the grid point before it, so a
// noisy point at small n cannot produce an early crossing. `ns` ascending, one ratio per n.
struct MeasuredCrossover {
    std::optional<double> n;  // nothing when the ratio is ≤ 1 at the largest n, or when it is always > 1
    bool alwaysAbove = false; // > 1 at every grid point: the crossing lies below the smallest n
};
MeasuredCrossover measuredCrossover(const std::vector<double>& ns, const std::vector<double>& ratios);

} // namespace attnlab
