#pragma once

// Naming a character the command-line grammars (expressions, grids, numbers) do not take, so a message
// says what the user typed instead of "unknown primitive 'b'": the languages are printable ASCII, and
// an input method easily slips in a full-width '（' or an 'ä'.

#include <cstddef>
#include <optional>
#include <string>

namespace attnlab {

struct ForeignCharacter {
    std::size_t byteOffset = 0; // where it starts in the text
    std::size_t position = 0;   // 1-based count of characters up to and including it
    // "'（' (U+FF08, a full-width '(')", "'ä' (U+00E4)", "the control byte 0x07", "the byte 0xff (not UTF-8)"
    std::string description;
};

// The first character of `text` outside printable ASCII and ASCII white space, or none.
std::optional<ForeignCharacter> firstForeignCharacter(const std::string& text);

} // namespace attnlab

namespace attnlab {

// ": 'ä' (U+00E4) at position 2" for a text with such a character, else empty: appended to a message
// that quotes the text.
std::string foreignCharacterNote(const std::string& text);

} // namespace attnlab
