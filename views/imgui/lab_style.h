#pragma once

#include <imgui.h>

#include <QString>

#include <string>

namespace attnlab {

// The colour of error text in the ImGui lab (controls and canvas).
inline const ImVec4 kLabErrorColor(0.75f, 0.1f, 0.1f, 1.0f);

// An ImGui label shown as `text` (translated) whose ImGui id stays `id` in every language.
inline std::string labLabel(const QString& text, const char* id) { return (text + QStringLiteral("##") + QLatin1String(id)).toStdString(); }

// Text shown as it is (no printf formatting of translated text).
inline void labText(const QString& text) { ImGui::TextUnformatted(text.toUtf8().constData()); }

} // namespace attnlab
