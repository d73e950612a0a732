#include "app/cli_args.h"
#include "app/commands.h"

#include "core/cost_model.h"
#include "core/errors.h"
#include "core/input_generator.h"
#include "core/json_writer.h"
#include "core/kernels/feature_map_attention.h"
#include "core/registry.h"
#include "core/timing.h"

#include <cmath>
#include <cstdio>
#include <optional>
#include <sstream>
#include <unistd.h>

namespace attnlab {

namespace {

constexpr const char* kBenchHelp = R"(usage: attnlab bench --variant ID[,ID...] [--n N[,N...]] [--d D] [--dv DV] [--heads H] [--causal]
                     [--set KEY=VALUE]... [--threads T] [--budget SECONDS] [--reference] [--peak] [--json | --csv]
       attnlab bench --peak [--threads T] [--budget SECONDS] [--json]
       attnlab bench --layer [--variant ID] [--n N[,N...]] [--d D] [--heads H] [--causal] [--threads T]
                     [--budget SECONDS] [--json | --csv]
       attnlab bench --targets [--threads T] [--json]

Times attention variants on generated Gaussian inputs: one warm-up run, then repeats until both three
runs and the time budget per point (default 0.5 s) are reached. Reports median/min/max seconds,
GFLOP/s from the cost model's MACs (flops = 2*macs) and the peak extra resident memory of the runs.
Defaults: --n 1024,2048,4096, --d 64, --dv = d, --heads 12, every core as threads.

--peak      measures this machine's fp32 FMA peak and the GEMM engine's sgemm rate (2048^3) in this
            process; with --variant every rate is also printed as a fraction of the FMA peak.
--layer     times one Transformer layer's parts (qkv projections, attention core, output projection,
            FFN with width 4hd) and one GAU layer (e = 2hd, s = 128) per n, the attention core of
            linear elu at 4d, and prints the measured crossovers beside the cost model's 2hd, 6hd, 16d.
            Default --variant full, --n 256,512,1024,2048,4096,8192.
--targets   the kernel targets measured in one run (2 threads unless --threads), as ratios.
--reference runs the plain reference kernels instead of the fast ones.
A progress line is drawn on stderr when it is a terminal.
)";

std::vector<std::string> splitList(const std::string& text) {
    std::vector<std::string> items;
    std::stringstream stream(text);
    std::string item;
    while (std::getline(stream, item, ','))
        if (!item.empty()) items.push_back(item);
    return items;
}

std::vector<std::int64_t> parseSizes(const std::string& text) {
    std::vector<std::int64_t> sizes;
    for (const std::string& item : splitList(text)) {
        const auto value = parseInteger(item);
        if (!value || *value < 1 || *value > (std::int64_t{1} << 24))
            throw InputError("attnlab bench: --n expects positive integers separated by commas, got '" + item + "'");
        sizes.push_back(*value);
    }
    if (sizes.empty()) throw InputError("attnlab bench: --n is empty");
    return sizes;
}

// "\r[k/total] label" on stderr while a terminal is watching; cleared by finish().
class Progress {
public:
    explicit Progress(std::size_t total) : m_total(total), m_enabled(isatty(fileno(stderr)) != 0) {}
    void step(const std::string& label) {
        if (!m_enabled) return;
        std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", ++m_done, m_total, label.c_str());
        std::fflush(stderr);
    }
    void finish() {
        if (m_enabled) std::fprintf(stderr, "\r\033[K");
    }

private:
    std::size_t m_total;
    std::size_t m_done = 0;
    bool m_enabled;
};

struct BenchSettings {
    int threads = 1;
    double budget = 0.5;
    bool json = false;
    bool csv = false;
};

BenchSettings readSettings(const CliArgs& cli, int defaultThreads) {
    BenchSettings settings;
    settings.threads = static_cast<int>(cli.integer("--threads", defaultThreads, 1, 1024));
    if (const auto budget = cli.value("--budget")) {
        char* end = nullptr;
        settings.budget = std::strtod(budget->c_str(), &end);
        if (end == budget->c_str() || *end != '\0' || !(settings.budget >= 0) || settings.budget > 3600)
            throw InputError("attnlab bench: --budget expects seconds in [0, 3600], got '" + *budget + "'");
    }
    settings.json = cli.flag("--json");
    settings.csv = cli.flag("--csv");
    if (settings.json && settings.csv) throw InputError("attnlab bench: --json and --csv exclude each other");
    return settings;
}

ProblemShape readShape(const CliArgs& cli) {
    ProblemShape shape;
    shape.d = cli.integer("--d", 64, 1, 1 << 16);
    shape.dv = cli.integer("--dv", shape.d, 1, 1 << 16);
    shape.heads = static_cast<int>(cli.integer("--heads", 12, 1, 1 << 12));
    shape.causal = cli.flag("--causal");
    return shape;
}

void writePeakJson(JsonWriter& json, const PeakResult& peak) {
    json.beginObject();
    json.key("threads").value(peak.threads);
    json.key("fma_gflops").value(peak.fmaGflops);
    json.key("sgemm_gflops").value(peak.sgemmGflops);
    json.key("sgemm_size").value(static_cast<long long>(peak.sgemmSize));
    json.key("gemm_engine").value(peak.gemmEngine);
    json.endObject();
}

void printPeak(const PeakResult& peak) {
    std::printf("threads %d: fp32 FMA peak %.1f GFLOP/s; sgemm %lld^3 on %s %.1f GFLOP/s (%.0f%% of FMA peak)\n",
                peak.threads, peak.fmaGflops, static_cast<long long>(peak.sgemmSize), peak.gemmEngine.c_str(),
                peak.sgemmGflops, 100.0 * peak.sgemmGflops / peak.fmaGflops);
}

struct VariantPoint {
    std::string variant;
    ProblemShape shape;
    TimingResult timing;
};

void printVariantPoints(const std::vector<VariantPoint>& points, const std::optional<PeakResult>& peak,
                        const BenchSettings& settings) {
    if (settings.json) {
        JsonWriter json;
        json.beginObject();
        json.key("threads").value(settings.threads);
        if (peak) {
            json.key("peak");
            writePeakJson(json, *peak);
        }
        json.key("results").beginArray();
        for (const auto& p : points) {
            json.beginObject();
            json.key("variant").value(p.variant);
            json.key("n").value(static_cast<long long>(p.shape.n));
            json.key("d").value(static_cast<long long>(p.shape.d));
            json.key("dv").value(static_cast<long long>(p.shape.dv));
            json.key("heads").value(p.shape.heads);
            json.key("causal").value(p.shape.causal);
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
        json.endArray();
        json.endObject();
        std::printf("%s\n", json.str().c_str());
        return;
    }
    if (settings.csv) {
        std::printf("variant,n,d,dv,heads,causal,median_s,min_s,max_s,repeats,attention_macs,gflops,%speak_extra_bytes\n",
                    peak ? "fraction_of_fma_peak," : "");
        for (const auto& p : points) {
            std::printf("%s,%lld,%lld,%lld,%d,%s,%.6g,%.6g,%.6g,%d,%.0f,%.4g,", p.variant.c_str(),
                        static_cast<long long>(p.shape.n), static_cast<long long>(p.shape.d),
                        static_cast<long long>(p.shape.dv), p.shape.heads, p.shape.causal ? "true" : "false",
                        p.timing.medianSeconds, p.timing.minSeconds, p.timing.maxSeconds, p.timing.repeats,
                        p.timing.attentionMacs, p.timing.gflops);
            if (peak) std::printf("%.4f,", p.timing.gflops / peak->fmaGflops);
            std::printf("%.0f\n", p.timing.peakExtraBytes);
        }
        return;
    }
    if (peak) printPeak(*peak);
    std::printf("%-12s %7s %5s %-6s %11s %11s %11s %4s %9s %s %10s\n", "variant", "n", "heads", "causal", "median ms",
                "min ms", "max ms", "reps", "GFLOP/s", peak ? "% peak" : "", "extra MiB");
    for (const auto& p : points) {
        std::printf("%-12s %7lld %5d %-6s %11.3f %11.3f %11.3f %4d %9.1f ", p.variant.c_str(),
                    static_cast<long long>(p.shape.n), p.shape.heads, p.shape.causal ? "yes" : "no",
                    1e3 * p.timing.medianSeconds, 1e3 * p.timing.minSeconds, 1e3 * p.timing.maxSeconds,
                    p.timing.repeats, p.timing.gflops);
        if (peak) std::printf("%6.1f ", 100.0 * p.timing.gflops / peak->fmaGflops);
        std::printf("%10.1f\n", p.timing.peakExtraBytes / (1024.0 * 1024.0));
    }
}

int benchVariants(const CliArgs& cli, const BenchSettings& settings) {
    const std::vector<std::string> variants = splitList(cli.required("--variant"));
    const std::vector<std::int64_t> sizes = parseSizes(cli.value("--n").value_or("1024,2048,4096"));
    ProblemShape base = readShape(cli);
    for (const auto& id : variants) // fail on a bad id or parameter before any timing
        for (const std::int64_t n : sizes) {
            base.n = n;
            prepareParams(requireVariant(id), base, cli.overrides());
        }
    std::optional<PeakResult> peak;
    if (cli.flag("--peak")) peak = measurePeak(settings.threads, 2.0);
    Progress progress(variants.size() * sizes.size());
    std::vector<VariantPoint> points;
    for (const auto& id : variants)
        for (const std::int64_t n : sizes) {
            TimingRequest request;
            request.variant = id;
            request.shape = base;
            request.shape.n = n;
            request.overrides = cli.overrides();
            request.threads = settings.threads;
            request.budgetSeconds = settings.budget;
            request.useReference = cli.flag("--reference");
            progress.step(id + " n=" + std::to_string(n));
            points.push_back({id, request.shape, timeVariant(request)});
        }
    progress.finish();
    printVariantPoints(points, peak, settings);
    return 0;
}

int benchPeak(const BenchSettings& settings) {
    const PeakResult peak = measurePeak(settings.threads, std::max(1.0, 2.0 * settings.budget));
    if (settings.json) {
        JsonWriter json;
        writePeakJson(json, peak);
        std::printf("%s\n", json.str().c_str());
    } else {
        printPeak(peak);
    }
    return 0;
}

// --layer ---------------------------------------------------------------------------------------

struct LayerPoint {
    std::int64_t n = 0;
    LayerPartTimes layer;
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

int benchLayer(const CliArgs& cli, const BenchSettings& settings) {
    const std::string variant = cli.value("--variant").value_or("full");
    const std::vector<std::int64_t> sizes = parseSizes(cli.value("--n").value_or("256,512,1024,2048,4096,8192"));
    ProblemShape shape = readShape(cli);
    shape.dv = shape.d;
    const std::int64_t width = shape.heads * shape.d;
    for (const std::int64_t n : sizes) {
        shape.n = n;
        prepareParams(requireVariant(variant), shape, cli.overrides());
    }
    Progress progress(sizes.size());
    // One unmeasured pass at the smallest n: the first products after start-up run slow while the GEMM
    // library starts its threads and the cores raise their clocks, and would skew the first point.
    shape.n = sizes.front();
    timeLayerParts(variant, shape, cli.overrides(), settings.threads, settings.budget);
    std::vector<LayerPoint> points;
    for (const std::int64_t n : sizes) {
        progress.step("layer n=" + std::to_string(n));
        shape.n = n;
        LayerPoint point;
        point.n = n;
        point.layer = timeLayerParts(variant, shape, cli.overrides(), settings.threads, settings.budget);
        TimingRequest linear;
        linear.variant = "linear";
        linear.shape = shape;
        linear.shape.d = linear.shape.dv = 4 * shape.d;
        linear.threads = settings.threads;
        linear.budgetSeconds = settings.budget / 4;
        linear.minRepeats = 2;
        point.linearCore = timeVariant(linear).medianSeconds;
        point.gau = timeGauLayer(n, width, shape.causal, settings.threads, settings.budget);
        points.push_back(point);
    }
    progress.finish();

    const MeasuredCrossover overFfn =
        findCrossover(points, [](const LayerPoint& p) { return p.attentionWithProjections() / p.layer.ffn; });
    const MeasuredCrossover dominates =
        findCrossover(points, [](const LayerPoint& p) { return p.layer.attention / p.restOfLayer(); });
    const MeasuredCrossover linearWins =
        findCrossover(points, [](const LayerPoint& p) { return p.layer.attention / p.linearCore; });
    const double model2hd = attentionOvertakesFfn(shape.heads, shape.d), model6hd = quadraticDominates(shape.heads, shape.d),
                 model16d = linearPaysOff(shape.d);

    if (settings.json) {
        JsonWriter json;
        json.beginObject();
        json.key("variant").value(variant);
        json.key("d").value(static_cast<long long>(shape.d));
        json.key("heads").value(shape.heads);
        json.key("causal").value(shape.causal);
        json.key("threads").value(settings.threads);
        json.key("points").beginArray();
        for (const auto& p : points) {
            json.beginObject();
            json.key("n").value(static_cast<long long>(p.n));
            json.key("qkv_proj_s").value(p.layer.qkvProj);
            json.key("attention_s").value(p.layer.attention);
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
        auto crossing = [&](const char* name, const MeasuredCrossover& c, double model) {
            json.key(name).beginObject();
            json.key("measured_n");
            if (c.n) json.value(*c.n); else json.null();
            json.key("measured_text").value(crossoverText(c, points));
            json.key("cost_model_n").value(model);
            json.endObject();
        };
        json.key("crossovers").beginObject();
        crossing("attention_exceeds_ffn", overFfn, model2hd);
        crossing("quadratic_dominates", dominates, model6hd);
        crossing("linear_4d_beats_full", linearWins, model16d);
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
                variant.c_str(), shape.heads, static_cast<long long>(shape.d), static_cast<long long>(width),
                shape.causal ? ", causal" : "", settings.threads);
    std::printf("%7s %9s %10s %9s %9s %10s %7s %12s %10s\n", "n", "qkv_proj", "attention", "out_proj", "ffn", "layer",
                "attn %", "linear(4d)", "GAU layer");
    for (const auto& p : points)
        std::printf("%7lld %9.2f %10.2f %9.2f %9.2f %10.2f %6.1f%% %12.2f %10.2f\n", static_cast<long long>(p.n),
                    1e3 * p.layer.qkvProj, 1e3 * p.layer.attention, 1e3 * p.layer.outProj, 1e3 * p.layer.ffn,
                    1e3 * p.layer.total(), 100.0 * p.layer.attention / p.layer.total(), 1e3 * p.linearCore,
                    1e3 * p.gau.total());
    std::printf("crossovers (measured vs cost model):\n");
    std::printf("  self-attention (projections + core) > FFN   n = %-10s  cost model 2hd = %.0f\n",
                crossoverText(overFfn, points).c_str(), model2hd);
    std::printf("  attention core > rest of the layer          n = %-10s  cost model 6hd = %.0f\n",
                crossoverText(dominates, points).c_str(), model6hd);
    std::printf("  linear elu at 4d faster than full core      n = %-10s  cost model 16d = %.0f\n",
                crossoverText(linearWins, points).c_str(), model16d);
    return 0;
}

// --targets -------------------------------------------------------------------------------------

struct TargetRow {
    std::string name;
    double measured = 0;
    std::string goal;
    bool met = false;
    std::string detail;
};

TimingResult timeShape(const std::string& variant, std::int64_t n, bool causal, const ParamOverrides& overrides,
                       int threads, int minRepeats, double budget) {
    TimingRequest request;
    request.variant = variant;
    request.shape.heads = 12;
    request.shape.n = n;
    request.shape.d = 64;
    request.shape.dv = 64;
    request.shape.causal = causal;
    request.overrides = overrides;
    request.threads = threads;
    request.minRepeats = minRepeats;
    request.budgetSeconds = budget;
    return timeVariant(request);
}

double eluRecurrenceSeconds(std::int64_t n, int threads) {
    const auto data = generateInputs(GeneratedKind::Gaussian, 12, n, 64, 64, 1);
    const AttentionInputs inputs{&data.q, &data.k, &data.v};
    RunOptions options;
    options.causal = true;
    options.threads = threads;
    RunResult previous; // the output is reused as timeVariant reuses the kernels' outputs
    options.recycle = &previous;
    const auto once = [&] {
        previous = runEluRecurrence(inputs, options);
        return !previous.cancelled;
    };
    return timeRepeated(once, 0.5, 3, 100).medianSeconds;
}

double patternDensity(const std::string& variant, std::int64_t n, bool causal, const ParamOverrides& overrides) {
    ProblemShape shape;
    shape.n = n;
    shape.d = shape.dv = 64;
    shape.causal = causal;
    const VariantInfo& info = requireVariant(variant);
    const auto pattern = buildPattern(info, shape, prepareParams(info, shape, overrides));
    return static_cast<double>(pattern->nnz()) / (static_cast<double>(n) * static_cast<double>(n));
}

int benchTargets(const BenchSettings& settings) {
    const int threads = settings.threads;
    Progress progress(8);
    // First, while the process has allocated nothing large: peak resident memory only shows what no
    // earlier measurement left behind for reuse.
    progress.step("full n=16384");
    const TimingResult longBidirectional = timeShape("full", 16384, false, {}, threads, 2, 0.0);
    progress.step("FMA peak and sgemm");
    const PeakResult peak = measurePeak(threads, 3.0);
    progress.step("full n=4096");
    const TimingResult bidirectional = timeShape("full", 4096, false, {}, threads, 5, 2.0);
    progress.step("full causal n=4096");
    const TimingResult causal = timeShape("full", 4096, true, {}, threads, 5, 2.0);
    progress.step("full causal n=16384");
    const TimingResult longCausal = timeShape("full", 16384, true, {}, threads, 2, 0.0);
    progress.step("longformer window 512 n=16384");
    const ParamOverrides window = {{"window", "512"}};
    const TimingResult longformer = timeShape("longformer", 16384, false, window, threads, 3, 1.0);
    progress.step("linear elu causal n=16384");
    const TimingResult linear = timeShape("linear", 16384, true, {{"kernel", "elu"}}, threads, 5, 1.0);
    progress.step("per-token recurrence n=16384");
    const double recurrence = eluRecurrenceSeconds(16384, threads);
    progress.finish();

    const double density = patternDensity("longformer", 16384, false, window);
    const double outputBytes = 4.0 * 12 * 16384 * 64;
    const double mib = 1024.0 * 1024.0;
    std::vector<TargetRow> rows;
    char detail[160];
    std::snprintf(detail, sizeof detail, "%.1f GFLOP/s of %.1f FMA peak (%.3f s)", bidirectional.gflops,
                  peak.fmaGflops, bidirectional.medianSeconds);
    rows.push_back({"full bidirectional n=4096 h=12 d=64: fraction of FMA peak", bidirectional.gflops / peak.fmaGflops,
                    ">= 0.50 (stretch 0.60)", bidirectional.gflops / peak.fmaGflops >= 0.5, detail});
    std::snprintf(detail, sizeof detail, "%.3f s / %.3f s", causal.medianSeconds, bidirectional.medianSeconds);
    rows.push_back({"full causal / bidirectional time, n=4096", causal.medianSeconds / bidirectional.medianSeconds,
                    "<= 0.60", causal.medianSeconds / bidirectional.medianSeconds <= 0.6, detail});
    const double allowance = outputBytes + 64 * mib;
    std::snprintf(detail, sizeof detail, "%.1f MiB extra (outputs %.1f MiB; inputs %.1f MiB exist before)",
                  longBidirectional.peakExtraBytes / mib, outputBytes / mib, 3 * outputBytes / mib);
    rows.push_back({"full tiled n=16384: peak extra / (outputs + 64 MiB)", longBidirectional.peakExtraBytes / allowance,
                    "<= 1", longBidirectional.peakExtraBytes <= allowance, detail});
    const double sparseBound = density * longBidirectional.medianSeconds;
    std::snprintf(detail, sizeof detail, "%.3f s vs density %.4f x full %.3f s", longformer.medianSeconds, density,
                  longBidirectional.medianSeconds);
    rows.push_back({"longformer w=512 n=16384: time / (density x full time)", longformer.medianSeconds / sparseBound,
                    "<= 2", longformer.medianSeconds <= 2 * sparseBound, detail});
    std::snprintf(detail, sizeof detail, "%.3f s vs %.3f s", linear.medianSeconds, longCausal.medianSeconds);
    rows.push_back({"linear elu causal n=16384: speed-up over full causal", longCausal.medianSeconds / linear.medianSeconds,
                    ">= 10", longCausal.medianSeconds >= 10 * linear.medianSeconds, detail});
    std::snprintf(detail, sizeof detail, "%.4f s vs %.4f s", linear.medianSeconds, recurrence);
    rows.push_back({"linear elu causal n=16384: speed-up over per-token recurrence", recurrence / linear.medianSeconds,
                    ">= 5", recurrence >= 5 * linear.medianSeconds, detail});

    if (settings.json) {
        JsonWriter json;
        json.beginObject();
        json.key("peak");
        writePeakJson(json, peak);
        json.key("targets").beginArray();
        for (const auto& row : rows) {
            json.beginObject();
            json.key("target").value(row.name);
            json.key("measured").value(row.measured);
            json.key("goal").value(row.goal);
            json.key("met").value(row.met);
            json.key("detail").value(row.detail);
            json.endObject();
        }
        json.endArray();
        json.endObject();
        std::printf("%s\n", json.str().c_str());
        return 0;
    }
    printPeak(peak);
    std::printf("%-62s %9s  %-22s %-4s %s\n", "target", "measured", "goal", "met", "detail");
    for (const auto& row : rows)
        std::printf("%-62s %9.3f  %-22s %-4s %s\n", row.name.c_str(), row.measured, row.goal.c_str(),
                    row.met ? "yes" : "NO", row.detail.c_str());
    return 0;
}

} // namespace

int benchCommand(const std::vector<std::string>& args) {
    if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
        std::fputs(kBenchHelp, stdout);
        return 0;
    }
    const CliArgs cli("bench", args, {"--variant", "--n", "--d", "--dv", "--heads", "--threads", "--budget"},
                      {"--causal", "--json", "--csv", "--peak", "--layer", "--targets", "--reference"});
    if (cli.flag("--targets")) return benchTargets(readSettings(cli, 2));
    const BenchSettings settings = readSettings(cli, defaultThreadCount());
    if (cli.flag("--layer")) return benchLayer(cli, settings);
    if (cli.value("--variant")) return benchVariants(cli, settings);
    if (cli.flag("--peak")) return benchPeak(settings);
    throw InputError("attnlab bench: give --variant, --peak, --layer or --targets (see attnlab bench --help)");
}

} // namespace attnlab
