#pragma once

// Legends below their plot, out of the data: filled swatches or line samples in as many centred
// columns as fit, then each note (an entry with neither swatch nor line) on lines of its own, wrapped
// at its words where it is wider than the legend. A name wider than the legend shrinks, then, in a legend
// of one column, goes on two lines; only a name that two lines cannot hold is elided.

#include "views/plot/plot_axes.h"

#include <QRectF>

#include <vector>

class QPainter;

namespace attnlab {

// The plot area left above a legend of `entries` laid out for `area`'s width.
QRectF aboveLegend(const QPainter& painter, const QRectF& area, const std::vector<LegendEntry>& entries);

// Draws `entries` into `box` (the strip below the plot that aboveLegend left).
void drawLegendBelow(QPainter& painter, const QRectF& box, const std::vector<LegendEntry>& entries);

// One row per entry, kLegendRowHeight high, from `box`'s top: a line sample in the entry's colour and
// style, then its name in small print, shrunk to fit the row (for a legend beside its plot).
constexpr double kLegendRowHeight = 15.0;
void drawLegendRows(QPainter& painter, const QRectF& box, const std::vector<LegendEntry>& entries);

// aboveLegend, then the legend drawn in the strip below it; returns the plot area.
QRectF legendBelow(QPainter& painter, const QRectF& area, const std::vector<LegendEntry>& entries);

} // namespace attnlab
