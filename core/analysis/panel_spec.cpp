#include "core/analysis/panel_spec.h"

#include "core/errors.h"
#include "core/registry.h"

#include <algorithm>
#include <sstream>

namespace attnlab {

namespace {

std::string trimmed(const std::string& text) {
    const auto begin = text.find_first_not_of(" \t\r\n");
    if (begin == std::string::npos) return {};
    return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

bool hasParam(const VariantInfo& variant, const std::string& key) {
    return std::any_of(variant.params.begin(), variant.params.end(), [&](const ParamSpec& spec) { return spec.key == key; });
}

std::string keyList(const VariantInfo& variant) {
    std::string keys;
    for (const ParamSpec& spec : variant.params) keys += (keys.empty() ? "" : ", ") + spec.key;
    return keys.empty() ? "none" : keys;
}

} // namespace

PanelSpec parsePanelSpec(const std::string& text) {
    const auto bar = text.find('|');
    PanelSpec spec;
    if (bar != std::string::npos) spec.title = trimmed(text.substr(bar + 1));
    const std::vector<std::string> items = splitTokens(text.substr(0, bar));
    if (items.empty()) throw InputError("panel '" + text + "' names no variant (expected 'VARIANT [KEY=VALUE]... [| TITLE]')");
    const VariantInfo* variant = findVariant(items.front());
    if (!variant) throw InputError("panel '" + text + "': unknown variant '" + items.front() + "' (see attnlab variants)");
    spec.choice.variant = variant->id;
    for (auto item = items.begin() + 1; item != items.end(); ++item) {
        const auto equals = item->find('=');
        if (equals == std::string::npos || equals == 0)
            throw InputError("panel '" + text + "': '" + *item + "' is not KEY=VALUE");
        const std::string key = item->substr(0, equals);
        if (!hasParam(*variant, key))
            throw InputError("panel '" + text + "': " + variant->id + " has no parameter '" + key + "' (its parameters: " +
                             keyList(*variant) + ")");
        if (!spec.choice.params.emplace(key, item->substr(equals + 1)).second)
            throw InputError("panel '" + text + "': '" + key + "' is set twice");
    }
    return spec;
}

std::string formatPanelParams(const VariantChoice& choice) {
    std::string text = choice.variant;
    for (const auto& [key, value] : choice.params) text += " " + key + "=" + value;
    return text;
}

std::string presetLengthNote(const LabSettings& settings) {
    if (settings.presetN <= 0 || settings.n == settings.presetN) return {};
    return "preset " + settings.preset + ": parameters chosen for n = " + std::to_string(settings.presetN) +
           ", kept at n = " + std::to_string(settings.n) + " (this preset does not scale with n)";
}

std::vector<std::string> splitTokens(const std::string& text) {
    std::vector<std::string> tokens;
    std::istringstream stream(text);
    for (std::string token; stream >> token;) tokens.push_back(token);
    return tokens;
}

std::vector<std::string> axisTokens(const std::string& text, std::int64_t n) {
    std::vector<std::string> tokens = splitTokens(text);
    if (static_cast<std::int64_t>(tokens.size()) != n) tokens.clear();
    return tokens;
}

} // namespace attnlab
