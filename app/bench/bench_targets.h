#pragma once

// `attnlab bench --targets`: each target is a ratio of numbers measured in one run, printed with its
// goal and whether it is met. Targets report; they never fail the run.

#include "app/bench/bench_support.h"

#include <string>
#include <vector>

namespace attnlab {

struct TargetRow {
    std::string name;
    double measured = 0;
    std::string goal;
    bool met = false;
    std::string detail;
};

// Full attention at the targets' long shape (n = 16384, h = 12, d = 64), measured once and shared by
// the kernel targets and the pattern targets.
struct FullAtLength {
    TimingResult bidirectional;
    TimingResult causal;
};

inline constexpr std::int64_t kTargetLength = 16384;

// Sparse patterns against full attention (GFLOP/s ratios, speed-ups, n = 1024 times, peak fraction) and
// the cost-model prediction against the measured curves from n = 1024 to kTargetLength.
std::vector<TargetRow> patternTargets(const BenchSettings& settings, const FullAtLength& full,
                                      const PeakResult& peak, Progress& progress);

// Progress steps patternTargets takes.
std::size_t patternTargetSteps();

// One 2-D neighbourhood on a 128 × 128 image in raster, tiles:8,8 and morton order: per order its allowed
// cells, the cells of its non-empty 64 × 64 blocks over sequence positions, the grid plan's computed cells,
// and its time in blocks of 64 consecutive positions and in the grid plan; then which count the first time
// follows (bench_order_targets.cpp).
std::vector<TargetRow> orderTargets(const BenchSettings& settings, Progress& progress);
std::size_t orderTargetSteps();

// Decoding at n = 131072, h = 32, h_kv = 8, d = 128 (app/bench/bench_decode_targets.cpp): full attention's, a
// window's and a window with sinks' cache read against the run's triad, float16 and bfloat16 caches' step
// time against float32's.
std::vector<TargetRow> decodeTargets(const BenchSettings& settings, const PeakResult& peak, Progress& progress);
std::size_t decodeTargetSteps();

} // namespace attnlab
