#pragma once

#include "core/analysis/lab_settings.h"
#include "core/measure/timing.h"

#include <array>
#include <cmath>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

// The timing sweep: wall time on this machine vs n = 64, 128, … up to LabSettings::timingMaxN. Variants
// mode times the chosen variants' attention cores; layer mode one Transformer layer's four parts.

// Per point: a warm-up run, then runs until both kTimingMinRepeats and the budget are reached, so a
// whole sweep takes seconds. Layer points split their budget over the four parts.
inline constexpr double kTimingPointBudgetSeconds = 0.05;
inline constexpr double kTimingLayerBudgetSeconds = 0.2;
inline constexpr int kTimingMinRepeats = 5;
inline constexpr int kTimingMaxRepeats = 200;
// A point whose kernel threads got less than this share of their cores was slowed by other programs.
inline constexpr double kStarvedCpuShare = 0.75;

// One measured point: a variant's attention core (variants mode) or one layer part (layer mode).
struct TimingPoint {
    std::string series;      // variant label, or qkv_proj, attention, out_proj, ffn
    int seriesIndex = 0;     // colour and order
    ProblemShape shape;      // as measured
    double medianSeconds = 0;
    double minSeconds = std::nan("");  // NaN where not recorded (layer parts report medians only)
    double maxSeconds = std::nan("");
    int repeats = 0;
    double macs = 0;         // the cost model's multiply-adds of what was timed
    double gflops = 0;       // 2 · macs / medianSeconds / 1e9
    double peakExtraBytes = std::nan("");  // measured peak resident memory beyond the inputs (variants mode)
    double modelExtraBytes = std::nan(""); // cost model: the output plus the kernel's workspace
    // CPU time of the measuring thread and its OpenMP team / (wall time × kernel threads): variants mode
    // the median over the point's repetitions (TimingResult::cpuShare), layer mode over the whole point.
    double cpuShare = std::nan("");
    // The block kernel's multiply-adds of what was timed at the timing view's block size
    // (core/analysis/block_cost.h); NaN where not computed or not defined for the variant.
    double blockMacs = std::nan("");
    std::string error;       // the parameters do not fit this n; the point is left out of the curves
    bool valid() const { return error.empty() && medianSeconds > 0; }
    bool starved() const { return valid() && cpuShare < kStarvedCpuShare; }
};

// The parts of a layer in layer mode, in series order; costTerm names the FLOP view's matching term.
struct LayerPartInfo {
    const char* id;
    const char* label;
    const char* costTerm;
};
inline constexpr std::array<LayerPartInfo, 4> kLayerParts = {{
    {"qkv_proj", "QKV projections", "qkv_proj"},
    {"attention", "attention core", "scores"},
    {"out_proj", "output projection", "out_proj"},
    {"ffn", "FFN (width 4hd)", "ffn"},
}};

// Powers of two from 64 to maxN.
std::vector<std::int64_t> timingSweepSizes(std::int64_t maxN);
// The n of the settings' sweep: without a grid timingSweepSizes(timingMaxN); with one, the image sizes of
// the grid scaled from 64 cells up to timingMaxN (scaledGridSizes), each point measured on its scaled grid.
std::vector<std::int64_t> timingSweepSizes(const LabSettings& settings);
// The variants a sweep measures: the chosen ones, or only the first in layer mode.
std::vector<VariantChoice> measuredChoices(const LabSettings& settings);
// "longformer (window=8)", "custom (expr=neighborhood(7), order=morton)"
std::string choiceLabel(const VariantChoice& choice);

// One variant's core at n (series `index`); returns nothing when cancelled. Runs `threads` kernel threads;
// every time and CPU share comes from `clock`'s readings.
std::vector<TimingPoint> measureVariantAt(const VariantChoice& choice, int index, const LabSettings& settings, std::int64_t n,
                                          int threads, const CancelCheck& cancelled,
                                          const MeasureClock& clock = systemMeasureClock());
// The four layer parts at n, the projections and the FFN on `engine` (chooseGemmEngine); nothing when
// cancelled.
std::vector<TimingPoint> measureLayerAt(const VariantChoice& choice, const LabSettings& settings, std::int64_t n, int threads,
                                        const CancelCheck& cancelled, const MeasureClock& clock = systemMeasureClock(),
                                        GemmEngine engine = defaultGemmEngine());

// Which multiply-adds a prediction counts: the cost model's exact ones (TimingPoint::macs) or a block
// kernel's (TimingPoint::blockMacs).
enum class CostModel { Exact, BlockKernel };
// The block kernel's MACs of `choice`'s core at n of the settings' sweep (sweepShape) in blocks of
// `blockSize` (core/analysis/block_cost.h): what TimingPoint::blockMacs holds; NaN where a block kernel's
// cost is not defined for the variant or its parameters do not fit n.
double sweepBlockMacs(const VariantChoice& choice, const LabSettings& settings, std::int64_t n, std::int64_t blockSize);

// The cost model's time for `point`: its MACs at its series' fitted MAC rate (fittedMacRate), over the
// points the slopes use (valid, not starved, n ≥ kSlopeMinN) or, when there are none, every valid point;
// the block kernel's prediction fits its own rate to the same measured times. NaN where the point has no
// such MACs.
double predictedSeconds(const std::vector<TimingPoint>& points, const TimingPoint& point, CostModel model = CostModel::Exact);
// A point the cost model misses by fixed overhead: measured at `ratio` = kOverheadMiss or more times the
// cost model's time (predictedSeconds), while at the series' largest trusted n the miss is at most
// 1/kOverheadMiss of that. A miss that shrinks as n grows is a cost per call (threads, plans, buffers),
// not per multiply-add: where it dominates, a variant with fewer MACs can take longer than full attention.
inline constexpr double kOverheadMiss = 2.0;
struct OverheadMiss {
    int seriesIndex = 0;
    std::int64_t n = 0;
    double ratio = 0; // measured ÷ cost model
};
// Over valid points not starved of CPU, in the order of `points`.
std::vector<OverheadMiss> overheadMisses(const std::vector<TimingPoint>& points);
// How one curve grows: the least-squares log-log slope of its measured median times and of the cost
// model's MACs at the same n (the theory the dashed line draws), over its valid points that were not
// starved of CPU and have n ≥ kSlopeMinN (below that, fixed overheads flatten the curve). Nothing when
// fewer than kSlopeMinPoints such points exist: a line through two noisy points states a slope it
// cannot support (docs/benchmarks.md, "The timing view's slopes").
inline constexpr std::int64_t kSlopeMinN = 512;
inline constexpr int kSlopeMinPoints = 3;
struct SeriesSlopes {
    double measured = 0;
    double model = 0;
    int points = 0;
    // The block kernel's MACs over the same points; NaN unless every one of them has them.
    double blockModel = std::nan("");
};
std::optional<SeriesSlopes> seriesSlopes(const std::vector<TimingPoint>& points, int seriesIndex);
// Valid points of one series sorted by n (invalid ones included, for their errors).
std::vector<const TimingPoint*> seriesPoints(const std::vector<TimingPoint>& points, int seriesIndex);
// Layer mode: median seconds of the four parts at every n where all four were measured.
std::map<std::int64_t, std::array<double, 4>> completeLayers(const std::vector<TimingPoint>& points);
// Layer mode: where measured self-attention (QKV + core + output projection) outweighs the FFN for good,
// from complete layers none of whose parts was starved of CPU.
MeasuredCrossover layerCrossover(const std::vector<TimingPoint>& points);

} // namespace attnlab
