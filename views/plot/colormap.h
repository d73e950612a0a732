#pragma once

#include <QColor>
#include <QString>

namespace attnlab {

// Viridis (perceptually uniform, readable with every common colour-vision deficiency and in grey).
// t is clamped to [0, 1]; 0 is dark purple, 1 is yellow.
QRgb viridis(double t);

// Colour of a mask cell whose block has `density` allowed cells (0 … 1): empty blocks are the light
// background, any allowed cell runs the reversed viridis from light green (sparse) to dark purple (full).
QRgb densityColor(double density);
QRgb emptyCellColor();

inline QString colormapName() { return QStringLiteral("viridis"); }

} // namespace attnlab
