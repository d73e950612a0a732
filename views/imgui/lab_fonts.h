#pragma once

#include <QString>

struct ImGuiIO;

namespace attnlab {

// The file of the installed font fontconfig matches best to `pattern` ("DejaVu Sans", ":lang=zh-cn"),
// when it is a TrueType/OpenType file that has the character `mustHave`; empty otherwise.
QString matchFontFile(const char* pattern, char32_t mustHave = U'A');

// Replaces ImGui's built-in bitmap font with DejaVu Sans (fontconfig) at `pixelSize` logical pixels,
// rasterised at `devicePixelRatio` times that for sharp text on high-DPI screens, and merges in the
// common simplified Chinese glyphs of a CJK font when one is installed. False (the built-in font stays)
// when no TrueType font is found.
bool loadLabFonts(ImGuiIO& io, float pixelSize, float devicePixelRatio);

} // namespace attnlab
