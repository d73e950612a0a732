// A decoding step's memory reads alone, beside the step, in one run (n = 131,072 cached keys, h = 32 query
// heads, h_kv = 8 key/value heads, d = dv = 128: a 1 GiB float32 cache, two threads). The loads-only loops
// read what any step must read, every cached key and value row of every key/value head once, and add instead
// of scoring; the key/value heads are shared among the threads as the step shares its chunks.
//   loadsOnly/<bytes per element>/<ahead>: keys and values row by row, interleaved as the step reads them,
//     requesting rows `ahead` rows ahead of the one read (0: the hardware prefetcher alone), on 2 MiB pages;
//   smallPages/<ahead>: the same over storage on 4 KiB pages (float32);
//   keysThenValues: all of a head's keys, then all its values (two passes, float32);
//   streams/<S>/<block>: a head's rows cut into S segments read together (float32, hardware prefetcher
//     alone): `block` key rows of each segment, then those value rows (block 1: key and value row by row);
//   step/<bytes per element>/<n>: the decoding step itself (core/decode), float32 or float16 cache of n rows
//     (at n = 2048, 16 MiB, the cache can stay in the last-level cache between steps);
//   chunkInCache/<bytes per element>: one chunk of 1024 rows held in L2, one thread: the step's arithmetic.
// Read each loop's bytes per second against the triad of `attnlab bench --peak` (docs/benchmarks.md).
//   build/dev/tests/bench/bench_decode_loads [--benchmark_filter=...]
#include "core/decode/decode.h"
#include "core/decode/kv_cache.h"
#include "core/decode/streamed_rows.h"
#include "core/registry.h"

#include <benchmark/benchmark.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <sys/mman.h>

namespace attnlab {
namespace {

constexpr std::int64_t kN = 131072, kDepth = 128;
constexpr int kHeads = 32, kKvHeads = 8, kThreads = 2;

// Rows of kDepth elements of `bytes` bytes each, [kKvHeads][kN], keys and values side by side in one block.
struct Cache {
    std::byte* keys = nullptr;
    std::byte* values = nullptr;
    std::int64_t rowBytes = 0;
    std::unique_ptr<std::byte, decltype(&std::free)> storage{nullptr, &std::free};
};

Cache makeCache(int bytes, bool hugePages) {
    Cache cache;
    cache.rowBytes = kDepth * bytes;
    const std::size_t half = static_cast<std::size_t>(kKvHeads * kN * cache.rowBytes),
                      page = std::size_t{2} << 20;
    auto* memory = static_cast<std::byte*>(std::aligned_alloc(page, 2 * half));
    madvise(memory, 2 * half, hugePages ? MADV_HUGEPAGE : MADV_NOHUGEPAGE);
    for (std::size_t b = 0; b < 2 * half; ++b)
        memory[b] = static_cast<std::byte>(b * 2654435761u >> 24);
    cache.storage.reset(memory);
    cache.keys = memory;
    cache.values = memory + half;
    return cache;
}

const std::byte* rowOf(const std::byte* base, const Cache& cache, int head, std::int64_t row) {
    return base + (static_cast<std::int64_t>(head) * kN + row) * cache.rowBytes;
}

void request(const std::byte* row, std::int64_t bytes) {
    for (std::int64_t offset = 0; offset < bytes; offset += 64)
        __builtin_prefetch(row + offset, 0, 3);
}

// Adds a row's 64-byte lines into `sum` (as 32-bit integers: the loop does not convert).
void addRow(const std::byte* row, std::int64_t bytes, std::uint64_t& sum) {
#if defined(__AVX512F__)
    __m512i acc = _mm512_setzero_si512();
    for (std::int64_t offset = 0; offset < bytes; offset += 64)
        acc = _mm512_add_epi32(acc, _mm512_load_si512(reinterpret_cast<const void*>(row + offset)));
    sum += static_cast<std::uint64_t>(_mm512_reduce_add_epi32(acc));
#else
    for (std::int64_t offset = 0; offset < bytes; offset += 8)
        sum += *reinterpret_cast<const std::uint64_t*>(row + offset);
#endif
}

std::uint64_t readHead(const Cache& cache, int head, std::int64_t ahead, bool interleaved) {
    std::uint64_t sum = 0;
    if (!interleaved) {
        for (const std::byte* base : {cache.keys, cache.values})
            for (std::int64_t j = 0; j < kN; ++j)
                addRow(rowOf(base, cache, head, j), cache.rowBytes, sum);
        return sum;
    }
    for (std::int64_t j = 0; j < kN; ++j) {
        if (ahead > 0 && j + ahead < kN) {
            request(rowOf(cache.keys, cache, head, j + ahead), cache.rowBytes);
            request(rowOf(cache.values, cache, head, j + ahead), cache.rowBytes);
        }
        addRow(rowOf(cache.keys, cache, head, j), cache.rowBytes, sum);
        addRow(rowOf(cache.values, cache, head, j), cache.rowBytes, sum);
    }
    return sum;
}

// Rows [0, kN) of a head as `segments` equal segments read together, `block` rows of keys then values.
std::uint64_t readSegments(const Cache& cache, int head, int segments, std::int64_t block) {
    std::uint64_t sum = 0;
    const std::int64_t length = kN / segments;
    for (std::int64_t j = 0; j < length; j += block)
        for (const std::byte* base : {cache.keys, cache.values})
            for (std::int64_t r = j; r < std::min(length, j + block); ++r)
                for (int s = 0; s < segments; ++s)
                    addRow(rowOf(base, cache, head, s * length + r), cache.rowBytes, sum);
    return sum;
}

template <class Read> void readHeads(benchmark::State& state, const Cache& cache, Read read) {
    std::uint64_t total = 0;
    for (auto _ : state) {
#pragma omp parallel for schedule(dynamic, 1) num_threads(kThreads) reduction(+ : total)
        for (int head = 0; head < kKvHeads; ++head)
            total += read(head);
    }
    benchmark::DoNotOptimize(total);
    state.SetBytesProcessed(state.iterations() * 2 * kKvHeads * kN * cache.rowBytes);
}

void readAll(benchmark::State& state, const Cache& cache, std::int64_t ahead, bool interleaved) {
    readHeads(state, cache, [&](int head) { return readHead(cache, head, ahead, interleaved); });
}

// One cache of each kind for the whole run (made when first needed).
const Cache& hugePageCache(int bytes) {
    static const Cache f32 = makeCache(4, true), f16 = makeCache(2, true);
    return bytes == 4 ? f32 : f16;
}

void loadsOnly(benchmark::State& state) {
    readAll(state, hugePageCache(static_cast<int>(state.range(0))), state.range(1), true);
}

void smallPages(benchmark::State& state) {
    static const Cache cache = makeCache(4, false);
    readAll(state, cache, state.range(0), true);
}

void keysThenValues(benchmark::State& state) {
    readAll(state, hugePageCache(4), 0, false);
}

void streams(benchmark::State& state) {
    const Cache& cache = hugePageCache(4);
    const int segments = static_cast<int>(state.range(0));
    readHeads(state, cache, [&](int head) { return readSegments(cache, head, segments, state.range(1)); });
}

void step(benchmark::State& state) {
    const KvDtype dtype = state.range(0) == 4 ? KvDtype::F32 : KvDtype::F16;
    const std::int64_t n = state.range(1);
    Tensor3 q(kHeads, 1, kDepth), k(kKvHeads, n, kDepth), v(kKvHeads, n, kDepth);
    std::uint32_t seed = 1;
    for (Tensor3* t : {&q, &k, &v})
        for (float& x : t->values)
            x = static_cast<float>((seed = seed * 1664525u + 1013904223u) >> 8) / 16777216.0f - 0.5f;
    const VariantInfo& full = requireVariant("full");
    const AttentionInputs context{&q, &k, &v};
    DecodeOptions options;
    options.threads = kThreads;
    options.kvDtype = dtype;
    const auto decode =
        prepareDecodeStep(full, context, prepareParams(full, context.shape(true), {}), options);
    std::vector<float> out(static_cast<std::size_t>(kHeads * kDepth));
    for (auto _ : state)
        decode->run(out.data());
    benchmark::DoNotOptimize(out.data());
    state.SetBytesProcessed(state.iterations() * 2 * kKvHeads * n * kDepth * kvDtypeBytes(dtype));
}

// One chunk of 1024 cached rows (1 MiB of float32 keys and values: in L2) scored by 4 query heads on one
// thread, again and again: the step's arithmetic alone, without memory or threads.
void chunkInCache(benchmark::State& state) {
    constexpr std::int64_t rows = 1024;
    const KvDtype dtype = state.range(0) == 4 ? KvDtype::F32 : KvDtype::F16;
    KvRows keys, values;
    keys.assign(dtype, 1, rows, kDepth);
    values.assign(dtype, 1, rows, kDepth);
    std::vector<float> row(kDepth);
    std::uint32_t seed = 1;
    const auto next = [&seed] {
        return static_cast<float>((seed = seed * 1664525u + 1013904223u) >> 8) / 16777216.0f - 0.5f;
    };
    for (std::int64_t j = 0; j < rows; ++j) {
        for (float& x : row)
            x = next();
        keys.setRow(0, j, row.data());
        for (float& x : row)
            x = next();
        values.setRow(0, j, row.data());
    }
    std::vector<float> queries(4 * kDepth);
    alignas(64) static float partials[4 * (kPartialHeader + kDepth)];
    for (float& x : queries)
        x = next();
    const CacheSegment segment{0, rows};
    ChunkJob job;
    job.queries = queries.data();
    job.heads = 4;
    job.keys = &keys;
    job.values = &values;
    job.segments = &segment;
    job.segmentCount = 1;
    job.partials = partials;
    const RowScoring scoring;
    for (auto _ : state) {
        runChunk(job, scoring);
        benchmark::DoNotOptimize(partials);
    }
    state.SetBytesProcessed(state.iterations() * 2 * rows * kDepth * kvDtypeBytes(dtype));
}

BENCHMARK(chunkInCache)->Arg(4)->Arg(2)->Unit(benchmark::kMicrosecond);
BENCHMARK(loadsOnly)->ArgsProduct({{4, 2}, {0, 4, 8, 16, 32}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(smallPages)->Arg(0)->Arg(8)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(keysThenValues)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(streams)->ArgsProduct({{1, 2, 4, 8}, {1, 64}})->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK(step)->ArgsProduct({{4, 2}, {kN, 256, 2048, 16384}})->Unit(benchmark::kMillisecond)->UseRealTime();

} // namespace
} // namespace attnlab

BENCHMARK_MAIN();
