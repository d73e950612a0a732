#pragma once

#include <string>

namespace attnlab {

// Selects Qt's offscreen platform when there is no display and none was chosen.
void useOffscreenWithoutDisplay();

// For headless runs (figure, screenshots): drops Qt's debug, info and warning messages (platform notes
// such as a missing XDG_RUNTIME_DIR, or size hints the offscreen platform ignores) so that stderr
// carries only attnlab's own one-line errors. Critical and fatal messages still print.
void quietQtMessages();

// Throws InputError (one line, prefixed by `command`) when `path` cannot be an output file: empty, its
// directory missing, or anything but a regular file or a new name (requireReplaceableTarget).
void checkOutputPath(const std::string& command, const std::string& path);

} // namespace attnlab
