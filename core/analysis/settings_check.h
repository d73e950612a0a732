#pragma once

#include "core/analysis/lab_settings.h"

#include <string>

namespace attnlab {

// The one-line problem with `settings` (empty when every chosen variant accepts them): the parameter
// panel shows it, and `attnlab figure` refuses settings that have one.
std::string settingsProblem(const LabSettings& settings);

} // namespace attnlab
