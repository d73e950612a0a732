#include "app/commands.h"

#include "core/cost/job_limits.h"
#include "core/errors.h"
#include "core/jobs/memory_budget.h"
#include "core/param_schema.h"
#include "core/patterns/range_work.h"

#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <new>
#include <string>
#include <unistd.h>

namespace attnlab {

namespace {

constexpr const char* kUsage = R"(usage: attnlab [--session FILE] [--view NAME] [--lang en|zh_CN]     open the desktop app
       attnlab --screenshot FILE [--session FILE] [--view NAME] [--lang en|zh_CN] [--time-limit SECONDS]
                                 save the window as PNG and exit; work still running after the
                                 time limit (default 50 s) is cancelled, exit 3, no file written
       attnlab run       ...   compute a variant on Q/K/V NPY files
       attnlab pattern   ...   write a variant's n x n allowed set
       attnlab cost      ...   multiply-add counts of a layer and its attention core
       attnlab variants  ...   list the variants and their parameters
       attnlab bench     ...   time variants (and the machine's peak) over a list of n
       attnlab figure    ...   render a view to PNG/SVG/PDF/CSV without a display
Each subcommand takes --help. Limits of one job, accepted by every subcommand (docs/limits.md):
       --memory-budget BYTES   memory one job may plan, e.g. 8G (default: half of physical memory;
                               environment: ATTNLAB_MEMORY_BUDGET)
       --max-macs N            multiply-adds one job may plan, e.g. 1e14 (default 1e13;
                               environment: ATTNLAB_MAX_MACS)
       --max-ranges N          column ranges one job may spend counting a pattern's cells, estimated
                               from a sample of rows first (default 4294967296 = 2^32;
                               environment: ATTNLAB_MAX_RANGES)
)";

const std::vector<Subcommand> kSubcommands = {
    {"run", runCommand},           {"pattern", patternCommand}, {"cost", costCommand},
    {"variants", variantsCommand}, {"bench", benchCommand},
};

// The contract promises one line on stderr, whatever characters a message quotes (a path may hold a newline).
void printError(const std::string& message) {
    std::string line = message;
    for (char& c : line)
        if (c == '\n' || c == '\r') c = ' ';
    std::fprintf(stderr, "attnlab: error: %s\n", line.c_str());
}

// A result that did not reach stdout (a full disk, /dev/full, a closed descriptor) is a failure, not exit 0.
int finishStandardOutput(int code) {
    errno = 0;
    const bool flushed = std::fflush(stdout) == 0;
    if (flushed && !std::ferror(stdout)) return code;
    printError(std::string("standard output: write failed: ") + (!flushed && errno ? std::strerror(errno) : "an earlier write failed"));
    return 2;
}

int runGuarded(const Subcommand& sub, const std::vector<std::string>& args) {
    try {
        return finishStandardOutput(sub.handler(applyJobLimits(args)));
    } catch (const std::bad_alloc&) {
        printError("out of memory");
    } catch (const std::exception& error) {
        printError(error.what());
    } catch (...) {
        printError("internal error");
    }
    return 2;
}

} // namespace

std::vector<std::string> applyJobLimits(const std::vector<std::string>& args) {
    std::vector<std::string> rest;
    for (std::size_t a = 0; a < args.size(); ++a) {
        std::string name = args[a], text;
        const auto eq = name.find('=');
        if (eq != std::string::npos) name = name.substr(0, eq);
        if (name != "--memory-budget" && name != "--max-macs" && name != "--max-ranges") {
            rest.push_back(args[a]);
            continue;
        }
        if (eq != std::string::npos) {
            text = args[a].substr(eq + 1);
        } else if (a + 1 < args.size()) {
            text = args[++a];
        } else {
            throw InputError(name + " needs a value");
        }
        if (name == "--memory-budget") {
            const auto bytes = parseByteSize(text);
            if (!bytes) throw InputError("--memory-budget expects a byte count such as 8G or 500000000, got '" + text + "'");
            setJobBudget(bytes);
        } else if (name == "--max-ranges") {
            const auto ranges = parseInteger(text);
            if (!ranges || *ranges < 1) throw InputError("--max-ranges expects a positive integer such as 8589934592, got '" + text + "'");
            setJobRangeLimit(*ranges);
        } else {
            char* end = nullptr;
            const double macs = std::strtod(text.c_str(), &end);
            if (end == text.c_str() || *end != '\0' || !(macs > 0) || !std::isfinite(macs))
                throw InputError("--max-macs expects a positive number such as 1e14, got '" + text + "'");
            setJobWorkLimit(macs);
        }
    }
    return rest;
}

bool isCommandLineInvocation(int argc, char** argv) {
    if (argc < 2) return false;
    const std::string first = argv[1];
    return first != "--screenshot" && first != "--view" && first != "--session" && first != "--time-limit" &&
           first != "--lang" &&
           first.rfind("-platform", 0) != 0;
}

int runCommandLine(int argc, char** argv, const std::vector<Subcommand>& extra) {
    // Output that is not a terminal is written in one piece at the end, so that a failed write reports
    // its own error (ENOSPC, EFBIG) rather than one of an earlier, silently dropped buffer.
    static char buffer[std::size_t{1} << 20]; // glibc keeps its own size when given no buffer
    if (!::isatty(STDOUT_FILENO)) std::setvbuf(stdout, buffer, _IOFBF, sizeof buffer);
    const std::string command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") {
        std::fputs(kUsage, stdout);
        return finishStandardOutput(0);
    }
    const std::vector<std::string> args(argv + 2, argv + argc);
    for (const auto* table : {&kSubcommands, &extra})
        for (const auto& sub : *table)
            if (command == sub.name) return runGuarded(sub, args);
    printError("unknown command '" + command + "' (try attnlab --help)");
    return 2;
}

} // namespace attnlab
