#pragma once

// Which GEMM engine a layer measurement runs its projections and FFN on. Both engines of the build
// (core/kernels/gemm.h) are timed on one small product at the start of the measurement and the faster
// is used: a BLAS running generic kernels on a processor it does not know is several times slower than
// the attention kernels and would move every measured layer crossover. The figures and `bench --layer`
// say which engine ran at what rate, and warn when it is far below the attention kernel's rate.

#include "core/kernels/gemm.h"

#include <string>
#include <vector>

namespace attnlab {

// One engine's rate on the probe product (measureGemmEngines, core/measure/timing.h).
struct GemmEngineRate {
    GemmEngine engine = GemmEngine::Eigen;
    std::string name;  // gemmEngineName(engine)
    double gflops = 0; // 2·m·k·n / median seconds / 1e9
};

struct GemmChoice {
    GemmEngineRate chosen;
    std::vector<GemmEngineRate> measured; // every engine timed, in the order given
    std::string openBlasCore;             // openBlasCoreName(): the kernel set OpenBLAS runs; empty without it
};

// The faster engine; a tie keeps the earlier one (OpenBLAS, the build's default). `rates` is not empty.
GemmChoice chooseGemmEngine(const std::vector<GemmEngineRate>& rates);

// An engine is far below the attention kernel when its rate is under this share of the attention core's
// best measured rate: a good BLAS runs a layer's products at least about as fast as the attention core.
inline constexpr double kSlowGemmShare = 0.35;
// Seconds each engine is timed for, after its warm-up.
inline constexpr double kGemmProbeBudgetSeconds = 0.05;
bool gemmFarBelowAttention(double gemmGflops, double attentionGflops);

// "OpenBLAS 0.3.26 (kernels: Haswell), 95.1 GFLOP/s (also timed: Eigen 3.4 (own kernels), 60.2 GFLOP/s)"
std::string gemmChoiceText(const GemmChoice& choice);
// A warning sentence when gemmFarBelowAttention, else empty.
std::string gemmWarningText(const GemmChoice& choice, double attentionGflops);

} // namespace attnlab
