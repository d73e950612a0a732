#pragma once

#include <cstdint>

namespace attnlab {

// fp32 multiply-add throughput of this machine on `threads` threads: independent vector FMA chains
// (as wide as the build's instruction set) run for about `seconds`; flops = 2 per lane per FMA.
double measureFmaPeakGflops(int threads, double seconds);

// Rate of the GEMM engine (multiplyRowMajor) on a size × size × size product, best of the repeats
// that fit in `seconds` (at least two, after one warm-up).
double measureSgemmGflops(int threads, std::int64_t size, double seconds);

} // namespace attnlab
