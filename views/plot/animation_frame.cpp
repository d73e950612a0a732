#include "views/plot/animation_frame.h"

#include "views/plot/plot_axes.h"
#include "views/plot/text_style.h"

#include <QFontMetricsF>
#include <QPainter>

#include <algorithm>

namespace attnlab {

namespace {

thread_local const AnimationFrame* t_frame = nullptr;

} // namespace

void FrameHold::apply(Axis& axis) {
    if (!axis.categories.isEmpty()) return;
    const std::size_t index = m_next++;
    if (index >= m_axes.size()) m_axes.resize(index + 1, Range{axis.min, axis.max});
    Range& range = m_axes[index];
    if (m_holding) {
        axis.min = std::min(axis.min, range.min);
        axis.max = std::max(axis.max, range.max);
    } else {
        range.min = std::min(range.min, axis.min);
        range.max = std::max(range.max, axis.max);
    }
}

int FrameHold::scaleMaximum(const std::string& key, int value) {
    const auto found = m_scales.find(key);
    if (found == m_scales.end()) return m_scales[key] = value;
    if (!m_holding) found->second = std::max(found->second, value);
    return std::max(found->second, value);
}

const AnimationFrame* currentAnimationFrame() {
    return t_frame;
}

int heldScaleMaximum(const std::string& key, int value) {
    const AnimationFrame* frame = currentAnimationFrame();
    return frame && frame->hold ? frame->hold->scaleMaximum(key, value) : value;
}

QRectF paintAnimationLabel(QPainter& painter, const QRectF& rect) {
    const AnimationFrame* frame = currentAnimationFrame();
    if (!frame) return rect;
    const QRectF strip(rect.left(), rect.top(), rect.width(), kAnimationLabelHeight);
    painter.save();
    painter.fillRect(strip, Qt::white);
    QFont font = painter.font();
    font.setPointSizeF(11.0);
    font = headingFont(font, frame->label);
    painter.setFont(font);
    painter.setPen(QColor(0x00, 0x5a, 0x8c));
    drawAlignedText(painter, 
        strip.adjusted(8, 2, -8, -5), Qt::AlignCenter | Qt::TextSingleLine,
        QFontMetricsF(font, painter.device()).elidedText(frame->label, Qt::ElideRight, strip.width() - 16));
    // The frame's place in the sweep: a track along the strip's foot, filled up to this frame.
    const QRectF track(strip.left() + 8, strip.bottom() - 4, strip.width() - 16, 2.5);
    painter.fillRect(track, QColor(0xdd, 0xdd, 0xdd));
    const double done = frame->count > 1 ? static_cast<double>(frame->index) / (frame->count - 1) : 1.0;
    painter.fillRect(QRectF(track.left(), track.top(), track.width() * done, track.height()),
                     QColor(0x00, 0x72, 0xb2));
    painter.restore();
    return QRectF(rect.left(), strip.bottom(), rect.width(), rect.height() - strip.height());
}

AnimationFrameScope::AnimationFrameScope(const AnimationFrame* frame) : m_previous(t_frame) {
    t_frame = frame;
}

AnimationFrameScope::~AnimationFrameScope() {
    t_frame = m_previous;
}

} // namespace attnlab
