#pragma once

// The work of evaluating pattern expressions row by row (core/patterns/expression_pattern.h), counted
// on the calling thread: rows evaluated and ranges the primitives produce (a random primitive counts
// its draws). A RangeWorkLimit in scope bounds it, so a search over n that counts a pattern's cells can
// stop where counting costs too much instead of running for minutes; tests read the totals.

#include "core/errors.h"

#include <cstdint>

namespace attnlab {

struct RangeWork {
    std::int64_t rows = 0;
    std::int64_t ranges = 0;
};

// This thread's totals since it started.
RangeWork rangeWorkDone();

// Adds to this thread's totals; throws RangeWorkExceeded when the ranges pass the innermost limit.
void countRangeWork(std::int64_t rows, std::int64_t ranges);

// The pattern's cells could not be counted within the limit. An InputError, so a command that does
// not catch it ends with its message and exit 2; searches catch it first and stop.
class RangeWorkExceeded : public InputError {
public:
    explicit RangeWorkExceeded(std::int64_t limit);
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

} // namespace attnlab
