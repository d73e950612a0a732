#pragma once

#include <imgui.h>

namespace attnlab {

// The colour of error text in the ImGui lab (controls and canvas).
inline const ImVec4 kLabErrorColor(0.75f, 0.1f, 0.1f, 1.0f);

} // namespace attnlab
