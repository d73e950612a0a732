#pragma once

#include <QString>

#include <string>

namespace attnlab {

// The paper a figure preset (LabSettings::preset, its command-line id) redraws, as its title names it:
// "Longformer (Beltagy et al., 2020)"; empty for a preset that redraws no paper's figure, or none.
QString presetPaper(const std::string& preset);

} // namespace attnlab
