#pragma once

#include "core/patterns/pattern.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace attnlab {

// A run of equal colour in one row: columns [col0, col1).
struct CellRun {
    std::int64_t col0 = 0;
    std::int64_t col1 = 0;
    std::uint32_t colour = 0; // 0xAARRGGBB
    bool operator==(const CellRun&) const = default;
};

// Cells [row0, row1) × [col0, col1) of one colour: what vector figures draw as one rectangle.
struct CellRect {
    std::int64_t row0 = 0, row1 = 0, col0 = 0, col1 = 0;
    std::uint32_t colour = 0;
    bool operator==(const CellRect&) const = default;
};

// Fills `out` with row i's runs, sorted by col0 and disjoint (cells without a run are background).
using RowRuns = std::function<void(std::int64_t i, std::vector<CellRun>& out)>;

// The runs of rows [row0, row1), each run merged with the same run (same columns and colour) of the rows
// above it: one rectangle per vertical stack of identical runs. Rectangles come in order of their first row.
std::vector<CellRect> mergeRowRuns(std::int64_t row0, std::int64_t row1, const RowRuns& rowRuns);

// Row runs of `pattern`'s allowed cells clipped to columns [col0, col1), all in `colour`.
RowRuns allowedRuns(const Pattern& pattern, std::int64_t col0, std::int64_t col1, std::uint32_t colour);

} // namespace attnlab
