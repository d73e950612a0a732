#pragma once

#include <pybind11/pybind11.h>

namespace attnlab {

// Starts the process's QApplication for figures when there is none yet (offscreen without a display).
void ensureFigureApplication();

// attnlab.figure(view, **settings) and the Figure (or, with animate=, the Animation) it returns
// (docs/python.md).
void defineFigure(pybind11::module_& module);

} // namespace attnlab
