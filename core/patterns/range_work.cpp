#include "core/patterns/range_work.h"

#include <algorithm>
#include <limits>

namespace attnlab {

namespace {

thread_local RangeWork t_done;
// The total t_done.ranges may reach, and the size of the limit that set it (for the message).
thread_local std::int64_t t_end = std::numeric_limits<std::int64_t>::max();
thread_local std::int64_t t_limit = 0;

} // namespace

RangeWork rangeWorkDone() { return t_done; }

void countRangeWork(std::int64_t rows, std::int64_t ranges) {
    t_done.rows += rows;
    t_done.ranges += ranges;
    if (t_done.ranges > t_end) throw RangeWorkExceeded(t_limit, t_done.ranges - (t_end - t_limit));
}

void requireRangeRoom(std::int64_t ranges) {
    if (ranges > t_end - t_done.ranges) throw RangeWorkExceeded(t_limit, t_done.ranges + ranges - (t_end - t_limit));
}

RangeWorkExceeded::RangeWorkExceeded(std::int64_t limit, std::int64_t reached)
    : InputError("counting this pattern's cells needs more than " + std::to_string(limit) +
                 " column ranges of work at this n (too many ranges per row); choose a smaller n, a pattern with "
                 "fewer ranges per row or a larger --max-ranges"),
      m_reached(reached) {}

RangeWorkLimit::RangeWorkLimit(std::int64_t ranges) : m_previousEnd(t_end), m_previousLimit(t_limit) {
    const std::int64_t end = t_done.ranges + ranges;
    if (end < t_end) {
        t_end = end;
        t_limit = ranges;
    }
}

RangeWorkLimit::~RangeWorkLimit() {
    t_end = m_previousEnd;
    t_limit = m_previousLimit;
}

} // namespace attnlab
