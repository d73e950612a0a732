#pragma once

#include <string>
#include <vector>

namespace attnlab {

// Opens the desktop app (also handles --screenshot FILE [--view NAME]).
int runGui(int argc, char** argv);

// `attnlab figure VIEW [parameters] -o FILE`: renders a view headless.
int figureCommand(const std::vector<std::string>& args);

// Selects Qt's offscreen platform when there is no display and none was chosen.
void useOffscreenWithoutDisplay();

} // namespace attnlab
