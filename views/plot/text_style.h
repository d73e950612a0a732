#pragma once

#include <QFont>
#include <QPointF>
#include <QRectF>
#include <QString>

class QPainter;

namespace attnlab {

// True when `text` holds a CJK ideograph, kana, hangul or full-width form: text set upright in columns and
// without a bold face of its own.
bool hasCjk(const QString& text);

// `font` for a title or heading reading `text`: bold in Latin script, regular weight for CJK text (its
// fonts have no bold face, so Qt would thicken the strokes into blots, and Chinese figure titles are set
// in regular weight).
QFont headingFont(QFont font, const QString& text);

// Where a piece of text sits against its x position: what SVG calls text-anchor.
enum class TextAnchor { Start, Middle, End };

// The anchor of the text being drawn on this thread: Middle or End inside drawAlignedText for centred or
// right-aligned flags, Start everywhere else. The SVG export reads it to state each text's anchor.
TextAnchor currentTextAnchor();
// True inside drawAlignedText: the anchor was stated by the text's own alignment, not left at Start.
bool textAnchorStated();

// QPainter::drawText(rect, flags, text), with the alignment of `flags` as the current anchor while the
// painter lays the text out: centred text stays centred in a vector file whatever font the reader has.
void drawAlignedText(QPainter& painter, const QRectF& rect, int flags, const QString& text);

// A column's label standing on `foot` (its bottom centre), at most `room` pixels tall, in the painter's
// font: Latin text rotated 90° to read upwards; CJK text upright, one character under the other, as
// vertical Chinese is written (rotated, its characters would lie on their sides). Elided past `room`.
void drawColumnLabel(QPainter& painter, const QPointF& foot, double room, const QString& text);

} // namespace attnlab
