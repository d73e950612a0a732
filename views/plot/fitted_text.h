#pragma once

#include <QFont>
#include <QRectF>
#include <QString>

#include <utility>

class QFontMetricsF;
class QPainter;

namespace attnlab {

// Draws `text` into `rect` with `flags`, in the painter's font scaled down as far as kSmallestTextScale
// where it is wider than the rect, and elided only past that: a legend entry or title keeps its numbers
// at the default figure size instead of losing its end.
inline constexpr double kSmallestTextScale = 0.72;
void drawFittedText(QPainter& painter, const QRectF& rect, int flags, const QString& text);
// True when drawFittedText draws `text` whole (not elided) in `width` in the painter's font.
bool fitsWhenFitted(const QPainter& painter, double width, const QString& text);
// The lines drawFittedLines takes for `text` in `width` in `font` (no device: the screen's metrics): 1 when
// it fits on one line at drawFittedText's smallest scale, else 2 (1 for text without a space).
int fittedLines(QFont font, double width, const QString& text);
// `text` cut at the space that best balances the two lines in `metrics`, never between the sides of an
// equation ("δ = 2") nor before a " · " separator while another space is left; {text, ""} for text
// without a space.
std::pair<QString, QString> splitInTwo(const QFontMetricsF& metrics, const QString& text);
// drawFittedText on one line centred in `rect` when the smallest scale fits it, else on two, split at the
// space that balances them best, each line fitted into half of `rect`.
void drawFittedLines(QPainter& painter, const QRectF& rect, int flags, const QString& text);

} // namespace attnlab
