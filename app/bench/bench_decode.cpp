#include "app/bench/bench_modes.h"

#include "core/cost/cost_model.h"
#include "core/cost/job_limits.h"
#include "core/decode/decode.h"
#include "core/errors.h"
#include "core/io/json_writer.h"
#include "core/measure/timing.h"
#include "core/registry.h"

#include <cstdio>

namespace attnlab {

namespace {

// One decoding step at context n: its time, and what the layer keeps for it (from the cost model).
struct DecodePoint {
    std::string variant;
    ProblemShape shape;
    TimingResult timing;
    LayerCost cost;
};

void printDecodePoints(const std::vector<DecodePoint>& points, const BenchSettings& settings) {
    if (settings.json) {
        JsonWriter json;
        json.beginObject();
        json.key("threads").value(settings.threads);
        json.key("results").beginArray();
        for (const auto& p : points) {
            json.beginObject();
            json.key("variant").value(p.variant);
            json.key("n").value(static_cast<long long>(p.shape.n));
            json.key("d").value(static_cast<long long>(p.shape.d));
            json.key("heads").value(p.shape.heads);
            json.key("kv_heads").value(p.shape.keyValueHeads());
            json.key("median_s").value(p.timing.medianSeconds);
            json.key("min_s").value(p.timing.minSeconds);
            json.key("repeats").value(p.timing.repeats);
            json.key("step_core_macs").value(p.timing.attentionMacs);
            json.key("gflops").value(p.timing.gflops);
            json.key("retained_keys");
            if (p.cost.retainedKeys) json.value(static_cast<long long>(*p.cost.retainedKeys)); else json.null();
            json.key("kv_cache_bytes").value(p.cost.kvCacheBytes);
            json.endObject();
        }
        json.endArray();
        json.endObject();
        std::printf("%s\n", json.str().c_str());
        return;
    }
    if (settings.csv) {
        std::printf("variant,n,d,heads,kv_heads,median_s,min_s,repeats,step_core_macs,gflops,retained_keys,kv_cache_bytes\n");
        for (const auto& p : points)
            std::printf("%s,%lld,%lld,%d,%d,%.6g,%.6g,%d,%.0f,%.4g,%s,%.0f\n", p.variant.c_str(),
                        static_cast<long long>(p.shape.n), static_cast<long long>(p.shape.d), p.shape.heads,
                        p.shape.keyValueHeads(), p.timing.medianSeconds, p.timing.minSeconds, p.timing.repeats,
                        p.timing.attentionMacs, p.timing.gflops,
                        p.cost.retainedKeys ? std::to_string(*p.cost.retainedKeys).c_str() : "", p.cost.kvCacheBytes);
        return;
    }
    std::printf("one decoding step (query row n-1 against the cache), %d threads\n", settings.threads);
    std::printf("%-12s %8s %5s %4s %11s %11s %9s %14s %12s\n", "variant", "n", "heads", "kv", "median us", "min us",
                "GFLOP/s", "retained keys", "cache MiB");
    for (const auto& p : points)
        std::printf("%-12s %8lld %5d %4d %11.1f %11.1f %9.2f %14s %12.2f\n", p.variant.c_str(),
                    static_cast<long long>(p.shape.n), p.shape.heads, p.shape.keyValueHeads(), 1e6 * p.timing.medianSeconds,
                    1e6 * p.timing.minSeconds, p.timing.gflops,
                    p.cost.retainedKeys ? std::to_string(*p.cost.retainedKeys).c_str() : "(state)",
                    p.cost.kvCacheBytes / (1024.0 * 1024.0));
}

} // namespace

int benchDecode(const CliArgs& cli, const BenchSettings& settings) {
    const std::vector<std::string> variants = splitList(cli.value("--variant").value_or("full,longformer,linear"));
    const std::vector<std::int64_t> sizes = parseSizes(cli.value("--n").value_or("1024,4096,16384,65536"));
    ProblemShape base = readBenchShape(cli);
    base.causal = true;
    base.kvHeads = static_cast<int>(cli.integer("--kv-heads", base.heads, 1, base.heads));
    if (base.heads % base.kvHeads != 0)
        throw InputError("attnlab bench: --kv-heads " + std::to_string(base.kvHeads) + " must divide --heads " +
                         std::to_string(base.heads));
    std::vector<DecodePoint> points;
    for (const auto& id : variants) { // fail on a bad id, a variant without decoding or a bad parameter first
        const VariantInfo& variant = requireVariant(id);
        requireDecoding(variant);
        for (const std::int64_t n : sizes) {
            base.n = n;
            const ParamSet params = prepareParams(variant, base, cli.overrides());
            requireDecodeLimits(variant, base, params);
            points.push_back({id, base, {}, decodeLayerCost(variant, base, params)});
        }
    }
    Progress progress(points.size());
    for (DecodePoint& point : points) {
        progress.step(point.variant + " n=" + std::to_string(point.shape.n));
        point.timing = timeDecodeStep(variantTimingRequest(point.variant, point.shape, cli, settings));
    }
    progress.finish();
    printDecodePoints(points, settings);
    return 0;
}

} // namespace attnlab
