#pragma once

#include "app/cli_args.h"

#include "core/io/input_files.h"
#include "core/registry.h"

#include <functional>
#include <string>
#include <vector>

namespace attnlab {

// `attnlab run` without its files: the options, the checks and the kernels, shared by the command line
// (inputs from NPY files) and the Python module (inputs read in place from arrays).

// The options of `run` parsed with the command line's rules (unknown options, ranges).
CliArgs runArgs(const std::vector<std::string>& args);

// Attaches K to inputs holding Q and V when the variant needs it; throws InputError when none was given.
using KeyReader = std::function<void(InputFiles& files, const std::string& variant)>;

// One run resolved against its inputs: the shape they give, the parameters, the job limits checked.
struct RunPlan {
    const VariantInfo* variant = nullptr;
    ProblemShape shape;
    ParamSet params;
    bool needsKeys = true;
    bool wantWeights = false;
};

// Q and V as read, with the options: the shape (--queries against Q's rows, --grid against n), the
// parameters, K through `readKeys` when needed, and the limits of one run (with W when `wantWeights`).
RunPlan planRun(const CliArgs& cli, InputFiles& files, const KeyReader& readKeys, bool wantWeights);

// Runs the plan (--threads, --reference) and checks the result: its sizes, and every value finite
// (InputError naming the first row that overflows float32).
RunResult executeRun(const CliArgs& cli, const RunPlan& plan, const InputFiles& files);

// The shape out (cols = dv) and W (cols = n) are written in: 2-D when the inputs were [n, d].
std::vector<std::int64_t> runOutputShape(const InputFiles& files, std::int64_t cols);

} // namespace attnlab
