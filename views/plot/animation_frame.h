#pragma once

#include <QRectF>
#include <QString>

#include <map>
#include <string>
#include <vector>

class QPainter;

namespace attnlab {

struct Axis;

// The ranges of an animation's plot axes and colour scales over its whole sweep. Recording, every axis a
// frame paints widens the recorded range of that axis (the k-th axis painted in a frame is axis k of
// every frame); holding, each axis is painted with the union of its own range and the recorded one, so
// over a sweep nothing moves but the data.
class FrameHold {
  public:
    void setHolding(bool holding) { m_holding = holding; }
    bool holding() const { return m_holding; }
    // The next axis painted is the frame's first.
    void startFrame() { m_next = 0; }
    // Records `axis`' range, or widens it to the one held (categorical axes are left alone).
    void apply(Axis& axis);
    // An integer colour scale's top (the receptive field's layers L): recorded, or the largest recorded.
    int scaleMaximum(const std::string& key, int value);

  private:
    struct Range {
        double min, max;
    };
    bool m_holding = false;
    std::size_t m_next = 0;
    std::vector<Range> m_axes;
    std::map<std::string, int> m_scales;
};

// The frame of an animation being painted: its swept value, written under the figure's title with the
// frame's place in the sweep, and the hold of its axes (null with --free-axes).
struct AnimationFrame {
    QString label; // "layers L = 3"
    int index = 0;
    int count = 1;
    FrameHold* hold = nullptr;
};

// The frame the painting thread is painting, set by an AnimationFrameScope; null outside an animation's
// rendering (the screen, a static export), where figures paint as they always do.
const AnimationFrame* currentAnimationFrame();
// An integer colour scale's top under the current frame's hold; `value` itself outside an animation.
int heldScaleMaximum(const std::string& key, int value);

// Within an animation's frame: paints the frame's label and its place in the sweep in a strip at the top
// of `rect` and returns the rest, where the figure goes; outside one returns `rect`.
QRectF paintAnimationLabel(QPainter& painter, const QRectF& rect);
inline constexpr double kAnimationLabelHeight = 28.0;

class AnimationFrameScope {
  public:
    explicit AnimationFrameScope(const AnimationFrame* frame);
    ~AnimationFrameScope();
    AnimationFrameScope(const AnimationFrameScope&) = delete;
    AnimationFrameScope& operator=(const AnimationFrameScope&) = delete;

  private:
    const AnimationFrame* m_previous;
};

} // namespace attnlab
