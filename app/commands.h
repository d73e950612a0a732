#pragma once

#include <string>
#include <vector>

namespace attnlab {

// Headless subcommands. Each takes the arguments after its name, prints its result on stdout and
// returns the process exit code; bad input is thrown as InputError and reported by the dispatcher.
int runCommand(const std::vector<std::string>& args);
int patternCommand(const std::vector<std::string>& args);
int costCommand(const std::vector<std::string>& args);
int variantsCommand(const std::vector<std::string>& args);
int benchCommand(const std::vector<std::string>& args);

// Removes the job-limit options (--memory-budget, --max-macs, --max-ranges: the same meaning for every
// subcommand) from `args`, applies them to the process and returns the rest. Throws InputError for a bad value.
std::vector<std::string> applyJobLimits(const std::vector<std::string>& args);

struct Subcommand {
    const char* name;
    int (*handler)(const std::vector<std::string>& args);
};

// True when args ask for a subcommand rather than the GUI.
bool isCommandLineInvocation(int argc, char** argv);
// Dispatches `attnlab SUBCOMMAND ...`; prints "attnlab: error: ..." (one line) for bad input.
// `extra` adds subcommands that live outside the headless library (the GUI build's `figure`).
int runCommandLine(int argc, char** argv, const std::vector<Subcommand>& extra = {});

} // namespace attnlab
