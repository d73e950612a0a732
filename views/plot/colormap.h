#pragma once

#include <QColor>

namespace attnlab {

// Viridis (perceptually uniform, readable with every common colour-vision deficiency and in grey).
// t is clamped to [0, 1]; 0 is dark purple, 1 is yellow.
QRgb viridis(double t);

// Signed values (t clamped to [−1, 1]): blue below 0, red above, light grey at 0 (ColorBrewer's RdBu
// reversed; readable with the common colour-vision deficiencies). For weights that can be negative.
QRgb divergingColor(double t);

// Colour of a mask cell whose block has `density` allowed cells (0 … 1): empty blocks are the light
// background, any allowed cell runs the reversed viridis from light green (sparse) to dark purple (full).
QRgb densityColor(double density);
QRgb emptyCellColor();

// Colour of pattern component k (1-based) in the Okabe–Ito palette (distinguishable with every common
// colour-vision deficiency): blue, orange, bluish green, reddish purple, vermillion, sky blue, yellow,
// repeating from the eighth; kAddedDiagonal (255) is near-black.
QRgb componentColor(int component);
// Pixels covering several cells: `mixed` (the cells' colours averaged by count) faded towards the
// background as the share of allowed cells falls, never below 45 % so a lone cell stays visible.
QRgb fadedComponentColor(QRgb mixed, double density);

} // namespace attnlab
