#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <variant>
#include <vector>

namespace attnlab {

enum class ParamType { Integer, Boolean, Choice, IndexList, String };

using ParamValue = std::variant<std::int64_t, bool, std::string, std::vector<std::int64_t>>;

// The sizes a default or a range may depend on. n is the sequence length, d the head size of Q/K.
struct ShapeContext {
    std::int64_t n = 0;
    std::int64_t d = 0;
};

class ParamSet;

// One parameter of a variant as docs/variants.md's parameter table gives it. Defaults may depend on n, d and on
// parameters listed earlier in the same schema (e.g. fixed's `summary` on the `block` in use).
struct ParamSpec {
    std::string key;
    ParamType type = ParamType::Integer;
    std::string description;
    std::string defaultText; // the default as documented, e.g. "ceil(sqrt(n))"
    std::function<ParamValue(const ShapeContext&, const ParamSet& earlier)> defaultValue;
    std::optional<std::int64_t> minValue; // static bounds for integers, inclusive
    std::optional<std::int64_t> maxValue;
    std::string rangeText;                // the full range rule, e.g. "1 <= c <= block"
    std::vector<std::string> choices;     // for Choice
    // Dynamic upper bound for an integer given the shape and earlier parameters (e.g. summary <= block).
    std::function<std::optional<std::int64_t>(const ShapeContext&, const ParamSet& earlier)> dynamicMax;
};

using ParamSchema = std::vector<ParamSpec>;

// Resolved parameter values of one variant: every key of its schema, typed.
class ParamSet {
public:
    void set(const std::string& key, ParamValue value) { m_values[key] = std::move(value); }
    bool contains(const std::string& key) const { return m_values.count(key) != 0; }
    std::int64_t integer(const std::string& key) const;
    bool flag(const std::string& key) const;
    const std::string& choice(const std::string& key) const;
    const std::vector<std::int64_t>& indices(const std::string& key) const;
    const std::string& text(const std::string& key) const; // a String parameter
    const std::map<std::string, ParamValue>& values() const { return m_values; }

private:
    const ParamValue& lookup(const std::string& key) const;
    std::map<std::string, ParamValue> m_values;
};

using ParamOverrides = std::map<std::string, std::string>;

// Parses KEY=VALUE into (key, value); throws InputError when there is no '=' or the key is empty.
std::pair<std::string, std::string> splitAssignment(const std::string& assignment);

// Fills every key of `schema` from `overrides` (text as typed by the user) or its default, in
// schema order, checking types and ranges. Throws InputError naming the variant and key for an
// unknown key, a value that is not of the key's type, or one outside its range.
ParamSet resolveParams(const std::string& variantId, const ParamSchema& schema,
                       const ParamOverrides& overrides, const ShapeContext& shape);

std::string paramValueText(const ParamValue& value);
std::string paramTypeName(ParamType type);

// Strict integer parse, the one integer grammar of flags, --set values, grids and index lists: an
// optional '-' and digits only, within int64 (no '+', no white space, as in JSON). Returns nullopt
// otherwise.
std::optional<std::int64_t> parseInteger(const std::string& text);

} // namespace attnlab
