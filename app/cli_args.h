#pragma once

#include "core/param_schema.h"

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

// Options of one subcommand: `--name value`, repeated `--set KEY=VALUE`, and bare flags. Unknown
// options, missing values and repeated single options are InputErrors naming the option.
class CliArgs {
public:
    // `repeatedOptions` take a value each time they appear, kept in order (values()).
    CliArgs(std::string command, const std::vector<std::string>& args, const std::vector<std::string>& valueOptions,
            const std::vector<std::string>& flagOptions, const std::vector<std::string>& repeatedOptions = {});

    bool flag(const std::string& name) const { return m_flags.count(name) != 0; }
    std::optional<std::string> value(const std::string& name) const;
    std::vector<std::string> values(const std::string& name) const; // a repeated option, in order
    std::string required(const std::string& name) const;
    // Integer option within [minValue, maxValue]; `fallback` when absent.
    std::int64_t integer(const std::string& name, std::int64_t fallback, std::int64_t minValue, std::int64_t maxValue) const;
    std::int64_t requiredInteger(const std::string& name, std::int64_t minValue, std::int64_t maxValue) const;
    const ParamOverrides& overrides() const { return m_overrides; }

private:
    std::string m_command;
    std::map<std::string, std::string> m_values;
    std::map<std::string, bool> m_flags;
    std::map<std::string, std::vector<std::string>> m_repeated;
    ParamOverrides m_overrides;
};

// True when any argument is --help or -h: the subcommand then prints its usage and exits 0.
bool asksForHelp(const std::vector<std::string>& args);

// Threads for kernels: --threads if given, else every core the process may use.
int defaultThreadCount();

} // namespace attnlab
