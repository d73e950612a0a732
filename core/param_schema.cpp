#include "core/param_schema.h"

#include "core/errors.h"

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <set>

namespace attnlab {

const ParamValue& ParamSet::lookup(const std::string& key) const {
    const auto it = m_values.find(key);
    if (it == m_values.end()) throw std::logic_error("parameter '" + key + "' was not resolved");
    return it->second;
}

std::int64_t ParamSet::integer(const std::string& key) const { return std::get<std::int64_t>(lookup(key)); }
bool ParamSet::flag(const std::string& key) const { return std::get<bool>(lookup(key)); }
const std::string& ParamSet::choice(const std::string& key) const { return std::get<std::string>(lookup(key)); }
const std::string& ParamSet::text(const std::string& key) const { return std::get<std::string>(lookup(key)); }
const std::vector<std::int64_t>& ParamSet::indices(const std::string& key) const {
    return std::get<std::vector<std::int64_t>>(lookup(key));
}

std::optional<std::int64_t> parseInteger(const std::string& text) {
    if (text.empty()) return std::nullopt;
    const std::size_t start = text[0] == '-' ? 1 : 0;
    if (start == text.size()) return std::nullopt;
    if (!std::all_of(text.begin() + static_cast<std::ptrdiff_t>(start), text.end(),
                     [](char c) { return c >= '0' && c <= '9'; }))
        return std::nullopt;
    errno = 0;
    char* end = nullptr;
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (errno == ERANGE || end != text.c_str() + text.size()) return std::nullopt;
    return static_cast<std::int64_t>(value);
}

std::pair<std::string, std::string> splitAssignment(const std::string& assignment) {
    const auto eq = assignment.find('=');
    if (eq == std::string::npos || eq == 0)
        throw InputError("--set expects KEY=VALUE, got '" + assignment + "'");
    return {assignment.substr(0, eq), assignment.substr(eq + 1)};
}

std::string paramTypeName(ParamType type) {
    switch (type) {
    case ParamType::Integer: return "int";
    case ParamType::Boolean: return "bool";
    case ParamType::Choice: return "choice";
    case ParamType::IndexList: return "index_list";
    case ParamType::String: return "string";
    }
    return "unknown";
}

std::string paramValueText(const ParamValue& value) {
    struct Printer {
        std::string operator()(std::int64_t v) const { return std::to_string(v); }
        std::string operator()(bool v) const { return v ? "true" : "false"; }
        std::string operator()(const std::string& v) const { return v; }
        std::string operator()(const std::vector<std::int64_t>& v) const {
            std::string text;
            for (std::size_t i = 0; i < v.size(); ++i) text += (i ? "," : "") + std::to_string(v[i]);
            return text;
        }
    };
    return std::visit(Printer{}, value);
}

namespace {

std::string joinChoices(const std::vector<std::string>& choices) {
    std::string text;
    for (std::size_t i = 0; i < choices.size(); ++i) text += (i ? "|" : "") + choices[i];
    return text;
}

std::vector<std::int64_t> parseIndexList(const std::string& where, const std::string& text) {
    std::vector<std::int64_t> indices;
    if (text.empty() || text == "none") return indices;
    std::size_t start = 0;
    while (start <= text.size()) {
        const auto comma = text.find(',', start);
        const std::string item = text.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
        const auto value = parseInteger(item);
        if (!value) throw InputError(where + " expects a comma list of integers, got '" + text + "'");
        indices.push_back(*value);
        if (comma == std::string::npos) break;
        start = comma + 1;
    }
    std::sort(indices.begin(), indices.end());
    indices.erase(std::unique(indices.begin(), indices.end()), indices.end());
    return indices;
}

ParamValue parseValue(const std::string& where, const ParamSpec& spec, const std::string& text) {
    switch (spec.type) {
    case ParamType::Integer: {
        const auto value = parseInteger(text);
        if (!value) throw InputError(where + " expects an integer, got '" + text + "'");
        return *value;
    }
    case ParamType::Boolean:
        if (text == "true") return true;
        if (text == "false") return false;
        throw InputError(where + " expects true or false, got '" + text + "'");
    case ParamType::Choice:
        if (std::find(spec.choices.begin(), spec.choices.end(), text) == spec.choices.end())
            throw InputError(where + " expects one of " + joinChoices(spec.choices) + ", got '" + text + "'");
        return text;
    case ParamType::IndexList: return parseIndexList(where, text);
    case ParamType::String: return text;
    }
    throw std::logic_error("unknown parameter type");
}

void checkIntegerRange(const std::string& where, const ParamSpec& spec, std::int64_t value,
                       const ShapeContext& shape, const ParamSet& earlier) {
    std::optional<std::int64_t> upper = spec.maxValue;
    if (spec.dynamicMax) upper = spec.dynamicMax(shape, earlier);
    const bool belowMin = spec.minValue && value < *spec.minValue;
    const bool aboveMax = upper && value > *upper;
    if (belowMin || aboveMax) {
        std::string rule = spec.rangeText;
        if (spec.dynamicMax && upper) rule += " (here <= " + std::to_string(*upper) + ")";
        throw InputError(where + " = " + std::to_string(value) + " is out of range: " + rule);
    }
}

} // namespace

ParamSet resolveParams(const std::string& variantId, const ParamSchema& schema,
                       const ParamOverrides& overrides, const ShapeContext& shape) {
    std::set<std::string> known;
    for (const auto& spec : schema) known.insert(spec.key);
    for (const auto& [key, text] : overrides) {
        if (!known.count(key)) {
            std::string keys;
            for (const auto& spec : schema) keys += (keys.empty() ? "" : ", ") + spec.key;
            throw InputError("variant '" + variantId + "' has no parameter '" + key + "'" +
                             (keys.empty() ? " (it takes none)" : " (it takes: " + keys + ")"));
        }
    }
    ParamSet params;
    for (const auto& spec : schema) {
        const std::string where = variantId + " parameter '" + spec.key + "'";
        const auto given = overrides.find(spec.key);
        ParamValue value = given != overrides.end() ? parseValue(where, spec, given->second)
                                                    : spec.defaultValue(shape, params);
        if (spec.type == ParamType::Integer && given != overrides.end())
            checkIntegerRange(where, spec, std::get<std::int64_t>(value), shape, params);
        params.set(spec.key, std::move(value));
    }
    return params;
}

} // namespace attnlab
