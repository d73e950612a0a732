#pragma once

// What the inference and roofline views compute (docs/inference.md): the KV cache a layer and a whole
// model keep vs context length, the context at which it outgrows a memory budget, the measured time of
// one decoding step, and a variant's prefill and decoding step placed under this machine's roofline.

#include "core/analysis/lab_settings.h"
#include "core/analysis/timing_sweep.h"
#include "core/measure/timing.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

// One curve of the inference figures: a variant with its overrides and the label the figure shows.
struct InferenceChoice {
    VariantChoice choice;
    std::string label;
};

// The reference set every inference figure compares — full; a sliding window of 4096 keys (longformer
// window 8190, r = 4095, Mistral-7B's span); the same window with 4 attention sinks (globals 0,1,2,3, as in
// StreamingLLM); chunks of 4096; linear attention's constant state (elu) — followed by the chosen
// variants that are not already among them.
std::vector<InferenceChoice> inferenceChoices(const LabSettings& settings);

// settings.memoryBudget, or this machine's physical memory when it is 0.
double memoryBudgetBytes(const LabSettings& settings);

// The KV cache at one context length: per key/value head `retainedKeys` (nullopt: a state only) and the
// bytes of one layer (decodeCache); the whole model keeps settings.modelLayers times that.
struct KvCachePoint {
    std::int64_t n = 0;
    std::optional<std::int64_t> retainedKeys;
    double layerBytes = 0;
};

struct KvCacheCurve {
    InferenceChoice choice;
    std::vector<KvCachePoint> points; // at kvCacheSizes() and a grid's n; a size the parameters reject is left out
    // Some sizes were rejected: a pattern of the grid's primitives is defined at the grid's n alone, and
    // parameters may not fit small n. The curve's statements then hold only at the points it has.
    bool partial = false;
    // The least n at which the whole model's cache exceeds the budget; nullopt: never up to kMaxContext
    // (for a partial curve: at none of its points and no n ≤ kMaxContext the parameters take).
    std::optional<std::int64_t> runsOutAt;
    std::string error; // the variant cannot decode (e.g. linformer); no points then
};

inline constexpr std::int64_t kMaxContext = std::int64_t{1} << 40;

// n = 16, 32, …, 2^maxLog2.
std::vector<std::int64_t> kvCacheSizes(int maxLog2);

// The curve at kvCacheSizes(maxLog2) under `settings`' shape (heads, kvHeads, d; dv = d; causal), and
// with a grid also at the grid's n (settings.n), where its pattern is defined.
KvCacheCurve kvCacheCurve(const LabSettings& settings, const InferenceChoice& choice, double budgetBytes, int maxLog2);

// An n ≤ kMaxContext where layers × layer bytes crosses budgetBytes (over at n, not at n − 1): doubling n,
// then bisecting the last doubling. The least such n for a cache that never shrinks as n grows and for a
// sawtooth whose period is a power of two; another period (chunk, xl, fixed) may give a later crossing.
// nullopt when no doubling up to kMaxContext is over.
std::optional<std::int64_t> contextLimit(const LabSettings& settings, const VariantChoice& choice, double budgetBytes);

// The settings' cache precision (LabSettings::kvDtype; checked by settingsProblem).
KvDtype settingsKvDtype(const LabSettings& settings);

// The decoding step's measured time at context n (budgeted like a timing-view point, each repetition reading
// its cache from memory: timeDecodeStep), with the cached bytes it reads and the CPU share its threads got.
struct DecodeTiming {
    int series = 0;
    std::int64_t n = 0;
    double medianSeconds = 0;
    double macs = 0;
    double gflops = 0;
    double kvReadBytes = 0;            // the cached keys and values the step reads (DecodeCost::kvReadBytes)
    double cpuShare = std::nan("");    // as the timing view's points (TimingPoint::cpuShare)
    std::string error;
    bool valid() const { return error.empty() && medianSeconds > 0; }
    bool starved() const { return valid() && cpuShare < kStarvedCpuShare; }
    double bandwidthGBs() const { return valid() ? kvReadBytes / medianSeconds / 1e9 : 0.0; }
};
// n = 256, 512, … up to maxN (at least 256).
std::vector<std::int64_t> decodeTimingSizes(std::int64_t maxN);
// nullopt when cancelled.
std::optional<DecodeTiming> timeDecodeAt(const LabSettings& settings, const InferenceChoice& choice, int series, std::int64_t n,
                                         int threads, const CancelCheck& cancelled);
// One curve's cache-read rate in bytes per second, fitted (fittedMacRate) to its points that read a cache,
// were not starved of CPU and read more than the last-level cache holds (smaller caches partly stay in the
// caches below it); 0 when there are none.
double fittedReadRate(const std::vector<DecodeTiming>& points);

// Chunked prefill: a prompt of n tokens (settings.n) run through one layer's attention core in chunks of c
// queries, chunk k the c queries after the k·c before it against all (k + 1)·c keys so far (causal,
// --queries c at length (k + 1)·c; the last chunk may be shorter). Its time is the time to the first
// generated token's attention; c = n is ordinary prefill.
struct PrefillTiming {
    int series = 0;
    std::int64_t n = 0;
    std::int64_t chunk = 0;
    double seconds = 0;                // the chunks' median times, summed
    double cpuShare = std::nan("");    // the lowest of the chunks' CPU shares
    std::string error;
    bool valid() const { return error.empty() && seconds > 0; }
    bool starved() const { return valid() && cpuShare < kStarvedCpuShare; }
};
// c = 64, 128, … below n, and n itself.
std::vector<std::int64_t> prefillChunkSizes(std::int64_t n);
// nullopt when cancelled; an error for a variant whose queries must be the whole sequence.
std::optional<PrefillTiming> timeChunkedPrefill(const LabSettings& settings, const InferenceChoice& choice, int series, std::int64_t chunk,
                                                int threads, const CancelCheck& cancelled);

// A measured kernel under the roofline: the prefill (a full forward at settings.n) or one decoding step
// at context settings.n. intensity = 2·MACs / bytes_min (layerCost / decodeLayerCost).
struct RooflineMeasurement {
    std::string label;
    bool decode = false;
    double macs = 0;
    double bytesMin = 0;
    double medianSeconds = 0;
    double gflops = 0;
    RooflinePoint roof;
    std::string error;
    bool valid() const { return error.empty() && medianSeconds > 0; }
};
std::optional<RooflineMeasurement> measureRoofline(const LabSettings& settings, const InferenceChoice& choice, bool decode,
                                                   const PeakResult& peak, int threads, const CancelCheck& cancelled);

// This machine's FMA peak and triad bandwidth on `threads` threads, measured on the first call and kept
// for the rest of the process (thread-safe; later calls with another thread count measure again).
PeakResult sessionMachinePeak(int threads);

} // namespace attnlab
