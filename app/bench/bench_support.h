#pragma once

// Pieces every `attnlab bench` mode shares: its settings, list parsing, the progress line, timing one
// attention shape, and how the machine's peak is printed.

#include "app/cli_args.h"

#include "core/measure/timing.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

struct BenchSettings {
    int threads = 1;
    double budget = 0.5; // seconds of timed repeats per point
    bool budgetGiven = false; // --budget was given: modes with their own per-point budgets use it instead
    bool json = false;
    bool csv = false;
    std::int64_t triadArrayBytes = 0; // --stream-mib; 0: as large as the last-level cache (at least 64 MiB)
};

BenchSettings readBenchSettings(const CliArgs& cli, int defaultThreads);

// The options each mode takes: anything else given with the mode is refused, so that an option the mode
// would ignore (--dv with --layer, --n with --targets) is not silently dropped.
void requireModeOptions(const CliArgs& cli, const std::string& mode, const std::vector<std::string>& taken);

// A mode's per-point repeat budget: --budget when given, else the mode's own default.
double pointBudget(const BenchSettings& settings, double defaultSeconds);

// The job limits (memory budget, work limit) of timing `variant` at `shape`, checked for every point
// before the first one is timed, so that an impossible point refuses the run at once.
void requireBenchPoint(const std::string& variant, const ProblemShape& shape, const ParamOverrides& overrides);

// --d, --dv, --heads and --causal (n is set per point), --model's shape for those not given.
ProblemShape readBenchShape(const CliArgs& cli);

// The text of --n, else --model's context length, else `fallback`.
std::string sizesText(const CliArgs& cli, const std::string& fallback);

std::vector<std::string> splitList(const std::string& text);

// --n: positive integers separated by commas.
std::vector<std::int64_t> parseSizes(const std::string& text);

// Variant ids from --variant, or every registered variant that supports the causal mode asked for.
std::vector<std::string> variantsOrAll(const CliArgs& cli, bool causal);

// "\r[k/total] label" on stderr while a terminal is watching; cleared by finish().
class Progress {
public:
    explicit Progress(std::size_t total);
    void step(const std::string& label);
    void finish();

private:
    std::size_t m_total;
    std::size_t m_done = 0;
    bool m_enabled;
};

// Times `variant` at n with h heads of size d = dv = `headSize` (the targets' shape unless told otherwise),
// the last `queries` positions querying (0: all n), its tokens on `grid` when given (of n cells).
TimingResult timeAttention(const std::string& variant, std::int64_t n, bool causal, const ParamOverrides& overrides,
                           int threads, int minRepeats, double budget, int heads = 12, std::int64_t headSize = 64,
                           std::int64_t queries = 0, TokenGridPtr grid = nullptr);

// The timing of one --variant point: the shape, --set overrides, threads, budget and --reference.
TimingRequest variantTimingRequest(const std::string& variant, const ProblemShape& shape, const CliArgs& cli,
                                   const BenchSettings& settings);

// The peak with twice the per-point budget of timed passes (at least 1 s, so one busy moment of the
// machine cannot set the FMA peak) unless
// `budgetSeconds` is given, and the triad arrays --stream-mib asks for.
PeakResult measureBenchPeak(const BenchSettings& settings, double budgetSeconds = 0);

class JsonWriter;
void writePeakJson(JsonWriter& json, const PeakResult& peak);
// The records every mode's --json prints: `{"threads": …, "peak": {…} (when measured), …, "results": [`
// begun here, the caller's keys between; then the records, and finishResultsJson closes and prints it.
void beginResultsJson(JsonWriter& json, int threads, const PeakResult* peak);
void finishResultsJson(JsonWriter& json);
void printPeak(const PeakResult& peak);

} // namespace attnlab
