#include "views/imgui/lab_fonts.h"

#include <fontconfig/fontconfig.h>
#include <imgui.h>

#include <QFileInfo>

#include <memory>

namespace attnlab {

QString matchFontFile(const char* pattern, char32_t mustHave) {
    if (!FcInit()) return {};
    const std::unique_ptr<FcPattern, decltype(&FcPatternDestroy)> wanted(FcNameParse(reinterpret_cast<const FcChar8*>(pattern)),
                                                                         FcPatternDestroy);
    if (!wanted) return {};
    FcConfigSubstitute(nullptr, wanted.get(), FcMatchPattern);
    FcDefaultSubstitute(wanted.get());
    FcResult result = FcResultNoMatch;
    const std::unique_ptr<FcPattern, decltype(&FcPatternDestroy)> match(FcFontMatch(nullptr, wanted.get(), &result),
                                                                        FcPatternDestroy);
    if (!match || result != FcResultMatch) return {};
    FcChar8* file = nullptr;
    FcCharSet* characters = nullptr;
    if (FcPatternGetString(match.get(), FC_FILE, 0, &file) != FcResultMatch) return {};
    if (FcPatternGetCharSet(match.get(), FC_CHARSET, 0, &characters) != FcResultMatch ||
        !FcCharSetHasChar(characters, static_cast<FcChar32>(mustHave)))
        return {};
    const QString path = QString::fromUtf8(reinterpret_cast<const char*>(file));
    const QString suffix = QFileInfo(path).suffix().toLower();
    return suffix == QLatin1String("ttf") || suffix == QLatin1String("otf") || suffix == QLatin1String("ttc") ? path : QString();
}

bool loadLabFonts(ImGuiIO& io, float pixelSize, float devicePixelRatio) {
    const QString latin = matchFontFile("DejaVu Sans");
    if (latin.isEmpty()) return false;
    const float scale = devicePixelRatio > 0 ? devicePixelRatio : 1.0f;
    io.Fonts->Clear();
    ImFontConfig config;
    config.OversampleH = 2;
    if (!io.Fonts->AddFontFromFileTTF(latin.toLocal8Bit().constData(), pixelSize * scale, &config,
                                      io.Fonts->GetGlyphRangesDefault())) {
        io.Fonts->Clear();
        io.Fonts->AddFontDefault();
        return false;
    }
    // U+4E2D 中: a font that has it covers Chinese.
    const QString chinese = matchFontFile(":lang=zh-cn", U'\u4E2D');
    if (!chinese.isEmpty()) {
        ImFontConfig merge;
        merge.MergeMode = true;
        merge.OversampleH = 1;
        io.Fonts->AddFontFromFileTTF(chinese.toLocal8Bit().constData(), pixelSize * scale, &merge,
                                     io.Fonts->GetGlyphRangesChineseSimplifiedCommon());
    }
    // Arrows, ≤, ×, √, … used by the lab's labels.
    static const ImWchar symbols[] = {0x2013, 0x2026, 0x2190, 0x21FF, 0x2200, 0x22FF, 0};
    ImFontConfig symbolMerge;
    symbolMerge.MergeMode = true;
    io.Fonts->AddFontFromFileTTF(latin.toLocal8Bit().constData(), pixelSize * scale, &symbolMerge, symbols);
    io.FontGlobalScale = 1.0f / scale;
    return true;
}

} // namespace attnlab
