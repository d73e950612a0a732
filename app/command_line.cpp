#include "app/commands.h"

#include "core/errors.h"

#include <cstdio>
#include <cstring>
#include <exception>
#include <new>

namespace attnlab {

namespace {

constexpr const char* kUsage = R"(usage: attnlab                      open the desktop app
       attnlab --screenshot FILE [--view NAME]
       attnlab run       ...   compute a variant on Q/K/V NPY files
       attnlab pattern   ...   write a variant's n x n allowed set
       attnlab cost      ...   multiply-add counts of a layer and its attention core
       attnlab variants  ...   list the variants and their parameters
       attnlab bench     ...   time variants (and the machine's peak) over a list of n
       attnlab figure    ...   render a view to PNG/SVG/PDF/CSV without a display
Each subcommand takes --help.
)";

const std::vector<Subcommand> kSubcommands = {
    {"run", runCommand},           {"pattern", patternCommand}, {"cost", costCommand},
    {"variants", variantsCommand}, {"bench", benchCommand},
};

int runGuarded(const Subcommand& sub, const std::vector<std::string>& args) {
    try {
        return sub.handler(args);
    } catch (const InputError& error) {
        std::fprintf(stderr, "attnlab: error: %s\n", error.what());
    } catch (const std::bad_alloc&) {
        std::fprintf(stderr, "attnlab: error: out of memory\n");
    } catch (const std::exception& error) {
        std::fprintf(stderr, "attnlab: error: %s\n", error.what());
    }
    return 2;
}

} // namespace

bool isCommandLineInvocation(int argc, char** argv) {
    if (argc < 2) return false;
    const std::string first = argv[1];
    return first != "--screenshot" && first != "--view" && first.rfind("-platform", 0) != 0;
}

int runCommandLine(int argc, char** argv, const std::vector<Subcommand>& extra) {
    const std::string command = argv[1];
    if (command == "--help" || command == "-h" || command == "help") {
        std::fputs(kUsage, stdout);
        return 0;
    }
    const std::vector<std::string> args(argv + 2, argv + argc);
    for (const auto* table : {&kSubcommands, &extra})
        for (const auto& sub : *table)
            if (command == sub.name) return runGuarded(sub, args);
    std::fprintf(stderr, "attnlab: error: unknown command '%s' (try attnlab --help)\n", command.c_str());
    return 2;
}

} // namespace attnlab
