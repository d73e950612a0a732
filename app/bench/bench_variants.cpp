#include "app/bench/bench_modes.h"
#include "app/grid_options.h"

#include "core/errors.h"
#include "core/io/json_writer.h"
#include "core/registry.h"

#include <cstdio>
#include <optional>

namespace attnlab {

namespace {

struct VariantPoint {
    std::string variant;
    ProblemShape shape;
    TimingResult timing;
};

void printVariantPoints(const std::vector<VariantPoint>& points, const std::optional<PeakResult>& peak,
                        const BenchSettings& settings) {
    if (settings.json) {
        JsonWriter json;
        beginResultsJson(json, settings.threads, peak ? &*peak : nullptr);
        json.key("results").beginArray();
        for (const auto& p : points) {
            json.beginObject();
            json.key("variant").value(p.variant);
            json.key("n").value(static_cast<long long>(p.shape.n));
            json.key("d").value(static_cast<long long>(p.shape.d));
            json.key("dv").value(static_cast<long long>(p.shape.dv));
            json.key("heads").value(p.shape.heads);
            json.key("causal").value(p.shape.causal);
            if (p.shape.grid) {
                json.key("grid").value(p.shape.grid->sizeText());
                json.key("order").value(p.shape.grid->orderText());
            }
            json.key("queries").value(static_cast<long long>(p.shape.queryRows()));
            json.key("median_s").value(p.timing.medianSeconds);
            json.key("min_s").value(p.timing.minSeconds);
            json.key("max_s").value(p.timing.maxSeconds);
            json.key("repeats").value(p.timing.repeats);
            json.key("attention_macs").value(p.timing.attentionMacs);
            json.key("gflops").value(p.timing.gflops);
            if (peak) json.key("fraction_of_fma_peak").value(p.timing.gflops / peak->fmaGflops);
            json.key("peak_extra_bytes").value(p.timing.peakExtraBytes);
            json.endObject();
        }
        finishResultsJson(json);
        return;
    }
    if (settings.csv) {
        std::printf("variant,n,d,dv,heads,causal,median_s,min_s,max_s,repeats,attention_macs,gflops,%speak_extra_bytes,queries\n",
                    peak ? "fraction_of_fma_peak," : "");
        for (const auto& p : points) {
            std::printf("%s,%lld,%lld,%lld,%d,%s,%.6g,%.6g,%.6g,%d,%.0f,%.4g,", p.variant.c_str(),
                        static_cast<long long>(p.shape.n), static_cast<long long>(p.shape.d),
                        static_cast<long long>(p.shape.dv), p.shape.heads, p.shape.causal ? "true" : "false",
                        p.timing.medianSeconds, p.timing.minSeconds, p.timing.maxSeconds, p.timing.repeats,
                        p.timing.attentionMacs, p.timing.gflops);
            if (peak) std::printf("%.4f,", p.timing.gflops / peak->fmaGflops);
            std::printf("%.0f,%lld\n", p.timing.peakExtraBytes, static_cast<long long>(p.shape.queryRows()));
        }
        return;
    }
    if (peak) printPeak(*peak);
    std::printf("%-12s %7s %7s %5s %-6s %11s %11s %11s %4s %9s %s %10s\n", "variant", "n", "queries", "heads", "causal", "median ms",
                "min ms", "max ms", "reps", "GFLOP/s", peak ? "% peak" : "", "extra MiB");
    for (const auto& p : points) {
        std::printf("%-12s %7lld %7lld %5d %-6s %11.3f %11.3f %11.3f %4d %9.1f ", p.variant.c_str(),
                    static_cast<long long>(p.shape.n), static_cast<long long>(p.shape.queryRows()), p.shape.heads, p.shape.causal ? "yes" : "no",
                    1e3 * p.timing.medianSeconds, 1e3 * p.timing.minSeconds, 1e3 * p.timing.maxSeconds,
                    p.timing.repeats, p.timing.gflops);
        if (peak) std::printf("%6.1f ", 100.0 * p.timing.gflops / peak->fmaGflops);
        std::printf("%10.1f\n", p.timing.peakExtraBytes / (1024.0 * 1024.0));
    }
}

// n for one point: with a grid, the grid scaled to n cells (every --n must make one).
void setBenchLength(ProblemShape& shape, const TokenGridPtr& grid, std::int64_t n) {
    shape.n = n;
    shape.grid = grid && grid->cells() != n ? scaledGrid(*grid, n) : grid;
    if (grid && !shape.grid)
        throw InputError("attnlab bench: --n " + std::to_string(n) + " makes no grid scaled from --grid " + grid->sizeText() + " (" +
                         grid->orderText() + " order)");
}

} // namespace

int benchVariants(const CliArgs& cli, const BenchSettings& settings) {
    const std::vector<std::string> variants = splitList(cli.required("--variant"));
    ProblemShape base = readBenchShape(cli);
    const TokenGridPtr grid = gridOption(cli);
    const std::vector<std::int64_t> sizes = grid && !cli.value("--n")
                                                ? std::vector<std::int64_t>{grid->cells()}
                                                : parseSizes(sizesText(cli, "1024,2048,4096"));
    // --queries M: the last M positions query every n (M ≤ each n).
    const auto setN = [&](std::int64_t n) {
        setBenchLength(base, grid, n);
        const std::int64_t queries = cli.integer("--queries", n, 1, n);
        base.queries = queries == n ? 0 : queries;
    };
    for (const auto& id : variants) // fail on a bad id, a bad parameter or a point over a job limit before any timing
        for (const std::int64_t n : sizes) {
            setN(n);
            requireBenchPoint(id, base, cli.overrides());
        }
    std::optional<PeakResult> peak;
    if (cli.flag("--peak")) peak = measureBenchPeak(settings, 2.0);
    Progress progress(variants.size() * sizes.size());
    std::vector<VariantPoint> points;
    for (const auto& id : variants)
        for (const std::int64_t n : sizes) {
            setN(n);
            const TimingRequest request = variantTimingRequest(id, base, cli, settings);
            progress.step(id + " n=" + std::to_string(n));
            points.push_back({id, request.shape, timeVariant(request)});
        }
    progress.finish();
    printVariantPoints(points, peak, settings);
    return 0;
}

} // namespace attnlab
