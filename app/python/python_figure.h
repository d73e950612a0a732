#pragma once

#include <pybind11/pybind11.h>

namespace attnlab {

// attnlab.figure(view, **settings) and the Figure it returns (docs/python.md).
void defineFigure(pybind11::module_& module);

} // namespace attnlab
