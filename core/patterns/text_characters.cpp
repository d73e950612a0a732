#include "core/patterns/text_characters.h"

#include <cstdio>

namespace attnlab {

namespace {

std::string hex(unsigned value, int digits) {
    char text[16];
    std::snprintf(text, sizeof text, "%0*X", digits, value);
    return text;
}

// The UTF-8 sequence at `at`: its code point and length, or length 0 when it is not valid UTF-8.
std::pair<unsigned, std::size_t> decodeUtf8(const std::string& text, std::size_t at) {
    const auto byte = [&](std::size_t k) { return static_cast<unsigned char>(text[at + k]); };
    const unsigned lead = byte(0);
    const std::size_t length = lead >= 0xF0 && lead < 0xF5 ? 4 : lead >= 0xE0 ? 3 : lead >= 0xC2 && lead < 0xE0 ? 2 : 0;
    if (length == 0 || at + length > text.size()) return {0, 0};
    unsigned code = lead & (0x7F >> length);
    for (std::size_t k = 1; k < length; ++k) {
        if ((byte(k) & 0xC0) != 0x80) return {0, 0};
        code = (code << 6) | (byte(k) & 0x3F);
    }
    const unsigned smallest[] = {0, 0, 0x80, 0x800, 0x10000};
    if (code < smallest[length] || code > 0x10FFFF || (code >= 0xD800 && code < 0xE000)) return {0, 0};
    return {code, length};
}

} // namespace

std::optional<ForeignCharacter> firstForeignCharacter(const std::string& text) {
    std::size_t position = 0;
    for (std::size_t at = 0; at < text.size();) {
        ++position;
        const auto c = static_cast<unsigned char>(text[at]);
        if ((c >= '\t' && c <= '\r') || (c >= 0x20 && c < 0x7F)) {
            ++at;
            continue;
        }
        ForeignCharacter found{at, position, {}};
        if (c < 0x80) {
            found.description = "the control byte 0x" + hex(c, 2);
            return found;
        }
        const auto [code, length] = decodeUtf8(text, at);
        if (length == 0) {
            found.description = "the byte 0x" + hex(c, 2) + " (not UTF-8)";
            return found;
        }
        found.description = "'" + text.substr(at, length) + "' (U+" + hex(code, 4);
        // Full-width forms of ASCII (U+FF01–U+FF5E) sit 0xFEE0 above the character they stand for.
        if (code >= 0xFF01 && code <= 0xFF5E)
            found.description += ", a full-width '" + std::string(1, static_cast<char>(code - 0xFEE0)) + "'";
        found.description += ")";
        return found;
    }
    return std::nullopt;
}

} // namespace attnlab

namespace attnlab {

std::string foreignCharacterNote(const std::string& text) {
    const auto foreign = firstForeignCharacter(text);
    return foreign ? ": " + foreign->description + " at position " + std::to_string(foreign->position) : std::string();
}

} // namespace attnlab
