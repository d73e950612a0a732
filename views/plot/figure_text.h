#pragma once

#include <QSizeF>

namespace attnlab {

// The body text of every figure (tick labels, legends, notes), set by FigureView::paintFrame.
inline constexpr double kBodyPoints = 9.0;
// Slide mode's frame, in logical pixels: a 16:9 projector's 1080p.
inline constexpr QSizeF kSlideSize(1920, 1080);

// While one exists on this thread, small print is no smaller than `points`: FigureView::paintFigure
// sets the body text's size as the floor of a figure drawn above font scale 1, which is read from
// further away. Floors nest; the innermost holds.
class SmallPrintFloor {
public:
    explicit SmallPrintFloor(double points);
    ~SmallPrintFloor();
    SmallPrintFloor(const SmallPrintFloor&) = delete;
    SmallPrintFloor& operator=(const SmallPrintFloor&) = delete;
    static double points();

private:
    double m_before;
};

// The point size of small print (cell labels, panel details, stats, captions) that is `points` at the
// default scale: at least the floor in force.
double smallPrintPoints(double points);

} // namespace attnlab
