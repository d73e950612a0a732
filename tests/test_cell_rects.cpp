// Merged cell rectangles of vector figures: they cover exactly the cells of each colour, never overlap,
// and no rectangle could be merged with the one directly below it.

#include "core/patterns/cell_rects.h"
#include "core/patterns/pattern.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <random>
#include <vector>

namespace attnlab {
namespace {

// An n × n grid of colours (0: background), random runs per row with rows often repeated.
std::vector<std::vector<std::uint32_t>> randomGrid(std::int64_t n, std::mt19937& random) {
    std::vector<std::vector<std::uint32_t>> grid(static_cast<std::size_t>(n), std::vector<std::uint32_t>(static_cast<std::size_t>(n), 0));
    std::uniform_int_distribution<int> colour(0, 3);
    std::bernoulli_distribution repeat(0.5);
    for (std::int64_t i = 0; i < n; ++i) {
        if (i > 0 && repeat(random)) {
            grid[i] = grid[i - 1];
            continue;
        }
        for (auto& cell : grid[i]) cell = static_cast<std::uint32_t>(colour(random));
    }
    return grid;
}

RowRuns gridRuns(const std::vector<std::vector<std::uint32_t>>& grid, std::int64_t col0, std::int64_t col1) {
    return [&grid, col0, col1](std::int64_t i, std::vector<CellRun>& out) {
        for (std::int64_t j = col0; j < col1;) {
            std::int64_t end = j + 1;
            while (end < col1 && grid[i][end] == grid[i][j]) ++end;
            if (grid[i][j] != 0) out.push_back({j, end, grid[i][j]});
            j = end;
        }
    };
}

TEST(CellRects, CoverEachColouredCellExactlyOnceAndMergeEveryIdenticalStack) {
    std::mt19937 random(7);
    for (int trial = 0; trial < 20; ++trial) {
        const std::int64_t n = 1 + trial * 3;
        const auto grid = randomGrid(n, random);
        const std::int64_t row0 = trial % 3, col0 = trial % 2;
        const auto rects = mergeRowRuns(row0, n, gridRuns(grid, col0, n));
        std::vector<std::vector<int>> covered(static_cast<std::size_t>(n), std::vector<int>(static_cast<std::size_t>(n), 0));
        for (const CellRect& rect : rects) {
            ASSERT_LT(rect.row0, rect.row1);
            ASSERT_LT(rect.col0, rect.col1);
            for (std::int64_t i = rect.row0; i < rect.row1; ++i)
                for (std::int64_t j = rect.col0; j < rect.col1; ++j) {
                    ++covered[i][j];
                    EXPECT_EQ(grid[i][j], rect.colour);
                }
        }
        for (std::int64_t i = 0; i < n; ++i)
            for (std::int64_t j = 0; j < n; ++j)
                EXPECT_EQ(covered[i][j], i >= row0 && j >= col0 && grid[i][j] != 0 ? 1 : 0) << i << "," << j;
        for (const CellRect& upper : rects)
            for (const CellRect& lower : rects)
                EXPECT_FALSE(lower.row0 == upper.row1 && lower.col0 == upper.col0 && lower.col1 == upper.col1 &&
                             lower.colour == upper.colour && upper.row1 < n)
                    << "unmerged stack at row " << upper.row1;
    }
}

TEST(CellRects, AllowedRunsOfABandStackOnlyWhereRowsRepeat) {
    // Full attention: every row is [0, n), one rectangle for the whole plane.
    const std::int64_t n = 40;
    const ExplicitPattern full(n, std::vector<std::vector<ColumnRange>>(static_cast<std::size_t>(n), {{0, n}}));
    const auto whole = mergeRowRuns(0, n, allowedRuns(full, 0, n, 0xff00ff00u));
    ASSERT_EQ(whole.size(), 1u);
    EXPECT_EQ(whole.front(), (CellRect{0, n, 0, n, 0xff00ff00u}));
    // Clipped to columns [10, 20) of rows [5, 15): one rectangle of exactly that region.
    EXPECT_EQ(mergeRowRuns(5, 15, allowedRuns(full, 10, 20, 1)), (std::vector<CellRect>{{5, 15, 10, 20, 1}}));
    // A band |i − j| ≤ 2 shifts every row: one rectangle per row, each of the row's own width.
    std::vector<std::vector<ColumnRange>> bandRows;
    for (std::int64_t i = 0; i < n; ++i) bandRows.push_back({{std::max<std::int64_t>(0, i - 2), std::min(n, i + 3)}});
    const ExplicitPattern band(n, bandRows);
    const auto rows = mergeRowRuns(0, n, allowedRuns(band, 0, n, 1));
    ASSERT_EQ(rows.size(), static_cast<std::size_t>(n));
    std::int64_t cells = 0;
    for (const CellRect& rect : rows) cells += (rect.row1 - rect.row0) * (rect.col1 - rect.col0);
    EXPECT_EQ(cells, 5 * n - 6);
}

} // namespace
} // namespace attnlab
