#pragma once

// The work of evaluating pattern expressions row by row (core/patterns/expression_pattern.h), counted
// on the calling thread: rows evaluated and ranges the primitives produce (a random primitive counts
// its draws). A RangeWorkLimit in scope bounds it, so a search over n that counts a pattern's cells can
// stop where counting costs too much instead of running for minutes; tests read the totals.

#include "core/errors.h"
#include "core/patterns/pattern.h"

#include <cstdint>
#include <optional>
#include <string>

namespace attnlab {

struct RangeWork {
    std::int64_t rows = 0;
    std::int64_t ranges = 0;
};

// This thread's totals since it started.
RangeWork rangeWorkDone();

// Adds to this thread's totals; throws RangeWorkExceeded when the ranges pass the innermost limit.
void countRangeWork(std::int64_t rows, std::int64_t ranges);

// Throws RangeWorkExceeded, before anything is produced, when `ranges` more would pass the innermost
// limit: for a primitive that knows how many ranges (or draws) a row will take before allocating them.
void requireRangeRoom(std::int64_t ranges);

// The pattern's cells could not be counted within the limit. An InputError, so a command that does
// not catch it ends with its message and exit 2; searches catch it first and stop.
class RangeWorkExceeded : public InputError {
public:
    // `reached`: the work within the limit's scope, counting what was asked for when it was refused.
    RangeWorkExceeded(std::int64_t limit, std::int64_t reached);
    explicit RangeWorkExceeded(const std::string& message) : InputError(message) {}
    std::int64_t reached() const { return m_reached; }

private:
    std::int64_t m_reached = 0;
};

// While in scope, at most `ranges` more ranges on this thread (nested limits: the tightest holds).
class RangeWorkLimit {
public:
    explicit RangeWorkLimit(std::int64_t ranges);
    ~RangeWorkLimit();
    RangeWorkLimit(const RangeWorkLimit&) = delete;
    RangeWorkLimit& operator=(const RangeWorkLimit&) = delete;

private:
    std::int64_t m_previousEnd;
    std::int64_t m_previousLimit;
};

// The column ranges one job may spend evaluating a pattern's rows: the value
// given to setJobRangeLimit (the command line's --max-ranges), else ATTNLAB_MAX_RANGES, else
// kDefaultMaxRanges (about a minute of counting on this kind of machine). Bounds what the MAC limit cannot see:
// counting the cells of an expression with many ranges per row (stride(2), random(k) at large n).
constexpr std::int64_t kDefaultMaxRanges = std::int64_t{1} << 32;
std::int64_t jobRangeLimit();
void setJobRangeLimit(std::optional<std::int64_t> ranges);

// Rows of a pattern evaluated, spread evenly over it, to estimate the work of evaluating every row.
constexpr std::int64_t kRangeSampleRows = 64;

// Throws RangeWorkExceeded (an InputError: one line naming the estimate, the limit and how to raise it)
// when evaluating every row of `pattern` is estimated from kRangeSampleRows of its rows to pass
// jobRangeLimit(). The sample itself stops, before allocating, once it passes 16 times its share of the limit.
// `perRow` more ranges of work are counted for every row (a row's own cost, where rows are counted one by
// one however few ranges they have); std::invalid_argument when negative. Returns the column ranges all of
// its rows give (rowRanges), estimated from the same sample: for sizing what a job builds from every row.
double requireRangeWork(const Pattern& pattern, std::int64_t perRow = 0);

} // namespace attnlab
