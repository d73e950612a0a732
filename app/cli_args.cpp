#include "app/cli_args.h"

#include "core/errors.h"

#include <algorithm>
#include <thread>

namespace attnlab {

CliArgs::CliArgs(std::string command, const std::vector<std::string>& args, const std::vector<std::string>& valueOptions,
                 const std::vector<std::string>& flagOptions, const std::vector<std::string>& repeatedOptions)
    : m_command(std::move(command)) {
    auto known = [](const std::vector<std::string>& list, const std::string& name) {
        return std::find(list.begin(), list.end(), name) != list.end();
    };
    // An option's value is the next argument unless that argument is itself one of this command's options:
    // "--preset -o x.png" lacks a value rather than giving "-o" as one (a value such as "-1" still counts).
    auto isOption = [&](const std::string& text) {
        const std::string name = text.substr(0, text.rfind("--", 0) == 0 ? text.find('=') : std::string::npos);
        return name == "--set" || known(valueOptions, name) || known(flagOptions, name) || known(repeatedOptions, name);
    };
    auto missingValue = [&](std::size_t a, bool inlineValue) { return !inlineValue && (a + 1 >= args.size() || isOption(args[a + 1])); };
    for (std::size_t a = 0; a < args.size(); ++a) {
        std::string name = args[a];
        std::optional<std::string> inlineValue;
        if (const auto eq = name.find('='); name.rfind("--", 0) == 0 && eq != std::string::npos) {
            inlineValue = name.substr(eq + 1);
            name = name.substr(0, eq);
        }
        if (name == "--set") {
            if (missingValue(a, inlineValue.has_value())) throw InputError("--set needs KEY=VALUE");
            const auto [key, text] = splitAssignment(inlineValue ? *inlineValue : args[++a]);
            if (m_overrides.count(key)) throw InputError("parameter '" + key + "' is set twice");
            m_overrides[key] = text;
        } else if (known(repeatedOptions, name)) {
            if (missingValue(a, inlineValue.has_value())) throw InputError(name + " needs a value");
            m_repeated[name].push_back(inlineValue ? *inlineValue : args[++a]);
        } else if (known(flagOptions, name) && !inlineValue) {
            m_flags[name] = true;
        } else if (known(valueOptions, name)) {
            if (missingValue(a, inlineValue.has_value())) throw InputError(name + " needs a value");
            if (m_values.count(name)) throw InputError(name + " is given twice");
            m_values[name] = inlineValue ? *inlineValue : args[++a];
        } else {
            throw InputError("unknown option '" + args[a] + "' (see attnlab " + m_command + " --help)");
        }
    }
}

std::optional<std::string> CliArgs::value(const std::string& name) const {
    const auto it = m_values.find(name);
    if (it == m_values.end()) return std::nullopt;
    return it->second;
}

std::vector<std::string> CliArgs::values(const std::string& name) const {
    const auto it = m_repeated.find(name);
    return it == m_repeated.end() ? std::vector<std::string>{} : it->second;
}

std::string CliArgs::required(const std::string& name) const {
    const auto given = value(name);
    if (!given) throw InputError(name + " is required");
    return *given;
}

std::int64_t CliArgs::integer(const std::string& name, std::int64_t fallback, std::int64_t minValue,
                              std::int64_t maxValue) const {
    const auto given = value(name);
    if (!given) return fallback;
    const auto parsed = parseInteger(*given);
    if (!parsed) throw InputError(name + " expects an integer, got '" + *given + "'");
    if (*parsed < minValue || *parsed > maxValue)
        throw InputError(name + " = " + *given + " is out of range [" +
                         std::to_string(minValue) + ", " + std::to_string(maxValue) + "]");
    return *parsed;
}

std::int64_t CliArgs::requiredInteger(const std::string& name, std::int64_t minValue, std::int64_t maxValue) const {
    required(name);
    return integer(name, 0, minValue, maxValue);
}

bool asksForHelp(const std::vector<std::string>& args) {
    return std::any_of(args.begin(), args.end(), [](const std::string& arg) { return arg == "--help" || arg == "-h"; });
}

int defaultThreadCount() { return std::max(1u, std::thread::hardware_concurrency()); }

} // namespace attnlab
