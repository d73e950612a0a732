#pragma once

#include "views/plot/plane_viewport.h"

#include "core/patterns/pattern.h"
#include "core/patterns/pattern_components.h"

#include <QImage>

namespace attnlab {

// The image of `region` of a labelled pattern, width × height pixels, from row components (never an
// n × n buffer). A cell has the colour of its component (componentColor): a cell that several terms
// contain belongs to the first of them in expression order, so it shows that term's colour. A pixel
// covering several cells mixes their colours by count, faded by its share of allowed cells
// (fadedComponentColor).
QImage componentColorImage(const PatternComponents& components, const PlaneRegion& region, int width, int height);

// The same for an unlabelled pattern drawn in one colour (one component shown on its own).
QImage singleColorImage(const Pattern& pattern, const PlaneRegion& region, int width, int height, QRgb colour);

} // namespace attnlab
