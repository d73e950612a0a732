#include "core/analysis/animation_range.h"

#include "core/errors.h"
#include "core/param_schema.h"

#include <charconv>
#include <cmath>
#include <cstdio>
#include <optional>

namespace attnlab {

namespace {

constexpr const char* kGrammar = "PARAM=FROM:TO[:STEP|:*FACTOR]";
// Integers beyond this are not all exactly representable as frame values.
constexpr double kLargestInteger = 9007199254740992.0; // 2^53
// Slack when deciding whether the last step lands on TO: relative to the steps, at most a thousandth of one.
constexpr double kSlack = 1e-9, kMostSlack = 1e-3;

[[noreturn]] void refuse(const std::string& param, const std::string& range, const std::string& why) {
    throw InputError("--animate " + param + "=" + range + ": " + why);
}

std::optional<double> decimal(const std::string& text) {
    if (text.empty() || text.front() == '+') return std::nullopt;
    double value = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
    if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(value))
        return std::nullopt;
    return value;
}

// A decimal number, or a fraction A/B of two decimals (1/64).
std::optional<double> realNumber(const std::string& text) {
    const std::size_t slash = text.find('/');
    if (slash == std::string::npos) return decimal(text);
    const auto top = decimal(text.substr(0, slash)), bottom = decimal(text.substr(slash + 1));
    if (!top || !bottom || *bottom == 0) return std::nullopt;
    const double value = *top / *bottom;
    return std::isfinite(value) ? std::optional<double>(value) : std::nullopt;
}

double number(const std::string& param, const std::string& range, const char* what, const std::string& text,
              bool integral) {
    if (integral) {
        const auto value = parseInteger(text);
        if (!value) refuse(param, range, std::string(what) + " '" + text + "' is not an integer");
        if (std::abs(static_cast<double>(*value)) > kLargestInteger)
            refuse(param, range, std::string(what) + " '" + text + "' is too large");
        return static_cast<double>(*value);
    }
    const auto value = realNumber(text);
    if (!value) refuse(param, range, std::string(what) + " '" + text + "' is not a number");
    return *value;
}

std::vector<std::string> fields(const std::string& range) {
    std::vector<std::string> parts(1);
    for (const char c : range) {
        if (c == ':')
            parts.emplace_back();
        else
            parts.back() += c;
    }
    return parts;
}

// How many values from, from + step, … lie within [from, to] (either direction); 0 when the step points away.
double stepCount(double from, double to, double step) {
    const double steps = (to - from) / step;
    if (steps < 0) return 0;
    return std::floor(steps + std::min(kMostSlack, kSlack * std::max(1.0, steps))) + 1;
}

double factorCount(double from, double to, double factor) {
    const double steps = std::log(to / from) / std::log(factor);
    if (steps < 0) return 0;
    return std::floor(steps + std::min(kMostSlack, kSlack * std::max(1.0, steps))) + 1;
}

void requireFrameCount(const std::string& param, const std::string& range, double count) {
    if (count > static_cast<double>(kMaxAnimationFrames)) {
        char text[64];
        std::snprintf(text, sizeof text, "%.0f", count);
        refuse(param, range,
               std::string("gives ") + text + " frames (at most " + std::to_string(kMaxAnimationFrames) +
                   ")");
    }
}

std::vector<double> stepValues(const std::string& param, const std::string& range, double from, double to,
                               double step) {
    if (step == 0) refuse(param, range, "the step must not be 0");
    if (from > to && step > 0)
        refuse(param, range, "a descending range needs a negative step (FROM:TO:-STEP)");
    const double count = stepCount(from, to, step);
    if (count == 0) refuse(param, range, "the range is empty: a negative step never climbs from FROM to TO");
    requireFrameCount(param, range, count);
    std::vector<double> values;
    for (std::size_t k = 0; k < static_cast<std::size_t>(count); ++k)
        values.push_back(from + static_cast<double>(k) * step);
    return values;
}

std::vector<double> factorValues(const std::string& param, const std::string& range, double from, double to,
                                 double factor, bool integral) {
    if (!(factor > 0) || factor == 1)
        refuse(param, range, "the factor must be a number above 0 other than 1");
    if (!(from > 0) || !(to > 0)) refuse(param, range, "a factor needs FROM and TO above 0");
    if (from > to && factor > 1)
        refuse(param, range, "a descending range needs a factor below 1 (FROM:TO:*0.5)");
    const double count = factorCount(from, to, factor);
    if (count == 0) refuse(param, range, "the range is empty: a factor below 1 never climbs from FROM to TO");
    requireFrameCount(param, range, count);
    std::vector<double> values;
    for (std::size_t k = 0; k < static_cast<std::size_t>(count); ++k) {
        double value = from * std::pow(factor, static_cast<double>(k));
        if (integral) value = std::round(value);
        if (values.empty() || value != values.back()) values.push_back(value);
    }
    return values;
}

} // namespace

AnimationOption splitAnimationOption(const std::string& text) {
    const std::size_t equals = text.find('=');
    if (equals == std::string::npos || equals == 0 || equals + 1 == text.size())
        throw InputError("--animate expects " + std::string(kGrammar) + ", got '" + text + "'");
    return {text.substr(0, equals), text.substr(equals + 1)};
}

std::vector<double> animationValues(const std::string& param, const std::string& range, bool integral) {
    const std::vector<std::string> parts = fields(range);
    if (parts.size() < 2 || parts.size() > 3) refuse(param, range, std::string("expects ") + kGrammar);
    const double from = number(param, range, "FROM", parts[0], integral);
    const double to = number(param, range, "TO", parts[1], integral);
    if (from == to) refuse(param, range, "FROM = TO gives one frame: an animation needs at least two");
    std::vector<double> values;
    if (parts.size() == 3 && !parts[2].empty() && parts[2].front() == '*')
        values = factorValues(param, range, from, to,
                              number(param, range, "FACTOR", parts[2].substr(1), false), integral);
    else
        values = stepValues(param, range, from, to,
                            parts.size() == 3 ? number(param, range, "STEP", parts[2], integral) : 1.0);
    if (values.size() < 2) refuse(param, range, "gives one frame: an animation needs at least two");
    return values;
}

std::optional<double> parseAnimationNumber(const std::string& text) {
    return realNumber(text);
}

std::string animationValueText(double value, bool integral) {
    char text[32];
    if (integral)
        std::snprintf(text, sizeof text, "%.0f", value);
    else
        std::snprintf(text, sizeof text, "%.6g", value);
    return text;
}

} // namespace attnlab
