#include "core/analysis/panel_spec.h"

#include "core/errors.h"
#include "core/registry.h"

#include <algorithm>
#include <cctype>
#include <sstream>

namespace attnlab {

namespace {

std::string trimmed(const std::string& text) {
    const auto begin = text.find_first_not_of(" \t\r\n");
    if (begin == std::string::npos) return {};
    return text.substr(begin, text.find_last_not_of(" \t\r\n") - begin + 1);
}

const ParamSpec* findParam(const VariantInfo& variant, const std::string& key) {
    const auto found =
        std::find_if(variant.params.begin(), variant.params.end(), [&](const ParamSpec& spec) { return spec.key == key; });
    return found == variant.params.end() ? nullptr : &*found;
}

// Where the item "title=" begins (at the start or after whitespace), or npos.
std::size_t titleItem(const std::string& text, const std::string& titleKey) {
    for (auto at = text.find(titleKey); at != std::string::npos; at = text.find(titleKey, at + 1))
        if (at == 0 || std::isspace(static_cast<unsigned char>(text[at - 1]))) return at;
    return std::string::npos;
}

std::string keyList(const VariantInfo& variant) {
    std::string keys;
    for (const ParamSpec& spec : variant.params) keys += (keys.empty() ? "" : ", ") + spec.key;
    return keys.empty() ? "none" : keys;
}

} // namespace

PanelSpec parsePanelSpec(const std::string& text) {
    const std::string titleKey = std::string(kPanelTitleKey) + "=";
    const std::size_t title = titleItem(text, titleKey);
    PanelSpec spec;
    if (title != std::string::npos) {
        spec.title = trimmed(text.substr(title + titleKey.size()));
        if (spec.title.empty()) throw InputError("panel '" + text + "': " + titleKey + " gives no title");
    }
    const std::vector<std::string> items = splitTokens(text.substr(0, title));
    if (items.empty()) throw InputError("panel '" + text + "' names no variant (expected 'VARIANT [KEY=VALUE]... [title=TEXT]')");
    const VariantInfo* variant = findVariant(items.front());
    if (!variant) throw InputError("panel '" + text + "': unknown variant '" + items.front() + "' (see attnlab variants)");
    spec.choice.variant = variant->id;
    std::string* open = nullptr; // a string value (an expression) that items without '=' continue
    for (auto item = items.begin() + 1; item != items.end(); ++item) {
        const auto equals = item->find('=');
        if (open && (equals == std::string::npos || equals == 0)) {
            *open += " " + *item;
            continue;
        }
        if (item->find('|') != std::string::npos)
            throw InputError("panel '" + text + "': '|' belongs to expressions; give a title as " + titleKey +
                             "TEXT, e.g. 'longformer window=8 title=(b) sliding window'");
        if (equals == std::string::npos || equals == 0)
            throw InputError("panel '" + text + "': '" + *item + "' is not KEY=VALUE");
        const std::string key = item->substr(0, equals);
        if (key == kPanelOrderKey) {
            if (!spec.choice.order.empty()) throw InputError("panel '" + text + "': '" + key + "' is set twice");
            spec.choice.order = item->substr(equals + 1);
            if (spec.choice.order.empty()) throw InputError("panel '" + text + "': order= gives no order");
            open = nullptr;
            continue;
        }
        const ParamSpec* param = findParam(*variant, key);
        if (!param)
            throw InputError("panel '" + text + "': " + variant->id + " has no parameter '" + key + "' (its parameters: " +
                             keyList(*variant) + ")");
        const auto [entry, added] = spec.choice.params.emplace(key, item->substr(equals + 1));
        if (!added) throw InputError("panel '" + text + "': '" + key + "' is set twice");
        open = param->type == ParamType::String ? &entry->second : nullptr;
    }
    return spec;
}

std::string formatPanelParams(const VariantChoice& choice) {
    std::string text = choice.variant;
    for (const auto& [key, value] : choice.params) text += " " + key + "=" + value;
    if (!choice.order.empty()) text += " " + std::string(kPanelOrderKey) + "=" + choice.order;
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
