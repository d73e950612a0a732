#pragma once

#include <pybind11/pybind11.h>

namespace attnlab {

// Throws InputError (a ValueError in Python) unless called from Python's main thread: the figures' Qt
// application lives there (a QApplication made in a passing thread left every later figure waiting).
void requireFigureThread(const char* what);

// Starts the process's QApplication for figures when there is none yet (offscreen without a display).
void ensureFigureApplication();

// attnlab.figure(view, **settings) and the Figure (or, with animate=, the Animation) it returns
// (docs/python.md).
void defineFigure(pybind11::module_& module);

} // namespace attnlab
