#pragma once

#include <pybind11/pybind11.h>

#include <string>
#include <vector>

namespace attnlab {

// attnlab.figure(view, animate="PARAM=FROM:TO[:STEP|:*FACTOR]", **settings): the Animation it returns,
// for `args`, the command line after `figure` without -o (docs/python.md).
pybind11::object animationFigure(std::vector<std::string> args);

void defineAnimation(pybind11::module_& module);

} // namespace attnlab
