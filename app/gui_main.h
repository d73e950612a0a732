#pragma once

namespace attnlab {

// Opens the desktop app (also handles --screenshot FILE [--view NAME]).
int runGui(int argc, char** argv);

} // namespace attnlab
