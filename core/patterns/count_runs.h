#pragma once

// A pattern's row counts described by runs of rows whose counts follow a plane: what a cost needs (the
// total, the longest rows) in O(runs) instead of one rowCount call per row, so that `cost` near
// n = 2^31 does not walk two billion rows.

#include <cstdint>
#include <functional>
#include <vector>

namespace attnlab {

// Rows first + k·period + t, for 0 ≤ k < repeats and 0 ≤ t < length (length ≤ period), each with
// count start + k·perRepeat + t·perRow. A run of consecutive rows has repeats = 1.
struct CountRun {
    std::int64_t first = 0;
    std::int64_t length = 0;
    std::int64_t period = 0;
    std::int64_t repeats = 1;
    std::int64_t start = 0;
    std::int64_t perRow = 0;
    std::int64_t perRepeat = 0;

    std::int64_t row(std::int64_t k, std::int64_t t) const { return first + k * period + t; }
    std::int64_t count(std::int64_t k, std::int64_t t) const { return start + k * perRepeat + t * perRow; }
    // Σ of the counts of every row, exact (an n × n pattern has at most 2^62 cells).
    long double total() const;
    std::int64_t longest() const;
};
using CountRunVisitor = std::function<void(const CountRun&)>;

// Consecutive rows [first, first + length) counting start, start + perRow, …
CountRun consecutiveRun(std::int64_t first, std::int64_t length, std::int64_t start, std::int64_t perRow = 0);

// The parts of `run` in rows [lo, hi), shifted by −lo (a run of the last query rows of a pattern).
void visitClipped(const CountRun& run, std::int64_t lo, std::int64_t hi, const CountRunVisitor& visit);

// Rows [0, rows) cut at `breaks` (any order, those outside ignored) into segments on which the caller
// knows `count` to be affine in the row: each segment one run read from its first two rows. The breaks
// must include every row where the count's formula may change.
void affineRuns(std::int64_t rows, std::vector<std::int64_t> breaks, const std::function<std::int64_t(std::int64_t)>& count,
                const CountRunVisitor& visit);

} // namespace attnlab
