#include "app/bench/bench_modes.h"

#include "core/cost/cost_model.h"
#include "core/io/json_writer.h"
#include "core/registry.h"

#include <algorithm>
#include <cstdio>

namespace attnlab {

namespace {

struct RooflineRow {
    std::string variant;
    ProblemShape shape;
    double bytesMin = 0;
    TimingResult timing;
    RooflinePoint roof;
};

void printRooflineJson(const std::vector<RooflineRow>& rows, const PeakResult& peak, const BenchSettings& settings) {
    JsonWriter json;
    beginResultsJson(json, settings.threads, &peak);
    json.key("convention")
        .value("gflops = 2*attention_macs/median_s; intensity = 2*attention_macs/bytes_min (flop/byte); "
               "roof = min(fma_gflops, intensity*bandwidth_gbs)");
    json.key("results").beginArray();
    for (const RooflineRow& row : rows) {
        json.beginObject();
        json.key("variant").value(row.variant);
        json.key("n").value(static_cast<long long>(row.shape.n));
        json.key("d").value(static_cast<long long>(row.shape.d));
        json.key("dv").value(static_cast<long long>(row.shape.dv));
        json.key("heads").value(row.shape.heads);
        json.key("causal").value(row.shape.causal);
        json.key("attention_macs").value(row.timing.attentionMacs);
        json.key("bytes_min").value(row.bytesMin);
        json.key("intensity").value(row.roof.intensity);
        json.key("median_s").value(row.timing.medianSeconds);
        json.key("gflops").value(row.timing.gflops);
        json.key("roof_gflops").value(row.roof.roofGflops);
        json.key("bound").value(row.roof.memoryBound ? "memory" : "compute");
        json.key("fraction_of_roof").value(row.roof.fractionOfRoof);
        json.endObject();
    }
    finishResultsJson(json);
}

void printRooflineCsv(const std::vector<RooflineRow>& rows, const PeakResult& peak) {
    std::printf("variant,n,d,dv,heads,causal,attention_macs,bytes_min,intensity,median_s,gflops,fma_gflops,"
                "bandwidth_gbs,roof_gflops,bound,fraction_of_roof\n");
    for (const RooflineRow& row : rows)
        std::printf("%s,%lld,%lld,%lld,%d,%s,%.0f,%.0f,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%s,%.4f\n", row.variant.c_str(),
                    static_cast<long long>(row.shape.n), static_cast<long long>(row.shape.d),
                    static_cast<long long>(row.shape.dv), row.shape.heads, row.shape.causal ? "true" : "false",
                    row.timing.attentionMacs, row.bytesMin, row.roof.intensity, row.timing.medianSeconds,
                    row.timing.gflops, peak.fmaGflops, peak.bandwidthGBs, row.roof.roofGflops,
                    row.roof.memoryBound ? "memory" : "compute", row.roof.fractionOfRoof);
}

void printRooflineTable(const std::vector<RooflineRow>& rows, const PeakResult& peak) {
    printPeak(peak);
    std::printf("ridge point: %.1f flop/byte (FMA peak / bandwidth); intensity = 2*MACs / bytes_min\n",
                peak.fmaGflops / peak.bandwidthGBs);
    std::printf("%-12s %7s %-6s %10s %10s %10s %10s %9s %-7s %7s\n", "variant", "n", "causal", "GFLOP", "MiB min",
                "flop/byte", "median ms", "GFLOP/s", "roof", "% roof");
    for (const RooflineRow& row : rows)
        std::printf("%-12s %7lld %-6s %10.2f %10.1f %10.1f %10.3f %9.1f %-7s %7.1f\n", row.variant.c_str(),
                    static_cast<long long>(row.shape.n), row.shape.causal ? "yes" : "no",
                    2.0 * row.timing.attentionMacs / 1e9, row.bytesMin / (1024.0 * 1024.0), row.roof.intensity,
                    1e3 * row.timing.medianSeconds, row.timing.gflops, row.roof.memoryBound ? "memory" : "compute",
                    100.0 * row.roof.fractionOfRoof);
}

} // namespace

int benchPeak(const BenchSettings& settings) {
    const PeakResult peak = measureBenchPeak(settings);
    if (settings.json) {
        JsonWriter json;
        writePeakJson(json, peak);
        std::printf("%s\n", json.str().c_str());
    } else if (settings.csv) {
        std::printf("threads,fma_gflops,sgemm_gflops,sgemm_size,bandwidth_gbs,triad_array_bytes,last_level_cache_bytes,"
                    "gemm_engine\n%d,%.6g,%.6g,%lld,%.6g,%lld,%lld,\"%s\"\n",
                    peak.threads, peak.fmaGflops, peak.sgemmGflops, static_cast<long long>(peak.sgemmSize),
                    peak.bandwidthGBs, static_cast<long long>(peak.triadArrayBytes),
                    static_cast<long long>(peak.lastLevelCacheBytes), peak.gemmEngine.c_str());
    } else {
        printPeak(peak);
    }
    return 0;
}

int benchRoofline(const CliArgs& cli, const BenchSettings& settings) {
    ProblemShape shape = readBenchShape(cli);
    const std::vector<std::string> variants = variantsOrAll(cli, shape.causal);
    const std::vector<std::int64_t> sizes = parseSizes(sizesText(cli, "4096"));
    std::vector<RooflineRow> rows;
    for (const auto& id : variants) // every id and parameter checked before any timing
        for (const std::int64_t n : sizes) {
            shape.n = n;
            const VariantInfo& variant = requireVariant(id);
            RooflineRow row;
            row.variant = id;
            row.shape = shape;
            row.bytesMin = layerCost(variant, shape, prepareParams(variant, shape, cli.overrides())).bytesMin;
            requireBenchPoint(id, shape, cli.overrides());
            rows.push_back(row);
        }
    const PeakResult peak = measureBenchPeak(settings);
    Progress progress(rows.size());
    for (RooflineRow& row : rows) {
        progress.step(row.variant + " n=" + std::to_string(row.shape.n));
        row.timing = timeVariant(variantTimingRequest(row.variant, row.shape, cli, settings));
        row.roof = rooflinePoint(row.timing.attentionMacs, row.bytesMin, row.timing.gflops, peak);
    }
    progress.finish();
    if (settings.json)
        printRooflineJson(rows, peak, settings);
    else if (settings.csv)
        printRooflineCsv(rows, peak);
    else
        printRooflineTable(rows, peak);
    return 0;
}

} // namespace attnlab
