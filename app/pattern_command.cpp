#include "app/cli_args.h"
#include "app/commands.h"

#include "core/errors.h"
#include "core/input_files.h"
#include "core/job_limits.h"
#include "core/npy_io.h"
#include "core/registry.h"

#include <cstdio>

namespace attnlab {

namespace {

constexpr const char* kPatternHelp = R"(usage: attnlab pattern --variant ID --n N [--causal] [--set KEY=VALUE]... [--d D]
                       [--q Q.npy [--k K.npy]] [--head H] --out M.npy

Writes the allowed set M of a variant as uint8 [n, n], 1 where query i may attend key j. Variants
without a mask (linear, performer, linformer, relu2, mixed_chunk) write where W may be non-zero.
Data-dependent patterns (lsh) need --q (and --k unless shared_qk) and give head H's mask (default 0).
--d (default 64, or Q's d) only matters for defaults that depend on d.
)";

} // namespace

int patternCommand(const std::vector<std::string>& args) {
    if (asksForHelp(args)) {
        std::fputs(kPatternHelp, stdout);
        return 0;
    }
    const CliArgs cli("pattern", args, {"--variant", "--n", "--d", "--q", "--k", "--head", "--out"}, {"--causal"});
    const VariantInfo& variant = requireVariant(cli.required("--variant"));
    const std::string outPath = cli.required("--out");
    ProblemShape shape;
    shape.n = cli.requiredInteger("--n", 1, INT32_MAX);
    shape.d = cli.integer("--d", 64, 1, INT32_MAX);
    shape.dv = shape.d;
    shape.causal = cli.flag("--causal");

    InputFiles files;
    const auto qPath = cli.value("--q");
    if (qPath) {
        files = readInputFiles(*qPath, "", "");
        if (files.q.rows != shape.n)
            throw InputError("--n " + std::to_string(shape.n) + " does not match Q's n = " +
                             std::to_string(files.q.rows));
        shape.heads = files.q.heads;
        shape.d = files.q.cols;
        shape.dv = shape.d;
    } else if (cli.value("--k")) {
        throw InputError("--k needs --q");
    }
    const ParamSet params = prepareParams(variant, shape, cli.overrides());
    const std::int64_t head = cli.integer("--head", 0, 0, INT32_MAX);
    const AttentionInputs* inputs = nullptr;
    AttentionInputs data;
    if (variant.dataDependentPattern) {
        if (!qPath) throw InputError("the pattern of '" + variant.id + "' depends on the data: give --q");
        if (head >= shape.heads)
            throw InputError("--head " + std::to_string(head) + " is out of range [0, " +
                             std::to_string(shape.heads - 1) + "]");
        const bool needsKeys = !variant.needsKeys || variant.needsKeys(params);
        if (needsKeys) {
            const auto kPath = cli.value("--k");
            if (!kPath) throw InputError("--k is required for variant '" + variant.id + "'");
            readKeys(files, *kPath);
        }
        data = AttentionInputs{&files.q, needsKeys ? &files.k : nullptr, nullptr};
        inputs = &data;
    }
    std::vector<NamedPath> inputFiles;
    if (qPath) inputFiles.emplace_back("--q", *qPath);
    if (const auto kPath = cli.value("--k")) inputFiles.emplace_back("--k", *kPath);
    refuseOverlappingFiles({{"--out", outPath}}, inputFiles);
    requirePatternLimits(variant, shape, params);

    PendingFile outFile(outPath);
    const auto pattern = buildPattern(variant, shape, params, inputs, static_cast<int>(head));
    const auto mask = denseMask(*pattern);
    writeNpyUint8(outFile, {shape.n, shape.n}, mask.data());
    outFile.commit();
    return 0;
}

} // namespace attnlab
