#include "app/bench/bench_modes.h"
#include "app/model_option.h"

#include "core/cost/cost_model.h"
#include "core/cost/job_limits.h"
#include "core/decode/decode.h"
#include "core/errors.h"
#include "core/io/json_writer.h"
#include "core/measure/timing.h"
#include "core/registry.h"

#include <cmath>
#include <cstdio>
#include <optional>

namespace attnlab {

namespace {

// One decoding step at context n: its time, and what the layer keeps and the step reads for it (from the
// cost model).
struct DecodePoint {
    std::string variant;
    ProblemShape shape;
    TimingResult timing;
    LayerCost cost;
    // The cached keys' and values' bytes per second of median time (0 for a step that reads none).
    double bandwidthGBs() const {
        return timing.medianSeconds > 0 ? cost.kvReadBytes / timing.medianSeconds / 1e9 : 0.0;
    }
};

void writePointJson(JsonWriter& json, const DecodePoint& p, const std::optional<PeakResult>& peak) {
    json.beginObject();
    json.key("variant").value(p.variant);
    json.key("n").value(static_cast<long long>(p.shape.n));
    json.key("d").value(static_cast<long long>(p.shape.d));
    json.key("heads").value(p.shape.heads);
    json.key("kv_heads").value(p.shape.keyValueHeads());
    json.key("kv_dtype").value(kvDtypeName(p.cost.kvDtype));
    json.key("median_s").value(p.timing.medianSeconds);
    json.key("min_s").value(p.timing.minSeconds);
    json.key("repeats").value(p.timing.repeats);
    json.key("cpu_share").value(p.timing.cpuShare);
    json.key("step_core_macs").value(p.timing.attentionMacs);
    json.key("gflops").value(p.timing.gflops);
    json.key("retained_keys");
    if (p.cost.retainedKeys)
        json.value(static_cast<long long>(*p.cost.retainedKeys));
    else
        json.null();
    json.key("kv_cache_bytes").value(p.cost.kvCacheBytes);
    json.key("kv_read_bytes").value(p.cost.kvReadBytes);
    json.key("bandwidth_gbs").value(p.bandwidthGBs());
    if (peak) json.key("fraction_of_triad").value(p.bandwidthGBs() / peak->bandwidthGBs);
    json.endObject();
}

void printDecodePoints(const std::vector<DecodePoint>& points, const BenchSettings& settings,
                       const std::optional<PeakResult>& peak) {
    if (settings.json) {
        JsonWriter json;
        beginResultsJson(json, settings.threads, peak ? &*peak : nullptr);
        json.key("results").beginArray();
        for (const auto& p : points)
            writePointJson(json, p, peak);
        finishResultsJson(json);
        return;
    }
    if (settings.csv) {
        std::printf("variant,n,d,heads,kv_heads,kv_dtype,median_s,min_s,repeats,cpu_share,step_core_macs,"
                    "gflops,retained_keys,"
                    "kv_cache_bytes,kv_read_bytes,bandwidth_gbs%s\n",
                    peak ? ",fraction_of_triad" : "");
        for (const auto& p : points) {
            std::printf("%s,%lld,%lld,%d,%d,%s,%.6g,%.6g,%d,%.3f,%.0f,%.4g,%s,%.0f,%.0f,%.4g",
                        p.variant.c_str(), static_cast<long long>(p.shape.n),
                        static_cast<long long>(p.shape.d), p.shape.heads, p.shape.keyValueHeads(),
                        kvDtypeName(p.cost.kvDtype).c_str(), p.timing.medianSeconds, p.timing.minSeconds,
                        p.timing.repeats, p.timing.cpuShare, p.timing.attentionMacs, p.timing.gflops,
                        p.cost.retainedKeys ? std::to_string(*p.cost.retainedKeys).c_str() : "",
                        p.cost.kvCacheBytes, p.cost.kvReadBytes, p.bandwidthGBs());
            if (peak) std::printf(",%.4g", p.bandwidthGBs() / peak->bandwidthGBs);
            std::printf("\n");
        }
        return;
    }
    if (peak) printPeak(*peak);
    std::printf("one decoding step (query row n-1 against the cache), %d threads\n", settings.threads);
    std::printf("%-12s %8s %5s %4s %5s %11s %11s %6s %9s %14s %11s %9s%s\n", "variant", "n", "heads", "kv",
                "cache", "median us", "min us", "cpu", "GFLOP/s", "retained keys", "cache MiB", "read GB/s",
                peak ? "  of triad" : "");
    for (const auto& p : points) {
        std::printf("%-12s %8lld %5d %4d %5s %11.1f %11.1f %6.2f %9.2f %14s %11.2f %9.2f", p.variant.c_str(),
                    static_cast<long long>(p.shape.n), p.shape.heads, p.shape.keyValueHeads(),
                    kvDtypeName(p.cost.kvDtype).c_str(), 1e6 * p.timing.medianSeconds,
                    1e6 * p.timing.minSeconds, p.timing.cpuShare, p.timing.gflops,
                    p.cost.retainedKeys ? std::to_string(*p.cost.retainedKeys).c_str() : "(state)",
                    p.cost.kvCacheBytes / (1024.0 * 1024.0), p.bandwidthGBs());
        if (peak) std::printf("  %8.2f", p.bandwidthGBs() / peak->bandwidthGBs);
        std::printf("\n");
    }
}

} // namespace

int benchDecode(const CliArgs& cli, const BenchSettings& settings) {
    const ModelShape* model = modelOption(cli);
    ParamOverrides overrides = cli.overrides();
    std::string defaultVariants = "full,longformer,linear";
    if (model) { // the model's own attention, with --set's values kept
        auto [id, modelOverrides] = modelAttention(*model);
        defaultVariants = id;
        if (!cli.value("--variant")) overrides.insert(modelOverrides.begin(), modelOverrides.end());
    }
    const std::vector<std::string> variants = splitList(cli.value("--variant").value_or(defaultVariants));
    const std::vector<std::int64_t> sizes = parseSizes(sizesText(cli, "1024,4096,16384,65536"));
    ProblemShape base = readBenchShape(cli);
    base.causal = true;
    const int kvDefault = model && !cli.value("--heads") ? model->kvHeads : base.heads;
    base.kvHeads = static_cast<int>(cli.integer("--kv-heads", kvDefault, 1, base.heads));
    if (base.heads % base.kvHeads != 0)
        throw InputError("attnlab bench: --kv-heads " + std::to_string(base.kvHeads) +
                         " must divide --heads " + std::to_string(base.heads));
    const KvDtype dtype =
        kvDtypeFromName(cli.value("--kv-dtype").value_or(kvDtypeName(model ? model->kvDtype : KvDtype::F32)),
                        "attnlab bench: --kv-dtype");
    std::vector<DecodePoint> points;
    for (const auto& id : variants) { // fail on a bad id, a variant without decoding or a bad parameter first
        const VariantInfo& variant = requireVariant(id);
        requireDecoding(variant);
        for (const std::int64_t n : sizes) {
            base.n = n;
            const ParamSet params = prepareParams(variant, base, overrides);
            requireDecodeLimits(variant, base, params, dtype);
            points.push_back({id, base, {}, decodeLayerCost(variant, base, params, dtype)});
        }
    }
    std::optional<PeakResult> peak;
    if (cli.flag("--peak")) peak = measureBenchPeak(settings);
    Progress progress(points.size());
    for (DecodePoint& point : points) {
        progress.step(point.variant + " n=" + std::to_string(point.shape.n));
        TimingRequest request = variantTimingRequest(point.variant, point.shape, cli, settings);
        request.overrides = overrides;
        request.kvDtype = dtype;
        point.timing = timeDecodeStep(request);
    }
    progress.finish();
    printDecodePoints(points, settings, peak);
    return 0;
}

} // namespace attnlab
