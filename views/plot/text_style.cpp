#include "views/plot/text_style.h"

#include <QFontMetricsF>
#include <QPainter>
#include <QStringList>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

thread_local TextAnchor t_anchor = TextAnchor::Start;
thread_local bool t_stated = false;

bool isCjk(char32_t c) {
    return (c >= 0x2E80 && c <= 0x9FFF) || (c >= 0xAC00 && c <= 0xD7AF) || (c >= 0xF900 && c <= 0xFAFF) ||
           (c >= 0xFF00 && c <= 0xFFEF) || (c >= 0x20000 && c <= 0x2FA1F);
}

} // namespace

bool hasCjk(const QString& text) {
    for (const char32_t c : text.toUcs4())
        if (isCjk(c)) return true;
    return false;
}

QFont headingFont(QFont font, const QString& text) {
    font.setBold(!hasCjk(text));
    return font;
}

TextAnchor currentTextAnchor() { return t_anchor; }

bool textAnchorStated() { return t_stated; }

void drawAlignedText(QPainter& painter, const QRectF& rect, int flags, const QString& text) {
    const TextAnchor outer = t_anchor;
    const bool outerStated = t_stated;
    t_anchor = (flags & Qt::AlignHCenter) ? TextAnchor::Middle : (flags & Qt::AlignRight) ? TextAnchor::End : TextAnchor::Start;
    t_stated = true;
    painter.drawText(rect, flags, text);
    t_anchor = outer;
    t_stated = outerStated;
}

void drawColumnLabel(QPainter& painter, const QPointF& foot, double room, const QString& text) {
    const QFontMetricsF metrics(painter.font(), painter.device());
    painter.save();
    painter.translate(foot);
    if (hasCjk(text)) {
        const QList<uint> characters = text.toUcs4();
        const auto fit = static_cast<qsizetype>(std::max(1.0, std::floor(room / metrics.lineSpacing())));
        QStringList lines;
        for (qsizetype k = 0; k < std::min(fit, characters.size()); ++k) {
            const char32_t c = characters[k];
            lines << QString::fromUcs4(&c, 1);
        }
        if (characters.size() > fit) lines.back() = QStringLiteral("…");
        const double width = metrics.height() * 2;
        drawAlignedText(painter, QRectF(-width / 2, -room, width, room), Qt::AlignHCenter | Qt::AlignBottom, lines.join(QLatin1Char('\n')));
    } else {
        painter.rotate(-90);
        drawAlignedText(painter, QRectF(0, -8, room, 16), Qt::AlignLeft | Qt::AlignVCenter, metrics.elidedText(text, Qt::ElideRight, room));
    }
    painter.restore();
}

} // namespace attnlab
