#include "app/bench/bench_modes.h"

#include "core/analysis/crossovers.h"
#include "core/cost/cost_model.h"
#include "core/io/json_writer.h"
#include "core/registry.h"

#include <algorithm>
#include <cstdio>

namespace attnlab {

namespace {

struct LayerPoint {
    std::int64_t n = 0;
    LayerPartTimes layer;
    double attentionGflops = 0; // 2 · the core's cost-model MACs / its median time
    double linearCore = 0; // linear elu attention core at head size 4d
    GauPartTimes gau;
    double attentionWithProjections() const { return layer.qkvProj + layer.attention + layer.outProj; }
    double restOfLayer() const { return layer.qkvProj + layer.outProj + layer.ffn; }
};

template <typename Ratio>
MeasuredCrossover findCrossover(const std::vector<LayerPoint>& points, Ratio ratio) {
    std::vector<double> ns, ratios;
    for (const LayerPoint& point : points) {
        ns.push_back(static_cast<double>(point.n));
        ratios.push_back(ratio(point));
    }
    return measuredCrossover(ns, ratios);
}

// The linear elu core the layer is compared with: the layer's shape at head size 4d.
ProblemShape linearCoreShape(const ProblemShape& shape) {
    ProblemShape linear = shape;
    linear.d = linear.dv = 4 * shape.d;
    return linear;
}

std::string crossoverText(const MeasuredCrossover& crossing, const std::vector<LayerPoint>& points) {
    char text[64];
    if (crossing.n)
        std::snprintf(text, sizeof text, "%.0f", *crossing.n);
    else if (crossing.alwaysAbove)
        std::snprintf(text, sizeof text, "< %lld", static_cast<long long>(points.front().n));
    else
        std::snprintf(text, sizeof text, "> %lld", static_cast<long long>(points.back().n));
    return text;
}

// The attention core's best rate over the points, which the GEMM engine's is compared with.
double bestAttentionGflops(const std::vector<LayerPoint>& points) {
    double best = 0;
    for (const LayerPoint& point : points) best = std::max(best, point.attentionGflops);
    return best;
}

void writeGemmJson(JsonWriter& json, const GemmChoice& gemm, std::int64_t width, double attentionGflops) {
    json.key("gemm_engine").beginObject();
    json.key("name").value(gemm.chosen.name);
    json.key("gflops").value(gemm.chosen.gflops);
    json.key("openblas_core");
    if (gemm.openBlasCore.empty()) json.null(); else json.value(gemm.openBlasCore);
    json.key("probe_mkn").beginArray();
    for (const std::int64_t size : {kGemmProbeRows, width, 4 * width}) json.value(static_cast<long long>(size));
    json.endArray();
    json.key("measured").beginArray();
    for (const GemmEngineRate& rate : gemm.measured) {
        json.beginObject();
        json.key("name").value(rate.name);
        json.key("gflops").value(rate.gflops);
        json.key("chosen").value(rate.engine == gemm.chosen.engine);
        json.endObject();
    }
    json.endArray();
    json.key("attention_gflops").value(attentionGflops);
    json.key("far_below_attention").value(gemmFarBelowAttention(gemm.chosen.gflops, attentionGflops));
    const std::string warning = gemmWarningText(gemm, attentionGflops);
    json.key("warning");
    if (warning.empty()) json.null(); else json.value(warning);
    json.endObject();
}

} // namespace

int benchLayer(const CliArgs& cli, const BenchSettings& settings) {
    const VariantInfo& variant = requireVariant(cli.value("--variant").value_or("full"));
    const std::vector<std::int64_t> sizes = parseSizes(cli.value("--n").value_or("256,512,1024,2048,4096,8192"));
    ProblemShape shape = readBenchShape(cli);
    shape.dv = shape.d;
    const std::int64_t width = shape.heads * shape.d;
    for (const std::int64_t n : sizes) { // every point's parameters and job limits before any timing
        shape.n = n;
        requireLayerPartsLimits(resolveVariant(variant, shape, cli.overrides()));
        requireBenchPoint("linear", linearCoreShape(shape), {});
        requireGauLayerLimits(n, width, shape.causal);
    }
    Progress progress(sizes.size());
    // The faster GEMM engine of the build runs every product of the layers (core/measure/gemm_choice.h).
    const GemmChoice gemm = chooseGemmEngine(measureGemmEngines(width, settings.threads, kGemmProbeBudgetSeconds).value());
    // One unmeasured pass at the smallest n: the first products after start-up run slow while the GEMM
    // library starts its threads and the cores raise their clocks, and would skew the first point.
    shape.n = sizes.front();
    timeLayerParts(resolveVariant(variant, shape, cli.overrides()), settings.threads, settings.budget, {}, systemMeasureClock(),
                   gemm.chosen.engine);
    std::vector<LayerPoint> points;
    for (const std::int64_t n : sizes) {
        progress.step("layer n=" + std::to_string(n));
        shape.n = n;
        LayerPoint point;
        point.n = n;
        const ResolvedVariant resolved = resolveVariant(variant, shape, cli.overrides());
        point.layer = timeLayerParts(resolved, settings.threads, settings.budget, {}, systemMeasureClock(), gemm.chosen.engine);
        if (point.layer.attention > 0)
            point.attentionGflops = 2.0 * layerCost(variant, resolved.shape, resolved.params).attentionMacs / point.layer.attention / 1e9;
        TimingRequest linear;
        linear.variant = "linear";
        linear.shape = linearCoreShape(shape);
        linear.threads = settings.threads;
        linear.budgetSeconds = settings.budget / 4;
        linear.minRepeats = 2;
        point.linearCore = timeVariant(linear).medianSeconds;
        point.gau = timeGauLayer(n, width, shape.causal, settings.threads, settings.budget, {}, gemm.chosen.engine);
        points.push_back(point);
    }
    progress.finish();

    const MeasuredCrossover overFfn =
        findCrossover(points, [](const LayerPoint& p) { return p.attentionWithProjections() / p.layer.ffn; });
    const MeasuredCrossover dominates =
        findCrossover(points, [](const LayerPoint& p) { return p.layer.attention / p.restOfLayer(); });
    const MeasuredCrossover linearWins =
        findCrossover(points, [](const LayerPoint& p) { return p.layer.attention / p.linearCore; });
    // The cost model's crossovers for this case (variant, parameters, causal, h, d), searched, not assumed.
    const LayerCrossovers model = layerCrossovers(variant, shape, cli.overrides());

    if (settings.json) {
        JsonWriter json;
        json.beginObject();
        json.key("variant").value(variant.id);
        json.key("d").value(static_cast<long long>(shape.d));
        json.key("heads").value(shape.heads);
        json.key("causal").value(shape.causal);
        json.key("threads").value(settings.threads);
        writeGemmJson(json, gemm, width, bestAttentionGflops(points));
        json.key("points").beginArray();
        for (const auto& p : points) {
            json.beginObject();
            json.key("n").value(static_cast<long long>(p.n));
            json.key("qkv_proj_s").value(p.layer.qkvProj);
            json.key("attention_s").value(p.layer.attention);
            json.key("attention_gflops").value(p.attentionGflops);
            json.key("out_proj_s").value(p.layer.outProj);
            json.key("ffn_s").value(p.layer.ffn);
            json.key("layer_s").value(p.layer.total());
            json.key("linear_4d_attention_s").value(p.linearCore);
            json.key("gau_projections_s").value(p.gau.projections);
            json.key("gau_attention_s").value(p.gau.attention);
            json.key("gau_out_proj_s").value(p.gau.outProj);
            json.key("gau_layer_s").value(p.gau.total());
            json.endObject();
        }
        json.endArray();
        auto crossing = [&](const char* name, const MeasuredCrossover& c, const Crossover& predicted) {
            json.key(name).beginObject();
            json.key("measured_n");
            if (c.n) json.value(*c.n); else json.null();
            json.key("measured_text").value(crossoverText(c, points));
            json.key("cost_model_n");
            if (predicted.threshold) json.value(static_cast<long long>(*predicted.threshold)); else json.null();
            json.key("cost_model_text").value(crossoverStatement(predicted));
            json.endObject();
        };
        json.key("crossovers").beginObject();
        crossing("attention_exceeds_ffn", overFfn, model.attentionExceedsFfn);
        crossing("core_dominates", dominates, model.coreDominates);
        crossing("linear_4d_beats_full", linearWins, model.linearBeatsFull);
        json.endObject();
        json.endObject();
        std::printf("%s\n", json.str().c_str());
        return 0;
    }
    if (settings.csv) {
        std::printf("n,qkv_proj_s,attention_s,out_proj_s,ffn_s,layer_s,linear_4d_attention_s,gau_projections_s,"
                    "gau_attention_s,gau_out_proj_s,gau_layer_s\n");
        for (const auto& p : points)
            std::printf("%lld,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g,%.6g\n", static_cast<long long>(p.n),
                        p.layer.qkvProj, p.layer.attention, p.layer.outProj, p.layer.ffn, p.layer.total(), p.linearCore,
                        p.gau.projections, p.gau.attention, p.gau.outProj, p.gau.total());
        return 0;
    }
    std::printf("one layer, %s attention, h=%d d=%lld (hd=%lld, FFN 4hd)%s, %d threads; milliseconds (median)\n",
                variant.id.c_str(), shape.heads, static_cast<long long>(shape.d), static_cast<long long>(width),
                shape.causal ? ", causal" : "", settings.threads);
    std::printf("GEMM engine (the faster timed on a %lld x %lld x %lld product): %s\n", static_cast<long long>(kGemmProbeRows),
                static_cast<long long>(width), static_cast<long long>(4 * width), gemmChoiceText(gemm).c_str());
    if (const std::string warning = gemmWarningText(gemm, bestAttentionGflops(points)); !warning.empty())
        std::printf("%s\n", warning.c_str());
    std::printf("%7s %9s %10s %9s %9s %10s %7s %12s %10s\n", "n", "qkv_proj", "attention", "out_proj", "ffn", "layer",
                "attn %", "linear(4d)", "GAU layer");
    for (const auto& p : points)
        std::printf("%7lld %9.2f %10.2f %9.2f %9.2f %10.2f %6.1f%% %12.2f %10.2f\n", static_cast<long long>(p.n),
                    1e3 * p.layer.qkvProj, 1e3 * p.layer.attention, 1e3 * p.layer.outProj, 1e3 * p.layer.ffn,
                    1e3 * p.layer.total(), 100.0 * p.layer.attention / p.layer.total(), 1e3 * p.linearCore,
                    1e3 * p.gau.total());
    std::printf("crossovers (measured vs cost model):\n");
    std::printf("  self-attention (projections + core) > FFN   n = %-10s  cost model: %s\n",
                crossoverText(overFfn, points).c_str(), crossoverStatement(model.attentionExceedsFfn).c_str());
    std::printf("  attention core > rest of the layer          n = %-10s  cost model: %s\n",
                crossoverText(dominates, points).c_str(), crossoverStatement(model.coreDominates).c_str());
    std::printf("  linear elu at 4d faster than the core       n = %-10s  cost model: %s\n",
                crossoverText(linearWins, points).c_str(), crossoverStatement(model.linearBeatsFull).c_str());
    return 0;
}

} // namespace attnlab
