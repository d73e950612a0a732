#pragma once

#include "app/cli_args.h"

#include "core/io/input_files.h"
#include "core/registry.h"

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

// `attnlab pattern` without its files: the options, the checks and the pattern, shared by the command
// line (Q and K of a data-dependent pattern from NPY files) and the Python module (from arrays).

CliArgs patternArgs(const std::vector<std::string>& args);

// Where Q and K of a data-dependent pattern (lsh) come from.
struct PatternSource {
    // Q (and nothing else) read with `fewerQueries`; nullopt when none was given.
    std::function<std::optional<InputFiles>(bool fewerQueries)> queries;
    // Attaches K to the inputs holding Q; only called when `keysGiven`.
    std::function<void(InputFiles& files)> keys;
    bool keysGiven = false;
};

// One pattern request resolved: the variant, the shape (--n, --grid, --d, --causal, --queries, Q's
// shape), the parameters and, for a data-dependent pattern, its inputs and head.
struct PatternJob {
    const VariantInfo* variant = nullptr;
    ProblemShape shape;
    ParamSet params;
    std::int64_t rows = 0; // query rows: --queries, else n
    std::optional<InputFiles> files;
    bool withInputs = false;
    bool withKeys = false;
    int head = 0;

    std::unique_ptr<Pattern> pattern() const;
    std::unique_ptr<PatternComponents> components() const;
    // uint8 [rows, n]: 1 where allowed, or each allowed cell's component with `components`.
    std::vector<std::uint8_t> cells(bool components) const;
};

// The shape, Q and the parameters (enough for --print-expr).
PatternJob patternShape(const CliArgs& cli, const PatternSource& source);

// The rest of a pattern to be built: --head, K for a data-dependent pattern. The caller checks the job
// limits of what it builds (requirePatternLimits for the dense array, requirePatternBuildLimits else).
void preparePatternInputs(const CliArgs& cli, PatternJob& job, const PatternSource& source);

} // namespace attnlab
