#pragma once

#include <QColor>

#include <string>
#include <vector>

namespace attnlab {

// The colour of each variant (its registry id) wherever a figure draws variants as curves, points or
// bars: timing, FLOP, roofline, accuracy, inference and receptive field. One table, so a variant keeps
// its colour from figure to figure: Okabe–Ito's colours first, then Paul Tol's muted ones (both
// distinguishable with the common colour-vision deficiencies); grey for an id the table does not know.
QColor variantColor(const std::string& variant);

// The colours of a figure's curves, one per entry of `variants` (ids, in drawing order): each its
// variant's colour, and a variant drawn again (a second window size, a window with sinks) a darker, then
// a lighter shade of it.
std::vector<QColor> variantColors(const std::vector<std::string>& variants);

} // namespace attnlab
