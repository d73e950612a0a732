#include "app/bench/bench_targets.h"
#include "app/bench/bench_modes.h"

#include "core/io/json_writer.h"
#include "core/kernels/elu_recurrence.h"
#include "core/random/input_generator.h"
#include "core/registry.h"

#include <cstdio>

namespace attnlab {

namespace {

// Queries of the chunked-prefill target: a chunk of new tokens over a cache of kTargetLength.
constexpr std::int64_t kChunkQueries = 512;

double eluRecurrenceSeconds(std::int64_t n, int threads, double budgetSeconds) {
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
    return timeRepeated(once, budgetSeconds, 3, 100).medianSeconds;
}

double patternDensity(const std::string& variant, std::int64_t n, bool causal,
                      const ParamOverrides& overrides) {
    ProblemShape shape;
    shape.n = n;
    shape.d = shape.dv = 64;
    shape.causal = causal;
    const VariantInfo& info = requireVariant(variant);
    const auto pattern = buildPattern(info, shape, prepareParams(info, shape, overrides));
    return static_cast<double>(pattern->nnz()) / (static_cast<double>(n) * static_cast<double>(n));
}

// The kernel targets: full attention's rate and memory, longformer against its density, linear attention
// against full and against its per-token recurrence, a chunk of prefill over a cache against prefill.
std::vector<TargetRow> kernelTargets(const BenchSettings& settings, const FullAtLength& full,
                                     const PeakResult& peak, Progress& progress) {
    progress.step("full n=4096");
    const TimingResult bidirectional =
        timeAttention("full", 4096, false, {}, settings.threads, 5, pointBudget(settings, 2.0));
    progress.step("full causal n=4096");
    const TimingResult causal =
        timeAttention("full", 4096, true, {}, settings.threads, 5, pointBudget(settings, 2.0));
    progress.step("longformer window 512 n=16384");
    const ParamOverrides window = {{"window", "512"}};
    const TimingResult longformer = timeAttention("longformer", kTargetLength, false, window,
                                                  settings.threads, 3, pointBudget(settings, 1.0));
    progress.step("linear elu causal n=16384");
    const TimingResult linear = timeAttention("linear", kTargetLength, true, {{"kernel", "elu"}},
                                              settings.threads, 5, pointBudget(settings, 1.0));
    progress.step("per-token recurrence n=16384");
    const double recurrence =
        eluRecurrenceSeconds(kTargetLength, settings.threads, pointBudget(settings, 0.5));
    progress.step("full causal chunk of 512 queries over n=16384");
    const TimingResult chunk = timeAttention("full", kTargetLength, true, {}, settings.threads, 5,
                                             pointBudget(settings, 1.0), 12, 64, kChunkQueries);

    const double density = patternDensity("longformer", kTargetLength, false, window);
    const double outputBytes = 4.0 * 12 * kTargetLength * 64;
    const double mib = 1024.0 * 1024.0;
    const TimingResult& longBidirectional = full.bidirectional;
    const TimingResult& longCausal = full.causal;
    std::vector<TargetRow> rows;
    char detail[160];
    std::snprintf(detail, sizeof detail, "%.1f GFLOP/s of %.1f FMA peak (%.3f s)", bidirectional.gflops,
                  peak.fmaGflops, bidirectional.medianSeconds);
    rows.push_back({"full bidirectional n=4096 h=12 d=64: fraction of FMA peak",
                    bidirectional.gflops / peak.fmaGflops, ">= 0.50 (stretch 0.60)",
                    bidirectional.gflops / peak.fmaGflops >= 0.5, detail});
    std::snprintf(detail, sizeof detail, "%.3f s / %.3f s", causal.medianSeconds,
                  bidirectional.medianSeconds);
    rows.push_back({"full causal / bidirectional time, n=4096",
                    causal.medianSeconds / bidirectional.medianSeconds, "<= 0.60",
                    causal.medianSeconds / bidirectional.medianSeconds <= 0.6, detail});
    const double allowance = outputBytes + 64 * mib;
    std::snprintf(detail, sizeof detail, "%.1f MiB extra (outputs %.1f MiB; inputs %.1f MiB exist before)",
                  longBidirectional.peakExtraBytes / mib, outputBytes / mib, 3 * outputBytes / mib);
    rows.push_back({"full tiled n=16384: peak extra / (outputs + 64 MiB)",
                    longBidirectional.peakExtraBytes / allowance, "<= 1",
                    longBidirectional.peakExtraBytes <= allowance, detail});
    const double sparseBound = density * longBidirectional.medianSeconds;
    std::snprintf(detail, sizeof detail, "%.3f s vs density %.4f x full %.3f s", longformer.medianSeconds,
                  density, longBidirectional.medianSeconds);
    rows.push_back({"longformer w=512 n=16384: time / (density x full time)",
                    longformer.medianSeconds / sparseBound, "<= 2",
                    longformer.medianSeconds <= 2 * sparseBound, detail});
    std::snprintf(detail, sizeof detail, "%.3f s vs %.3f s", linear.medianSeconds, longCausal.medianSeconds);
    rows.push_back({"linear elu causal n=16384: speed-up over full causal",
                    longCausal.medianSeconds / linear.medianSeconds, ">= 10",
                    longCausal.medianSeconds >= 10 * linear.medianSeconds, detail});
    std::snprintf(detail, sizeof detail, "%.4f s vs %.4f s", linear.medianSeconds, recurrence);
    rows.push_back({"linear elu causal n=16384: speed-up over per-token recurrence",
                    recurrence / linear.medianSeconds, ">= 5", recurrence >= 5 * linear.medianSeconds,
                    detail});
    std::snprintf(detail, sizeof detail, "%.1f GFLOP/s (%.4f s) vs prefill %.1f GFLOP/s (%.3f s)",
                  chunk.gflops, chunk.medianSeconds, longCausal.gflops, longCausal.medianSeconds);
    rows.push_back({"full causal 512-query chunk over n=16384: GFLOP/s / causal prefill's",
                    chunk.gflops / longCausal.gflops, ">= 0.60", chunk.gflops >= 0.6 * longCausal.gflops,
                    detail});
    return rows;
}

constexpr std::size_t kKernelTargetSteps = 6;

void printTargets(const std::vector<TargetRow>& rows, const PeakResult& peak, const BenchSettings& settings) {
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
        return;
    }
    printPeak(peak);
    std::printf("%-68s %9s  %-22s %-4s %s\n", "target", "measured", "goal", "met", "detail");
    for (const auto& row : rows)
        std::printf("%-68s %9.3f  %-22s %-4s %s\n", row.name.c_str(), row.measured, row.goal.c_str(),
                    row.met ? "yes" : "NO", row.detail.c_str());
}

} // namespace

int benchTargets(const BenchSettings& settings) {
    Progress progress(3 + kKernelTargetSteps + patternTargetSteps() + orderTargetSteps() + decodeTargetSteps());
    // First, while the process has allocated nothing large: peak resident memory only shows what no
    // earlier measurement left behind for reuse.
    FullAtLength full;
    progress.step("full n=16384");
    full.bidirectional =
        timeAttention("full", kTargetLength, false, {}, settings.threads, 2, pointBudget(settings, 0.0));
    progress.step("FMA peak, sgemm and memory bandwidth");
    const PeakResult peak = measureBenchPeak(settings, 3.0);
    progress.step("full causal n=16384");
    full.causal =
        timeAttention("full", kTargetLength, true, {}, settings.threads, 2, pointBudget(settings, 0.0));
    std::vector<TargetRow> rows = kernelTargets(settings, full, peak, progress);
    for (TargetRow& row : patternTargets(settings, full, peak, progress))
        rows.push_back(std::move(row));
    for (TargetRow& row : orderTargets(settings, progress))
        rows.push_back(std::move(row));
    for (TargetRow& row : decodeTargets(settings, peak, progress))
        rows.push_back(std::move(row));
    progress.finish();
    printTargets(rows, peak, settings);
    return 0;
}

} // namespace attnlab
