#include "app/cli_args.h"
#include "app/commands.h"
#include "app/grid_options.h"
#include "app/pattern_request.h"

#include "core/cost/job_limits.h"
#include "core/errors.h"
#include "core/io/input_files.h"
#include "core/io/npy_io.h"
#include "core/registry.h"

#include <cstdio>

namespace attnlab {

namespace {

constexpr const char* kPatternHelp = R"help(usage: attnlab pattern --variant ID --n N [--causal] [--set KEY=VALUE]... [--d D]
                       [--grid H,W | T,H,W [--order ORDER]] [--q Q.npy [--k K.npy]] [--head H] [--queries M]
                       [--components] --out M.npy
       attnlab pattern --variant ID --n N [--causal] [--set KEY=VALUE]... --print-expr

Writes the allowed set M of a variant as uint8 [n, n], 1 where query i may attend key j. Variants
without a mask (linear, performer, linformer, relu2, mixed_chunk) write where W may be non-zero.
Data-dependent patterns (lsh) need --q (and --k unless shared_qk) and give head H's mask (default 0).
--d (default 64, or Q's d) only matters for defaults that depend on d.
--components writes each allowed cell's component instead of 1: k >= 1 for the k-th part of the
pattern (for custom, the k-th top-level '|' term that first contains the cell), 255 for a diagonal
added to a row that would otherwise be empty, 0 where not allowed.
--print-expr prints a pattern expression that `--variant custom --set expr=...` turns into the same
pattern and components (full, strided, fixed, longformer, chunk, xl).
--grid lays the tokens on an image (H,W) or a video (T,H,W): n = H*W (T*H*W), and --n may be left
out. --order (raster, tiles:a,b[,c] or morton; default raster) says which cell each position holds.
Built-in variants act on positions; custom's grid primitives (neighborhood, window, shifted_window,
tile_neighborhood, same_row, same_col, same_frame, same_pixel) act on cells. See docs/grids.md.
--queries M: only the last M query rows (positions n-M ... n-1) against all n keys, written as uint8
[M, n] (with --components too); causal keeps key j <= n-M+i in row i. With --q, Q holds those M rows
and --k all n positions (for lsh with shared_qk, every position's query). Not for linear, performer,
linformer and mixed_chunk. Examples:
  attnlab pattern --variant custom --n 64 --causal --set "expr=band(4) | sink(2)" --out m.npy
  attnlab pattern --variant custom --grid 16,16 --set "expr=neighborhood(5)" --out m.npy
)help";

PatternSource fileSource(const CliArgs& cli) {
    PatternSource source;
    if (const auto qPath = cli.value("--q"))
        source.queries = [qPath](bool fewerQueries) -> std::optional<InputFiles> { return readInputFiles(*qPath, "", "", fewerQueries); };
    else
        source.queries = [](bool) -> std::optional<InputFiles> { return std::nullopt; };
    const auto kPath = cli.value("--k");
    source.keysGiven = kPath.has_value();
    source.keys = [kPath](InputFiles& files) { readKeys(files, *kPath); };
    return source;
}

} // namespace

CliArgs patternArgs(const std::vector<std::string>& args) {
    return CliArgs("pattern", args, {"--variant", "--n", "--d", "--q", "--k", "--head", "--out", "--grid", "--order", "--queries"},
                   {"--causal", "--components", "--print-expr"});
}

PatternJob patternShape(const CliArgs& cli, const PatternSource& source) {
    PatternJob job;
    job.variant = &requireVariant(cli.required("--variant"));
    ProblemShape& shape = job.shape;
    shape.grid = gridOption(cli);
    shape.n = sizeWithGrid(cli, shape.grid.get());
    shape.d = cli.integer("--d", 64, 1, INT32_MAX);
    shape.dv = shape.d;
    shape.causal = cli.flag("--causal");
    job.rows = cli.integer("--queries", shape.n, 1, shape.n);
    shape.queries = job.rows == shape.n ? 0 : job.rows;
    job.files = source.queries(shape.queries > 0);
    if (job.files) {
        const Tensor3& q = job.files->q;
        if (q.rows != job.rows)
            throw InputError(shape.queries > 0 ? "Q has " + std::to_string(q.rows) + " rows but --queries is " +
                                                     std::to_string(job.rows) + " (Q holds the last M positions' queries)"
                                               : "--n " + std::to_string(shape.n) + " does not match Q's n = " +
                                                     std::to_string(q.rows));
        shape.heads = q.heads;
        shape.d = q.cols;
        shape.dv = shape.d;
    } else if (source.keysGiven) {
        throw InputError("--k needs --q");
    }
    job.params = prepareParams(*job.variant, shape, cli.overrides());
    return job;
}

void preparePatternInputs(const CliArgs& cli, PatternJob& job, const PatternSource& source) {
    const VariantInfo& variant = *job.variant;
    const ProblemShape& shape = job.shape;
    const std::int64_t head = cli.integer("--head", 0, 0, INT32_MAX);
    job.head = static_cast<int>(head);
    if (variant.dataDependentPattern) {
        if (!job.files) throw InputError("the pattern of '" + variant.id + "' depends on the data: give --q");
        if (head >= shape.heads)
            throw InputError("--head " + std::to_string(head) + " is out of range [0, " +
                             std::to_string(shape.heads - 1) + "]");
        job.withKeys = !variant.needsKeys || variant.needsKeys(job.params) || shape.queries > 0;
        if (job.withKeys) {
            if (!source.keysGiven) throw InputError("--k is required for variant '" + variant.id + "'" +
                                                    (shape.queries > 0 ? " with --queries (every position's key)" : ""));
            source.keys(*job.files);
            if (job.files->k.rows != shape.n)
                throw InputError("--n " + std::to_string(shape.n) + " does not match K's n = " + std::to_string(job.files->k.rows));
        }
        job.withInputs = true;
    }
}

std::unique_ptr<Pattern> PatternJob::pattern() const {
    const AttentionInputs data{files ? &files->q : nullptr, withKeys ? &files->k : nullptr, nullptr};
    return buildPattern(*variant, shape, params, withInputs ? &data : nullptr, head);
}

std::unique_ptr<PatternComponents> PatternJob::components() const {
    const AttentionInputs data{files ? &files->q : nullptr, withKeys ? &files->k : nullptr, nullptr};
    return buildComponents(*variant, shape, params, withInputs ? &data : nullptr, head);
}

std::vector<std::uint8_t> PatternJob::cells(bool withComponents) const {
    return withComponents ? denseComponents(*components()) : denseMask(*pattern());
}

int patternCommand(const std::vector<std::string>& args) {
    if (asksForHelp(args)) {
        std::fputs(kPatternHelp, stdout);
        return 0;
    }
    const CliArgs cli = patternArgs(args);
    const VariantInfo& variant = requireVariant(cli.required("--variant"));
    const bool printExpr = cli.flag("--print-expr");
    if (printExpr && (cli.value("--out") || cli.flag("--components")))
        throw InputError("--print-expr prints to stdout: it takes neither --out nor --components");
    if (printExpr && !variant.printExpr)
        throw InputError("variant '" + variant.id + "' has no equivalent pattern expression (only full, strided, fixed, "
                         "longformer, chunk and xl have one)");
    const std::string outPath = printExpr ? std::string() : cli.required("--out");
    const PatternSource source = fileSource(cli);
    PatternJob job = patternShape(cli, source);
    if (printExpr && job.shape.queries > 0)
        throw InputError("--print-expr prints the whole n x n pattern's expression: it takes no --queries");
    if (printExpr) {
        PatternRequest request;
        request.shape = job.shape;
        request.params = &job.params;
        std::printf("%s\n", variant.printExpr(request).c_str());
        return 0;
    }
    std::vector<NamedPath> inputFiles;
    if (const auto qPath = cli.value("--q")) inputFiles.emplace_back("--q", *qPath);
    if (const auto kPath = cli.value("--k")) inputFiles.emplace_back("--k", *kPath);
    refuseOverlappingFiles({{"--out", outPath}}, inputFiles);
    preparePatternInputs(cli, job, source);
    requirePatternLimits(variant, job.shape, job.params);

    PendingFile outFile(outPath);
    const auto cells = job.cells(cli.flag("--components"));
    writeNpyUint8(outFile, {job.rows, job.shape.n}, cells.data());
    outFile.commit();
    return 0;
}

} // namespace attnlab
