#pragma once

#include <cstdint>
#include <string>

namespace attnlab {

// fp32 multiply-add throughput of this machine on `threads` threads: independent vector FMA chains
// (as wide as the build's instruction set) run for about `seconds`; flops = 2 per lane per FMA.
double measureFmaPeakGflops(int threads, double seconds);

// Rate of the GEMM engine (multiplyRowMajor) on a size × size × size product, best of the repeats
// that fit in `seconds` (at least two, after one warm-up).
double measureSgemmGflops(int threads, std::int64_t size, double seconds);

// The FMA loop's instruction set and shape, e.g. "AVX-512, 16 lanes x 24 chains".
std::string fmaKernelName();

// Size of the last-level data cache as the system reports it (bytes); 0 when unknown.
std::int64_t lastLevelCacheBytes();

// Size of each triad array when none is asked for: max(64 MiB, the last-level cache), so the three
// arrays together are at least three times the cache and none of them stays cached.
std::int64_t defaultTriadArrayBytes(std::int64_t lastLevelCache);

// Sustained memory bandwidth from a STREAM-triad loop a[i] = b[i] + s·c[i] over three float32 arrays
// (each defaultTriadArrayBytes unless arrayBytes > 0), run on `threads` OpenMP threads with
// static chunks, arrays allocated and touched by the same threads before any timing. Best pass of those
// that fit in `seconds` (at least three after one warm-up pass). The three arrays are checked against
// the job budget (requireTriadMemory) before they are allocated.
// Byte convention (STREAM's): 12 bytes per element, read b, read c, write a; the extra read of a that a
// write-allocate cache performs is not counted, as bytes_min counts each output byte once.
struct BandwidthResult {
    double gbPerSecond = 0; // 1e9 bytes per second
    std::int64_t arrayBytes = 0;
    std::int64_t lastLevelCacheBytes = 0;
    int passes = 0;
};
BandwidthResult measureTriadBandwidth(int threads, double seconds, std::int64_t arrayBytes = 0);

// Throws InputError when three triad arrays of `arrayBytes` exceed the job budget (requireMemory).
void requireTriadMemory(std::int64_t arrayBytes);

} // namespace attnlab
