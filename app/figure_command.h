#pragma once

#include <string>
#include <vector>

namespace attnlab {

// `attnlab figure VIEW [parameters] -o FILE`: renders one view headless through the screen's painting
// code and writes it atomically. Uses the running QApplication when there is one (tests drive it in
// process), else starts its own on the offscreen platform. Bad input throws InputError.
int figureCommand(const std::vector<std::string>& args);

} // namespace attnlab
