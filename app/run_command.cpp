#include "app/cli_args.h"
#include "app/commands.h"
#include "app/grid_options.h"
#include "app/run_request.h"

#include "core/cost/cost_model.h"
#include "core/cost/job_limits.h"
#include "core/errors.h"
#include "core/io/input_files.h"
#include "core/io/npy_io.h"
#include "core/registry.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace attnlab {

namespace {

constexpr const char* kRunHelp = R"(usage: attnlab run --variant ID [--causal] [--set KEY=VALUE]... --q Q.npy [--k K.npy] --v V.npy
                   --out O.npy [--weights W.npy] [--queries M] [--threads T] [--reference] [--grid H,W | T,H,W [--order ORDER]]

Computes one attention variant. Q, K, V: float32 or float64 NPY, all [h, n, d] or all [n, d]; V may
have its own last dimension. K and V may hold fewer heads than Q (grouped key/value heads, as in
GQA/MQA): [h_kv, n, d] and [h_kv, n, dv] with h_kv dividing h; query head t reads key/value head
floor(t*h_kv/h). Writes out (float32, V's shape) and, with --weights, the effective
weights W (float32 [h, n, n] or [n, n]) with out = W·V. --k is required except for lsh with
shared_qk=true. --reference runs the plain reference kernels. See `attnlab variants` for the ids
and parameters. --grid and --order lay the n tokens on an image or video grid (H*W or T*H*W must be
Q's n) for custom's grid primitives (docs/grids.md).
--queries M: queries that are not the whole sequence (a chunk of prefill over a cache, or M tokens
verified at once): Q holds the last M positions (n-M ... n-1) as its M rows, K and V all n; out and
weights have M rows, and causal means key j <= n-M+i for query row i. K is then always required (for
lsh with shared_qk it holds every position's query). Q with fewer rows than K and V is a shape
mismatch unless --queries says so. Not for linear, performer, linformer and mixed_chunk.
)";

// The sizes the files are written from; a kernel that broke them would otherwise be read past.
void checkResult(const RunResult& result, const ProblemShape& shape, bool wantWeights) {
    const auto rows = static_cast<std::size_t>(shape.heads) * static_cast<std::size_t>(shape.queryRows());
    if (result.out.values.size() != rows * static_cast<std::size_t>(shape.dv))
        throw std::logic_error("variant returned " + std::to_string(result.out.values.size()) + " output values");
    if (wantWeights && (!result.weights || result.weights->values.size() != rows * static_cast<std::size_t>(shape.n)))
        throw std::logic_error("variant returned no or misshaped weights");
}

// Finite inputs can still overflow float32 inside a kernel (a score q·k/√d beyond 3.4e38, linear
// attention's sums): such a result is refused with the first row it reaches, and nothing is written.
void requireFinite(const FloatStorage& values, std::int64_t rowLength, std::int64_t rowsPerHead, const char* what) {
    const auto bad = std::find_if(values.begin(), values.end(), [](float x) { return !std::isfinite(x); });
    if (bad == values.end()) return;
    const auto row = static_cast<std::int64_t>(bad - values.begin()) / rowLength;
    throw InputError(std::string("the ") + what + " of head " + std::to_string(row / rowsPerHead) + ", row " + std::to_string(row % rowsPerHead) +
                     " is " + (std::isnan(*bad) ? "NaN" : "Inf") +
                     ": the inputs are finite, but a score or sum overflows float32 (largest 3.4e38); scale Q, K or V down");
}

// --queries M within [1, n], equal to Q's rows; 0 (every position) when M = n.
std::int64_t queriesOf(const CliArgs& cli, std::int64_t n, std::int64_t qRows) {
    const std::int64_t m = cli.integer("--queries", n, 1, n);
    if (qRows != m)
        throw InputError("Q has " + std::to_string(qRows) + " rows but --queries is " + std::to_string(m) +
                         " (Q holds the last M positions' queries)");
    return m == n ? 0 : m;
}

} // namespace

std::vector<std::int64_t> runOutputShape(const InputFiles& files, std::int64_t cols) {
    if (files.twoDimensional) return {files.q.rows, cols};
    return {files.q.heads, files.q.rows, cols};
}

CliArgs runArgs(const std::vector<std::string>& args) {
    return CliArgs("run", args, {"--variant", "--q", "--k", "--v", "--out", "--weights", "--threads", "--grid", "--order", "--queries"},
                   {"--causal", "--reference"});
}

RunPlan planRun(const CliArgs& cli, InputFiles& files, const KeyReader& readKeys, bool wantWeights) {
    RunPlan plan;
    plan.variant = &requireVariant(cli.required("--variant"));
    plan.wantWeights = wantWeights;
    cli.integer("--threads", defaultThreadCount(), 1, 1024);
    const TokenGridPtr grid = gridOption(cli);
    ProblemShape& shape = plan.shape;
    shape.heads = files.q.heads;
    shape.n = files.v.rows;
    if (files.fewerQueries) shape.queries = queriesOf(cli, shape.n, files.q.rows);
    shape.d = files.q.cols;
    shape.dv = files.v.cols;
    shape.kvHeads = files.v.heads;
    shape.causal = cli.flag("--causal");
    if (grid && grid->cells() != shape.n)
        throw InputError("--grid " + grid->sizeText() + " has " + std::to_string(grid->cells()) + " cells but Q has n = " +
                         std::to_string(shape.n));
    shape.grid = grid;
    plan.params = prepareParams(*plan.variant, shape, cli.overrides());
    // The parameters, resolved against Q's and V's shape, decide whether K is needed.
    plan.needsKeys = !plan.variant->needsKeys || plan.variant->needsKeys(plan.params) || shape.queries > 0;
    if (plan.needsKeys) readKeys(files, plan.variant->id);
    requireRunLimits(*plan.variant, shape, plan.params, wantWeights);
    return plan;
}

RunResult executeRun(const CliArgs& cli, const RunPlan& plan, const InputFiles& files) {
    AttentionInputs inputs{&files.q, plan.needsKeys ? &files.k : nullptr, &files.v};
    RunOptions options;
    options.causal = plan.shape.causal;
    options.grid = plan.shape.grid;
    options.params = plan.params;
    options.threads = static_cast<int>(cli.integer("--threads", defaultThreadCount(), 1, 1024));
    options.wantWeights = plan.wantWeights;
    options.useReference = cli.flag("--reference");
    RunResult result = plan.variant->run(inputs, options);
    checkResult(result, plan.shape, options.wantWeights);
    requireFinite(result.out.values, plan.shape.dv, plan.shape.queryRows(), "output");
    if (result.weights) requireFinite(result.weights->values, plan.shape.n, plan.shape.queryRows(), "weights");
    return result;
}

int runCommand(const std::vector<std::string>& args) {
    if (asksForHelp(args)) {
        std::fputs(kRunHelp, stdout);
        return 0;
    }
    const CliArgs cli = runArgs(args);
    // The options are refused before large inputs are read; planRun reads them again with the inputs.
    requireVariant(cli.required("--variant"));
    const std::string outPath = cli.required("--out");
    const auto weightsPath = cli.value("--weights");
    cli.integer("--threads", defaultThreadCount(), 1, 1024);
    const std::string qPath = cli.required("--q"), vPath = cli.required("--v");
    gridOption(cli);
    std::vector<NamedPath> outputs = {{"--out", outPath}};
    if (weightsPath) outputs.emplace_back("--weights", *weightsPath);
    std::vector<NamedPath> inputFiles = {{"--q", qPath}, {"--v", vPath}};
    if (const auto kPath = cli.value("--k")) inputFiles.emplace_back("--k", *kPath);
    refuseOverlappingFiles(outputs, inputFiles);

    InputFiles files = readInputFiles(qPath, "", vPath, cli.value("--queries").has_value());
    const RunPlan plan = planRun(cli, files, [&](InputFiles& loaded, const std::string& variant) {
        const auto kPath = cli.value("--k");
        if (!kPath) throw InputError("--k is required for variant '" + variant + "'");
        readKeys(loaded, *kPath);
    }, weightsPath.has_value());

    PendingFile outFile(outPath);
    std::optional<PendingFile> weightsFile;
    if (weightsPath) weightsFile.emplace(*weightsPath);
    const RunResult result = executeRun(cli, plan, files);

    writeNpyFloat32(outFile, runOutputShape(files, plan.shape.dv), result.out.values.data());
    if (weightsFile) writeNpyFloat32(*weightsFile, runOutputShape(files, plan.shape.n), result.weights->values.data());
    std::vector<PendingFile*> written = {&outFile};
    if (weightsFile) written.push_back(&*weightsFile);
    commitTogether(written);
    return 0;
}

} // namespace attnlab
