#pragma once

#include <QByteArray>
#include <QSizeF>

#include <functional>

class QPainter;

namespace attnlab {

// QSvgGenerator writes every piece of text at the x where the painter's font put its left end, so in a
// reader with other fonts a centred title drifts off centre and right-aligned tick labels leave their
// axis. anchorSvgText paints the figure (`paint`, on `size` logical pixels at 96 dpi) once more on a
// device that records each text item's anchor (currentTextAnchor()), x and advance, and rewrites the
// matching <text> elements of `svg`, in order: text-anchor="middle" at the item's centre, "end" at its
// right end; left-aligned text keeps its x.
QByteArray anchorSvgText(const QByteArray& svg, const QSizeF& size, const std::function<void(QPainter&)>& paint);

} // namespace attnlab
