#pragma once

#include "views/shell/model_presets.h"

#include <vector>

namespace attnlab {

// The figure presets of attention on image and video grids (docs/grids.md): the Sparse Transformer's
// image figure, NATTEN, Swin, axial attention and sliding tile attention, each with the grid view on.
std::vector<FigurePreset> gridFigurePresets();

} // namespace attnlab
