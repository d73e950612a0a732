#include "core/measure/machine_peak.h"

#include "core/jobs/memory_budget.h"
#include "core/jobs/parallel_tasks.h"
#include "core/kernels/gemm.h"

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <memory>
#include <new>
#include <string>
#include <vector>

#include <sys/mman.h>
#include <unistd.h>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace attnlab {

namespace {

double secondsSince(std::chrono::steady_clock::time_point start) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Accumulator chains per thread: more than FMA latency × FMA pipes, so the pipes never wait.
constexpr int kChains = 24;

#if defined(__AVX512F__)
constexpr int kLanes = 16;
constexpr const char* kFmaIsa = "AVX-512";
// Runs `rounds` × kChains FMAs on 16 lanes; returns a value that depends on all of them.
float fmaRounds(std::int64_t rounds, float seed) {
    // Fully unrolled so the chains live in registers.
    __m512 acc[kChains];
#pragma GCC unroll 24
    for (int c = 0; c < kChains; ++c) acc[c] = _mm512_set1_ps(seed + static_cast<float>(c));
    const __m512 x = _mm512_set1_ps(0.999999f), y = _mm512_set1_ps(1e-7f);
    for (std::int64_t r = 0; r < rounds; ++r)
#pragma GCC unroll 24
        for (int c = 0; c < kChains; ++c) acc[c] = _mm512_fmadd_ps(acc[c], x, y);
    __m512 sum = acc[0];
#pragma GCC unroll 24
    for (int c = 1; c < kChains; ++c) sum = _mm512_add_ps(sum, acc[c]);
    return _mm512_reduce_add_ps(sum);
}
#else
constexpr int kLanes = 1;
constexpr const char* kFmaIsa = "scalar";
float fmaRounds(std::int64_t rounds, float seed) {
    float acc[kChains];
    for (int c = 0; c < kChains; ++c) acc[c] = seed + static_cast<float>(c);
    for (std::int64_t r = 0; r < rounds; ++r)
        for (int c = 0; c < kChains; ++c) acc[c] = acc[c] * 0.999999f + 1e-7f;
    float sum = 0;
    for (const float a : acc) sum += a;
    return sum;
}
#endif

// Arrays of the triad: 2 MiB aligned so the kernel may back them with huge pages (touching 4 KiB pages
// one by one is slow in some virtual machines).
constexpr std::size_t kHugePage = std::size_t{2} << 20;

struct FreeDeleter {
    void operator()(float* p) const { std::free(p); }
};
using FloatBuffer = std::unique_ptr<float[], FreeDeleter>;

FloatBuffer allocateStreamArray(std::size_t bytes) {
    const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
    auto* memory = static_cast<float*>(std::aligned_alloc(kHugePage, rounded));
    if (!memory) throw std::bad_alloc();
#if defined(MADV_HUGEPAGE)
    madvise(memory, rounded, MADV_HUGEPAGE);
#endif
    return FloatBuffer(memory);
}

} // namespace

std::string fmaKernelName() {
    return std::string(kFmaIsa) + ", " + std::to_string(kLanes) + " lanes x " + std::to_string(kChains) + " chains";
}

std::int64_t lastLevelCacheBytes() {
    for (const int level : {_SC_LEVEL4_CACHE_SIZE, _SC_LEVEL3_CACHE_SIZE, _SC_LEVEL2_CACHE_SIZE}) {
        const long bytes = sysconf(level);
        if (bytes > 0) return bytes;
    }
    return 0;
}

std::int64_t defaultTriadArrayBytes(std::int64_t lastLevelCache) {
    return std::max<std::int64_t>(std::int64_t{64} << 20, lastLevelCache);
}

void requireTriadMemory(std::int64_t arrayBytes) {
    requireMemory(3.0 * static_cast<double>(arrayBytes), "the STREAM triad (three arrays of " + std::to_string(arrayBytes >> 20) + " MiB)");
}

BandwidthResult measureTriadBandwidth(int threads, double seconds, std::int64_t arrayBytes) {
    threads = std::max(1, threads);
    BandwidthResult result;
    result.lastLevelCacheBytes = lastLevelCacheBytes();
    result.arrayBytes = arrayBytes > 0 ? arrayBytes : defaultTriadArrayBytes(result.lastLevelCacheBytes);
    const std::int64_t count = result.arrayBytes / static_cast<std::int64_t>(sizeof(float));
    const auto bytes = static_cast<std::size_t>(count) * sizeof(float);
    requireTriadMemory(result.arrayBytes);
    FloatBuffer a = allocateStreamArray(bytes), b = allocateStreamArray(bytes), c = allocateStreamArray(bytes);
    float* const pa = a.get();
    const float* const pb = b.get();
    const float* const pc = c.get();
    // First touch by the threads and chunks that run the triad.
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t i = 0; i < count; ++i) {
        a[i] = 0.0f;
        b[i] = 1.0f;
        c[i] = 2.0f;
    }
    const float scalar = 3.0f;
    const auto triad = [&] {
#pragma omp parallel for schedule(static) num_threads(threads)
        for (std::int64_t i = 0; i < count; ++i) pa[i] = pb[i] + scalar * pc[i];
    };
    triad(); // warm-up
    double best = 0;
    const auto begin = std::chrono::steady_clock::now();
    while (result.passes < 3 || secondsSince(begin) < seconds) {
        const auto start = std::chrono::steady_clock::now();
        triad();
        best = std::max(best, 3.0 * static_cast<double>(bytes) / secondsSince(start) / 1e9);
        ++result.passes;
    }
    volatile float sink = pa[count / 2]; // the stores are observable, so the loop cannot be dropped
    (void)sink;
    result.gbPerSecond = best;
    return result;
}

double measureFmaPeakGflops(int threads, double seconds) {
    threads = std::max(1, threads);
    // Calibrate rounds on one thread so each timed pass lasts about a tenth of the budget.
    std::int64_t rounds = 1 << 16;
    volatile float sink = 0;
    for (;;) {
        const auto start = std::chrono::steady_clock::now();
        sink = sink + fmaRounds(rounds, 1.0f);
        if (secondsSince(start) > seconds / 10 || rounds > (std::int64_t{1} << 40)) break;
        rounds *= 2;
    }
    double best = 0;
    const auto begin = std::chrono::steady_clock::now();
    while (secondsSince(begin) < seconds) {
        const auto start = std::chrono::steady_clock::now();
        ParallelErrors errors;
#pragma omp parallel num_threads(threads)
        errors.run([&] {
            const float value = fmaRounds(rounds, 2.0f);
            if (value == 0.0f) sink = value;
        });
        errors.rethrowFirst();
        const double elapsed = secondsSince(start);
        best = std::max(best, 2.0 * kLanes * kChains * static_cast<double>(rounds) * threads / elapsed / 1e9);
    }
    return best;
}

double measureSgemmGflops(int threads, std::int64_t size, double seconds) {
    const auto count = static_cast<std::size_t>(size * size);
    std::vector<float> a(count), b(count), c(count);
    for (std::size_t e = 0; e < count; ++e) {
        a[e] = static_cast<float>(e % 17) * 0.01f;
        b[e] = static_cast<float>(e % 13) * 0.02f;
    }
    multiplyRowMajor(a.data(), b.data(), c.data(), size, size, size, threads);
    double best = 0;
    int repeats = 0;
    const auto begin = std::chrono::steady_clock::now();
    while (repeats < 2 || secondsSince(begin) < seconds) {
        const auto start = std::chrono::steady_clock::now();
        multiplyRowMajor(a.data(), b.data(), c.data(), size, size, size, threads);
        best = std::max(best, 2.0 * static_cast<double>(size) * size * size / secondsSince(start) / 1e9);
        ++repeats;
    }
    return best;
}

} // namespace attnlab
