#include "app/bench/bench_support.h"
#include "app/model_option.h"

#include "core/cost/job_limits.h"
#include "core/errors.h"
#include "core/io/json_writer.h"
#include "core/measure/machine_peak.h"
#include "core/registry.h"

#include <algorithm>
#include <cmath>
#include <utility>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <unistd.h>

namespace attnlab {

BenchSettings readBenchSettings(const CliArgs& cli, int defaultThreads) {
    BenchSettings settings;
    settings.threads = static_cast<int>(cli.integer("--threads", defaultThreads, 1, 1024));
    if (const auto budget = cli.value("--budget")) {
        char* end = nullptr;
        settings.budget = std::strtod(budget->c_str(), &end);
        if (end == budget->c_str() || *end != '\0' || !(settings.budget >= 0) || settings.budget > 3600)
            throw InputError("attnlab bench: --budget expects seconds in [0, 3600], got '" + *budget + "'");
        settings.budgetGiven = true;
    }
    settings.json = cli.flag("--json");
    settings.csv = cli.flag("--csv");
    if (settings.json && settings.csv) throw InputError("attnlab bench: --json and --csv exclude each other");
    settings.triadArrayBytes = cli.integer("--stream-mib", 0, 1, 1 << 16) << 20;
    if (settings.triadArrayBytes > 0) requireTriadMemory(settings.triadArrayBytes); // before any mode measures
    return settings;
}

void requireModeOptions(const CliArgs& cli, const std::string& mode, const std::vector<std::string>& taken) {
    const auto takes = [&taken](const std::string& option) {
        return std::find(taken.begin(), taken.end(), option) != taken.end();
    };
    for (const char* option : {"--variant", "--n", "--d", "--dv", "--heads", "--kv-heads", "--kv-dtype", "--model", "--threads", "--budget",
                               "--stream-mib", "--causal", "--json", "--csv", "--peak", "--reference", "--grid", "--order", "--queries"}) {
        const bool given = cli.value(option).has_value() || cli.flag(option);
        if (given && !takes(option))
            throw InputError("attnlab bench: " + mode + " does not take " + option + " (see attnlab bench --help)");
    }
    if (!cli.overrides().empty() && !takes("--set"))
        throw InputError("attnlab bench: " + mode + " does not take --set (see attnlab bench --help)");
}

double pointBudget(const BenchSettings& settings, double defaultSeconds) {
    return settings.budgetGiven ? settings.budget : defaultSeconds;
}

void requireBenchPoint(const std::string& variant, const ProblemShape& shape, const ParamOverrides& overrides) {
    const VariantInfo& info = requireVariant(variant);
    requireRunLimits(info, shape, prepareParams(info, shape, overrides), false);
}

ProblemShape readBenchShape(const CliArgs& cli) {
    const ModelShape* model = modelOption(cli);
    ProblemShape shape;
    shape.d = cli.integer("--d", model ? model->d : 64, 1, 1 << 16);
    shape.dv = cli.integer("--dv", shape.d, 1, 1 << 16);
    shape.heads = static_cast<int>(cli.integer("--heads", model ? model->heads : 12, 1, 1 << 12));
    shape.causal = cli.flag("--causal");
    return shape;
}

std::string sizesText(const CliArgs& cli, const std::string& fallback) {
    if (const auto given = cli.value("--n")) return *given;
    const ModelShape* model = modelOption(cli);
    return model ? std::to_string(model->contextLength) : fallback;
}

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

std::vector<std::string> variantsOrAll(const CliArgs& cli, bool causal) {
    if (const auto given = cli.value("--variant")) return splitList(*given);
    std::vector<std::string> ids;
    const CausalSupport excluded = causal ? CausalSupport::BidirectionalOnly : CausalSupport::CausalOnly;
    for (const VariantInfo& variant : allVariants())
        if (variant.causalSupport != excluded) ids.push_back(variant.id);
    return ids;
}

Progress::Progress(std::size_t total) : m_total(total), m_enabled(isatty(fileno(stderr)) != 0) {}

void Progress::step(const std::string& label) {
    if (!m_enabled) return;
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", ++m_done, m_total, label.c_str());
    std::fflush(stderr);
}

void Progress::finish() {
    if (m_enabled) std::fprintf(stderr, "\r\033[K");
}

TimingResult timeAttention(const std::string& variant, std::int64_t n, bool causal, const ParamOverrides& overrides,
                           int threads, int minRepeats, double budget, int heads, std::int64_t headSize,
                           std::int64_t queries, TokenGridPtr grid) {
    TimingRequest request;
    request.variant = variant;
    request.shape.heads = heads;
    request.shape.n = n;
    request.shape.queries = queries;
    request.shape.d = headSize;
    request.shape.dv = headSize;
    request.shape.causal = causal;
    request.shape.grid = std::move(grid);
    request.overrides = overrides;
    request.threads = threads;
    request.minRepeats = minRepeats;
    request.budgetSeconds = budget;
    return timeVariant(request);
}

TimingRequest variantTimingRequest(const std::string& variant, const ProblemShape& shape, const CliArgs& cli,
                                   const BenchSettings& settings) {
    TimingRequest request;
    request.variant = variant;
    request.shape = shape;
    request.overrides = cli.overrides();
    request.threads = settings.threads;
    request.budgetSeconds = settings.budget;
    request.useReference = cli.flag("--reference");
    return request;
}

PeakResult measureBenchPeak(const BenchSettings& settings, double budgetSeconds) {
    const double budget = budgetSeconds > 0 ? budgetSeconds : std::max(1.0, 2.0 * settings.budget);
    return measurePeak(settings.threads, budget, 2048, settings.triadArrayBytes);
}

void writePeakJson(JsonWriter& json, const PeakResult& peak) {
    json.beginObject();
    json.key("threads").value(peak.threads);
    json.key("fma_gflops").value(peak.fmaGflops);
    json.key("fma_kernel").value(peak.fmaKernel);
    json.key("sgemm_gflops").value(peak.sgemmGflops);
    json.key("sgemm_size").value(static_cast<long long>(peak.sgemmSize));
    json.key("gemm_engine").value(peak.gemmEngine);
    json.key("bandwidth_gbs").value(peak.bandwidthGBs);
    json.key("bandwidth_convention").value("triad a = b + s*c, 12 bytes per element (write-allocate not counted)");
    json.key("triad_array_bytes").value(static_cast<long long>(peak.triadArrayBytes));
    json.key("last_level_cache_bytes").value(static_cast<long long>(peak.lastLevelCacheBytes));
    json.endObject();
}

void beginResultsJson(JsonWriter& json, int threads, const PeakResult* peak) {
    json.beginObject();
    json.key("threads").value(threads);
    if (peak) {
        json.key("peak");
        writePeakJson(json, *peak);
    }
}

void finishResultsJson(JsonWriter& json) {
    json.endArray();
    json.endObject();
    std::printf("%s\n", json.str().c_str());
}

void printPeak(const PeakResult& peak) {
    const double mib = 1024.0 * 1024.0;
    std::printf("threads %d: fp32 FMA peak %.1f GFLOP/s (%s); sgemm %lld^3 on %s %.1f GFLOP/s (%.0f%% of FMA peak)\n",
                peak.threads, peak.fmaGflops, peak.fmaKernel.c_str(), static_cast<long long>(peak.sgemmSize),
                peak.gemmEngine.c_str(), peak.sgemmGflops, 100.0 * peak.sgemmGflops / peak.fmaGflops);
    std::printf("memory bandwidth %.1f GB/s (triad a = b + s*c over 3 x %.0f MiB, last-level cache %.0f MiB; "
                "12 bytes per element)\n",
                peak.bandwidthGBs, peak.triadArrayBytes / mib, peak.lastLevelCacheBytes / mib);
}

} // namespace attnlab
