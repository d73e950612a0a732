// BigBird's memory accesses alone, beside its kernel, in one run (n = 16,384, h = 12, d = dv = 64, default
// window 6, globals 2, random 3, two threads, both directions). The loads-only loop reads what any kernel
// must read and writes what it must write, row by row as the pattern gives the columns: each row's query,
// the key and value rows of its window, global and random columns, and its output row (streamed past the
// caches); it requests rows ahead as the kernel does, at several distances (its own rows `stream` rows
// ahead, a row's far key and value rows `far` rows ahead), and adds instead of multiplying. Where the
// kernel takes about as long as the fastest of these loops, BigBird's time is its memory accesses, not
// its arithmetic: each row's random keys are K and V rows that no neighbouring row reads.
//   build/dev/tests/bench/bench_bigbird_loads [--benchmark_filter=...]
#include "core/random/input_generator.h"
#include "core/registry.h"

#include <benchmark/benchmark.h>
#if defined(__AVX512F__)
#include <immintrin.h>
#endif

#include <algorithm>
#include <thread>
#include <vector>

namespace attnlab {
namespace {

constexpr std::int64_t kN = 16384;
constexpr int kHeads = 12, kThreads = 2;
constexpr std::int64_t kDepth = 64; // d = dv: a row is 256 bytes, four cache lines
// Keys within kNear of their row stream in with the row's own; the rest are far (random keys, globals).
constexpr std::int64_t kNear = 16;

// How far ahead the loop requests a row's own query, key and value rows, and its far key and value rows.
struct Distances {
    std::int64_t stream, far;
};

ProblemShape shapeOf(bool causal) { return {kHeads, kN, kDepth, kDepth, causal}; }

// Every row's columns, flattened: row i's are columns[start[i], start[i + 1]). One mask for all heads.
struct RowColumns {
    std::vector<std::int64_t> columns, start;
};

RowColumns bigBirdColumns(bool causal) {
    const VariantInfo& bigbird = requireVariant("bigbird");
    const ParamSet params = prepareParams(bigbird, shapeOf(causal), {});
    const auto pattern = bigbird.pattern(PatternRequest{shapeOf(causal), &params});
    RowColumns rows;
    std::vector<ColumnRange> ranges;
    for (std::int64_t i = 0; i < kN; ++i) {
        rows.start.push_back(static_cast<std::int64_t>(rows.columns.size()));
        ranges.clear();
        pattern->rowRanges(i, ranges);
        for (const ColumnRange& range : ranges)
            for (std::int64_t j = range.begin; j < range.end; ++j) rows.columns.push_back(j);
    }
    rows.start.push_back(static_cast<std::int64_t>(rows.columns.size()));
    return rows;
}

void requestRow(const float* row) {
    for (int line = 0; line < 4; ++line) __builtin_prefetch(reinterpret_cast<const char*>(row) + 64 * line, 0, 3);
}

// out = q + Σ_c (k_c + v_c) over the given key and value rows, stored past the caches as the kernel's
// output rows are.
void sumRow(const float* query, const float* const* keys, const float* const* values, std::int64_t count, float* out) {
#if defined(__AVX512F__)
    __m512 sum[4];
    for (int x = 0; x < 4; ++x) sum[x] = _mm512_loadu_ps(query + 16 * x);
    for (std::int64_t c = 0; c < count; ++c)
        for (int x = 0; x < 4; ++x)
            sum[x] = _mm512_add_ps(sum[x], _mm512_add_ps(_mm512_loadu_ps(keys[c] + 16 * x), _mm512_loadu_ps(values[c] + 16 * x)));
    for (int x = 0; x < 4; ++x) _mm512_stream_ps(out + 16 * x, sum[x]);
#else
    float sum[kDepth];
    std::copy(query, query + kDepth, sum);
    for (std::int64_t c = 0; c < count; ++c)
        for (std::int64_t x = 0; x < kDepth; ++x) sum[x] += keys[c][x] + values[c][x];
    std::copy(sum, sum + kDepth, out);
#endif
}

// One head, rows in order.
void loadHead(const GeneratedInputs& in, Tensor3& out, int head, const RowColumns& rows, Distances ahead) {
    std::vector<const float*> keys, values;
    for (std::int64_t i = 0; i < kN; ++i) {
        if (const std::int64_t next = i + ahead.stream; next < kN) {
            requestRow(in.q.row(head, next));
            requestRow(in.k.row(head, next));
            requestRow(in.v.row(head, next));
        }
        if (const std::int64_t next = i + ahead.far; next < kN)
            for (std::int64_t c = rows.start[next]; c < rows.start[next + 1]; ++c)
                if (const std::int64_t j = rows.columns[c]; j <= next - kNear || j >= next + kNear) {
                    requestRow(in.k.row(head, j));
                    requestRow(in.v.row(head, j));
                }
        keys.clear();
        values.clear();
        for (std::int64_t c = rows.start[i]; c < rows.start[i + 1]; ++c) {
            keys.push_back(in.k.row(head, rows.columns[c]));
            values.push_back(in.v.row(head, rows.columns[c]));
        }
        sumRow(in.q.row(head, i), keys.data(), values.data(), static_cast<std::int64_t>(keys.size()), out.row(head, i));
    }
#if defined(__AVX512F__)
    _mm_sfence();
#endif
}

const GeneratedInputs& inputs() {
    static const GeneratedInputs generated = generateInputs(GeneratedKind::Gaussian, kHeads, kN, kDepth, kDepth, 1);
    return generated;
}

// Heads split between the threads as the kernel's parallel loop splits its work: half each.
// Arguments: causal, then the request distances in rows (stream, far).
void loadsOnly(benchmark::State& state) {
    const bool causal = state.range(0) != 0;
    const Distances ahead{state.range(1), state.range(2)};
    const RowColumns rows = bigBirdColumns(causal);
    const GeneratedInputs& in = inputs(); // generated before the timing starts
    Tensor3 out(kHeads, kN, kDepth);
    for (auto _ : state) {
        std::vector<std::thread> team;
        for (int t = 0; t < kThreads; ++t)
            team.emplace_back([&, t] {
                for (int head = t; head < kHeads; head += kThreads) loadHead(in, out, head, rows, ahead);
            });
        for (std::thread& thread : team) thread.join();
        benchmark::DoNotOptimize(out.values.data());
    }
    state.SetLabel(causal ? "causal" : "bidirectional");
}
BENCHMARK(loadsOnly)
    ->ArgsProduct({{0, 1}, {8, 16, 32}, {2, 4, 8}})
    ->Unit(benchmark::kMillisecond)
    ->UseRealTime()
    ->MinTime(0.5);

void kernel(benchmark::State& state) {
    const bool causal = state.range(0) != 0;
    const VariantInfo& bigbird = requireVariant("bigbird");
    const GeneratedInputs& in = inputs();
    const AttentionInputs view{&in.q, &in.k, &in.v};
    RunOptions options;
    options.causal = causal;
    options.threads = kThreads;
    options.params = prepareParams(bigbird, shapeOf(causal), {});
    RunResult previous = bigbird.run(view, options);
    options.recycle = &previous;
    for (auto _ : state) previous = bigbird.run(view, options);
    state.SetLabel(causal ? "causal" : "bidirectional");
}
BENCHMARK(kernel)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond)->UseRealTime()->MinTime(0.5);

} // namespace
} // namespace attnlab

BENCHMARK_MAIN();
