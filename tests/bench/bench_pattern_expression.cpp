// Density image of pattern expressions at n = 65,536 (target: a five-term expression within 50 ms on
// the 2-core reference machine), next to the built-in strided pattern's image for scale.
//   build/dev/tests/bench/bench_pattern_expression [--benchmark_filter=...]
#include "core/patterns/expression_pattern.h"
#include "core/registry.h"

#include <benchmark/benchmark.h>

namespace attnlab {
namespace {

constexpr std::int64_t kN = 65536;
constexpr int kBins = 512;

const char* const kExpressions[] = {
    // StreamingLLM window + sinks, strided columns, globals, random keys: five top-level terms.
    "band(128) | sink(4) | stride(256) & causal | global(0, 1000, 30000) | random(2, 1)",
    // Document masking ∩ causal, prefix-LM, dilated window, strided ∩ block.
    "docs(1000, 5000, 20000) & causal | prefix(512) | dilated(16, 4) | stride(64) & block(4096) | summary(256, 2)",
};

void densityOfExpression(benchmark::State& state) {
    const ExpressionPattern pattern(parseExpression(kExpressions[state.range(0)]), kN, state.range(1) != 0);
    for (auto _ : state) benchmark::DoNotOptimize(densityImage(pattern, kBins, static_cast<int>(state.range(2))));
    state.SetLabel(kExpressions[state.range(0)]);
}
// Arguments: expression, causal, threads (the app's views fold image rows on their job's kernel threads).
BENCHMARK(densityOfExpression)->ArgsProduct({{0, 1}, {0, 1}, {1, 2}})->Unit(benchmark::kMillisecond)->UseRealTime();

// The evaluator alone: every row's ranges, no image.
void rowsOfExpression(benchmark::State& state) {
    const ExpressionPattern pattern(parseExpression(kExpressions[state.range(0)]), kN, state.range(1) != 0);
    std::vector<ColumnRange> row;
    for (auto _ : state) {
        std::int64_t ranges = 0;
        for (std::int64_t i = 0; i < kN; ++i) {
            row.clear();
            pattern.rowRanges(i, row);
            ranges += static_cast<std::int64_t>(row.size());
        }
        benchmark::DoNotOptimize(ranges);
    }
}
BENCHMARK(rowsOfExpression)->Args({0, 0})->Args({0, 1})->Args({1, 0})->Args({1, 1})->Unit(benchmark::kMillisecond);

void densityOfBuiltinStrided(benchmark::State& state) {
    const VariantInfo& strided = requireVariant("strided");
    ProblemShape shape;
    shape.n = kN;
    shape.d = 64;
    shape.dv = 64;
    shape.causal = state.range(0) != 0;
    const ParamSet params = prepareParams(strided, shape, {{"stride", "256"}});
    const auto pattern = buildPattern(strided, shape, params);
    for (auto _ : state) benchmark::DoNotOptimize(densityImage(*pattern, kBins));
}
BENCHMARK(densityOfBuiltinStrided)->Arg(0)->Arg(1)->Unit(benchmark::kMillisecond);

} // namespace
} // namespace attnlab

BENCHMARK_MAIN();
