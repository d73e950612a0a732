#include "core/patterns/range_work.h"

#include "core/param_schema.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <vector>

namespace attnlab {

namespace {

thread_local RangeWork t_done;
// The total t_done.ranges may reach, and the size of the limit that set it (for the message).
thread_local std::int64_t t_end = std::numeric_limits<std::int64_t>::max();
thread_local std::int64_t t_limit = 0;

std::optional<std::int64_t> g_rangeOverride;

std::string rangeCount(double ranges) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", ranges);
    return text;
}

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

void setJobRangeLimit(std::optional<std::int64_t> ranges) { g_rangeOverride = ranges; }

std::int64_t jobRangeLimit() {
    if (g_rangeOverride) return *g_rangeOverride;
    if (const char* env = std::getenv("ATTNLAB_MAX_RANGES")) {
        const auto ranges = parseInteger(env);
        if (!ranges || *ranges < 1)
            throw InputError(std::string("ATTNLAB_MAX_RANGES = '") + env + "' is not a positive integer (e.g. 8589934592)");
        return *ranges;
    }
    return kDefaultMaxRanges;
}

double requireRangeWork(const Pattern& pattern, std::int64_t perRow) {
    if (perRow < 0) throw std::invalid_argument("requireRangeWork: perRow must be at least 0");
    const std::int64_t rows = pattern.rows(), limit = jobRangeLimit();
    const std::int64_t sample = std::min(rows, kRangeSampleRows);
    if (sample == 0) return 0.0;
    const auto refuse = [&](const std::string& estimate) {
        throw RangeWorkExceeded("counting this pattern's cells at n = " + std::to_string(pattern.size()) + " needs " + estimate +
                                " column ranges of work (estimated from " + std::to_string(sample) +
                                " of its rows), over the range limit of " + std::to_string(limit) +
                                " (raise it with --max-ranges N or ATTNLAB_MAX_RANGES)");
    };
    // A sample past its share of the limit puts the whole over it. It may go on to 16 times its share, so
    // that a refusal names an estimate rather than a bound; one row then holds at most about
    // sqrt(2^9 · limit) ranges (a row of n has at most n / 2, and the share shrinks as 1 / n).
    const double share = static_cast<double>(limit) * static_cast<double>(sample) / static_cast<double>(rows);
    const std::int64_t cap = static_cast<std::int64_t>(std::min(std::ceil(16 * share), static_cast<double>(limit)));
    const double scale = static_cast<double>(rows) / static_cast<double>(sample);
    const std::int64_t before = rangeWorkDone().ranges;
    std::vector<ColumnRange> row;
    double sampled = 0;
    try {
        const RangeWorkLimit sampleLimit(cap);
        for (std::int64_t k = 0; k < sample; ++k) {
            row.clear();
            pattern.rowRanges((2 * k + 1) * rows / (2 * sample), row);
            sampled += static_cast<double>(row.size());
        }
    } catch (const RangeWorkExceeded& stopped) {
        refuse("at least " + rangeCount(static_cast<double>(stopped.reached()) * scale));
    }
    const double estimate = static_cast<double>(rangeWorkDone().ranges - before) * scale + static_cast<double>(perRow) * static_cast<double>(rows);
    if (estimate > static_cast<double>(limit)) refuse("about " + rangeCount(estimate));
    return sampled * scale;
}

} // namespace attnlab
