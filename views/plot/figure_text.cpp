#include "views/plot/figure_text.h"

#include <algorithm>

namespace attnlab {

namespace {

thread_local double t_floorPoints = 0.0;

} // namespace

SmallPrintFloor::SmallPrintFloor(double points) : m_before(t_floorPoints) { t_floorPoints = points; }

SmallPrintFloor::~SmallPrintFloor() { t_floorPoints = m_before; }

double SmallPrintFloor::points() { return t_floorPoints; }

double smallPrintPoints(double points) { return std::max(points, t_floorPoints); }

} // namespace attnlab
