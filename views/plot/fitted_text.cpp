#include "views/plot/fitted_text.h"

#include "views/plot/figure_text.h"
#include "views/plot/text_style.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>
#include <cmath>
#include <vector>

namespace attnlab {

void drawFittedText(QPainter& painter, const QRectF& rect, int flags, const QString& text) {
    const double width = QFontMetricsF(painter.font(), painter.device()).horizontalAdvance(text);
    if (width <= rect.width()) {
        drawAlignedText(painter, rect, flags, text);
        return;
    }
    painter.save();
    QFont font = painter.font();
    // 3 % to spare: a smaller size's hinted advance is not exactly the scaled one.
    const double scale = std::max(kSmallestTextScale, 0.97 * rect.width() / width);
    if (font.pointSizeF() > 0)
        font.setPointSizeF(std::max(font.pointSizeF() * scale, std::min(font.pointSizeF(), SmallPrintFloor::points())));
    else
        font.setPixelSize(std::max(1, static_cast<int>(font.pixelSize() * scale)));
    painter.setFont(font);
    drawAlignedText(painter, rect, flags, QFontMetricsF(font, painter.device()).elidedText(text, Qt::ElideRight, rect.width()));
    painter.restore();
}

namespace {

QFont smallestFittedFont(QFont font) {
    if (font.pointSizeF() > 0)
        font.setPointSizeF(std::max(font.pointSizeF() * kSmallestTextScale, std::min(font.pointSizeF(), SmallPrintFloor::points())));
    else
        font.setPixelSize(std::max(1, static_cast<int>(font.pixelSize() * kSmallestTextScale)));
    return font;
}

bool fitsOneLine(const QFontMetricsF& smallest, double width, const QString& text) {
    return smallest.horizontalAdvance(text) <= width || !text.contains(QLatin1Char(' '));
}

// Where drawFittedLines breaks `text`: the space that best balances the two lines, never between the
// sides of an equation ("δ = 2" stays whole) nor before a " · " separator while another space is left.
qsizetype lineBreak(const QFontMetricsF& metrics, const QString& text) {
    std::vector<qsizetype> spaces, free;
    for (qsizetype at = text.indexOf(QLatin1Char(' ')); at >= 0; at = text.indexOf(QLatin1Char(' '), at + 1)) {
        spaces.push_back(at);
        const bool beforeSeparator = at + 1 < text.size() && text[at + 1] == QChar(0x00B7); // " · " ends the line
        if (!text.mid(at - 1, 3).contains(QLatin1Char('=')) && !beforeSeparator) free.push_back(at);
    }
    const std::vector<qsizetype>& candidates = free.empty() ? spaces : free;
    const auto imbalance = [&](qsizetype at) {
        return std::abs(metrics.horizontalAdvance(text.left(at)) - metrics.horizontalAdvance(text.mid(at + 1)));
    };
    return *std::min_element(candidates.begin(), candidates.end(), [&](qsizetype a, qsizetype b) { return imbalance(a) < imbalance(b); });
}

} // namespace

bool fitsWhenFitted(const QPainter& painter, double width, const QString& text) {
    return QFontMetricsF(smallestFittedFont(painter.font()), painter.device()).horizontalAdvance(text) <= width;
}

int fittedLines(QFont font, double width, const QString& text) {
    return fitsOneLine(QFontMetricsF(smallestFittedFont(std::move(font))), width, text) ? 1 : 2;
}

void drawFittedLines(QPainter& painter, const QRectF& rect, int flags, const QString& text) {
    const QFontMetricsF smallest(smallestFittedFont(painter.font()), painter.device());
    if (fitsOneLine(smallest, rect.width(), text)) return drawFittedText(painter, rect, flags, text);
    const auto [first, second] = splitInTwo(smallest, text);
    const QRectF top(rect.left(), rect.top(), rect.width(), rect.height() / 2);
    drawFittedText(painter, top, flags, first);
    drawFittedText(painter, top.translated(0, top.height()), flags, second);
}

std::pair<QString, QString> splitInTwo(const QFontMetricsF& metrics, const QString& text) {
    if (!text.contains(QLatin1Char(' '))) return {text, QString()};
    const qsizetype split = lineBreak(metrics, text);
    return {text.left(split), text.mid(split + 1)};
}

} // namespace attnlab
