#include "core/kernels/machine_peak.h"

#include "core/kernels/gemm.h"
#include "core/parallel_tasks.h"

#include <algorithm>
#include <chrono>
#include <vector>

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

} // namespace

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
