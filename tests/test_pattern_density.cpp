// Density images of patterns against a brute-force count: every matrix cell of a region belongs to
// the image cell holding its centre, and an image cell's density is allowed cells / cells mapped to it.
// Block counts (what a block kernel computes) against counting every block's cells one by one.
#include "core/patterns/block_counts.h"
#include "core/patterns/expression_pattern.h"
#include "core/patterns/pattern.h"
#include "core/patterns/token_grid.h"
#include "core/registry.h"
#include "support/grid_reference.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace attnlab {
namespace {

std::unique_ptr<Pattern> patternOf(const std::string& id, std::int64_t n, bool causal, const ParamOverrides& set = {}) {
    ProblemShape shape;
    shape.n = n;
    shape.d = shape.dv = 8;
    shape.causal = causal;
    const VariantInfo& variant = requireVariant(id);
    return buildPattern(variant, shape, prepareParams(variant, shape, set));
}

// The image cell of matrix index k of [begin, end) cut into `cells` equal parts, by the cell's centre.
std::int64_t cellOf(std::int64_t k, std::int64_t begin, std::int64_t end, int cells) {
    const double perCell = static_cast<double>(end - begin) / cells;
    return std::min<std::int64_t>(cells - 1, static_cast<std::int64_t>((static_cast<double>(k - begin) + 0.5) / perCell));
}

void expectMatchesBruteForce(const Pattern& pattern, std::int64_t row0, std::int64_t row1, std::int64_t col0,
                             std::int64_t col1, int width, int height, const std::string& what) {
    std::vector<double> allowed(static_cast<std::size_t>(width * height), 0), total(allowed.size(), 0);
    for (std::int64_t i = row0; i < row1; ++i)
        for (std::int64_t j = col0; j < col1; ++j) {
            const auto c = static_cast<std::size_t>(cellOf(i, row0, row1, height) * width + cellOf(j, col0, col1, width));
            total[c] += 1;
            allowed[c] += pattern.allowed(i, j) ? 1 : 0;
        }
    const DensityImage image = densityImageRegion(pattern, row0, row1, col0, col1, width, height);
    ASSERT_EQ(image.width, width);
    ASSERT_EQ(image.height, height);
    for (std::size_t c = 0; c < allowed.size(); ++c) {
        const double expected = total[c] > 0 ? allowed[c] / total[c] : 0.0;
        ASSERT_NEAR(image.density[c], expected, 1e-6) << what << " cell " << c % width << ", " << c / width;
    }
}

TEST(DensityImage, EqualsCountingTheMaskForEveryKindOfRange) {
    const std::int64_t n = 211;
    const std::vector<std::pair<std::string, ParamOverrides>> cases = {
        {"full", {}}, {"strided", {{"stride", "9"}}}, {"fixed", {{"block", "13"}, {"summary", "3"}}},
        {"longformer", {{"window", "30"}, {"dilation", "2"}, {"globals", "0,100"}}}, {"chunk", {{"chunk", "50"}}},
        {"bigbird", {}}};
    for (const auto& [id, set] : cases)
        for (const bool causal : {false, true}) {
            const auto pattern = patternOf(id, n, causal, set);
            const std::string what = id + (causal ? " causal" : "");
            expectMatchesBruteForce(*pattern, 0, n, 0, n, 37, 29, what + " whole");      // cells of 5–7 columns
            expectMatchesBruteForce(*pattern, 0, n, 0, n, 300, 250, what + " upsampled"); // more cells than columns
            expectMatchesBruteForce(*pattern, 40, 171, 13, 200, 17, 23, what + " region");
            expectMatchesBruteForce(*pattern, 100, 101, 0, n, 8, 1, what + " one row");
        }
}

TEST(DensityImage, ThreadsFoldTheSameImage) {
    // Image rows folded by several threads equal the one-thread image exactly, for fractional and
    // whole-block binning (each image row's sums are made in the same order by one thread).
    for (const std::string id : {"bigbird", "strided", "longformer"}) {
        const auto pattern = patternOf(id, 1000, false);
        const DensityImage one = densityImageRegion(*pattern, 0, 1000, 0, 1000, 97, 89, 1);
        const DensityImage two = densityImageRegion(*pattern, 0, 1000, 0, 1000, 97, 89, 2);
        EXPECT_EQ(one.density, two.density) << id;
        const DensityImage blocksOne = densityImageBlocks(*pattern, 3, 1000, 0, 999, 7, 1);
        const DensityImage blocksThree = densityImageBlocks(*pattern, 3, 1000, 0, 999, 7, 3);
        EXPECT_EQ(blocksOne.density, blocksThree.density) << id;
        EXPECT_GT(std::count_if(one.density.begin(), one.density.end(), [](float v) { return v > 0; }), 0) << id;
    }
}

TEST(DensityImage, WholeImageOfALargePatternHasTheRightTotal) {
    // n = 65,536 without an n × n buffer: the weighted sum of densities is nnz.
    const auto pattern = patternOf("longformer", 65536, true, {{"window", "512"}});
    const DensityImage image = densityImage(*pattern, 512);
    double allowedCells = 0;
    const double cellsPerBin = (65536.0 / image.width) * (65536.0 / image.height);
    for (const float value : image.density) allowedCells += value * cellsPerBin;
    EXPECT_NEAR(allowedCells / static_cast<double>(pattern->nnz()), 1.0, 1e-4);
}

// Whole blocks: image cell (y, x) folds rows row0 + y·block … and columns col0 + x·block …, the last
// ones partial; its density is allowed cells / cells folded there.
void expectBlocksMatchBruteForce(const Pattern& pattern, std::int64_t row0, std::int64_t row1, std::int64_t col0, std::int64_t col1,
                                 std::int64_t block, const std::string& what) {
    const int width = static_cast<int>((col1 - col0 + block - 1) / block), height = static_cast<int>((row1 - row0 + block - 1) / block);
    std::vector<double> allowed(static_cast<std::size_t>(width * height), 0), total(allowed.size(), 0);
    for (std::int64_t i = row0; i < row1; ++i)
        for (std::int64_t j = col0; j < col1; ++j) {
            const auto c = static_cast<std::size_t>((i - row0) / block * width + (j - col0) / block);
            total[c] += 1;
            allowed[c] += pattern.allowed(i, j) ? 1 : 0;
        }
    const DensityImage image = densityImageBlocks(pattern, row0, row1, col0, col1, block);
    ASSERT_EQ(image.width, width) << what;
    ASSERT_EQ(image.height, height) << what;
    for (std::size_t c = 0; c < allowed.size(); ++c) {
        ASSERT_NEAR(image.density[c], allowed[c] / total[c], 1e-6) << what << " cell " << c % width << ", " << c / width;
        if (allowed[c] > 0) {
            ASSERT_GT(image.density[c], 0.0f) << what << ": a block with an allowed cell is never empty";
        }
    }
}

TEST(DensityBlocks, EqualCountingTheMaskInWholeBlocks) {
    const std::int64_t n = 211;
    for (const auto& [id, set] : std::vector<std::pair<std::string, ParamOverrides>>{
             {"strided", {{"stride", "9"}}}, {"longformer", {{"window", "30"}, {"dilation", "2"}, {"globals", "0,100"}}}, {"bigbird", {}}})
        for (const bool causal : {false, true}) {
            const auto pattern = patternOf(id, n, causal, set);
            const std::string what = id + (causal ? " causal" : "");
            for (const std::int64_t block : {1, 2, 5, 7}) expectBlocksMatchBruteForce(*pattern, 0, n, 0, n, block, what + " whole");
            expectBlocksMatchBruteForce(*pattern, 40, 171, 13, 200, 4, what + " region");
        }
    EXPECT_EQ(densityBlock(1024, 500), 3);
    EXPECT_EQ(densityBlock(65536, 512), 128);
    EXPECT_EQ(densityBlock(100, 500), 1);
}

// Strided's allowed set is invariant under (i, j) → (i + 1, j + 1) away from the edges, so in whole
// blocks every diagonal keeps one density along its length: no moiré. Fractional bins (1024 columns
// into 500 cells) break that invariance.
TEST(DensityBlocks, StridedAtN1024HasNoMoire) {
    const std::int64_t n = 1024;
    const auto pattern = patternOf("strided", n, false);
    const std::int64_t block = densityBlock(n, 500);
    const DensityImage image = densityImageBlocks(*pattern, 0, n, 0, n, block);
    int compared = 0;
    for (int y = 4; y + 5 < image.height; ++y)
        for (int x = 4; x + 5 < image.width; ++x) {
            ASSERT_FLOAT_EQ(image.density[static_cast<std::size_t>(y) * image.width + x],
                            image.density[static_cast<std::size_t>(y + 1) * image.width + x + 1])
                << "block (" << y << ", " << x << ")";
            ++compared;
        }
    EXPECT_GT(compared, 100000);
    const DensityImage fractional = densityImageRegion(*pattern, 0, n, 0, n, 500, 500);
    int differing = 0;
    for (int y = 4; y + 5 < 500; ++y)
        for (int x = 4; x + 5 < 500; ++x)
            differing += fractional.density[static_cast<std::size_t>(y) * 500 + x] != fractional.density[static_cast<std::size_t>(y + 1) * 500 + x + 1];
    EXPECT_GT(differing, 1000) << "the fractional binning this replaces beats against the stride";
}

// Longformer's two global tokens at n = 65,536 are 2 rows and 2 columns out of 128 per block: the
// first row and column of blocks are allowed somewhere in every block.
TEST(DensityBlocks, LongformerGlobalsAtN65536AreInEveryBlockOfTheirRowAndColumn) {
    const std::int64_t n = 65536;
    const auto pattern = patternOf("longformer", n, false, {{"globals", "0,1"}});
    const std::int64_t block = densityBlock(n, 512);
    const DensityImage image = densityImageBlocks(*pattern, 0, n, 0, n, block);
    ASSERT_EQ(image.width, 512);
    for (int k = 0; k < image.width; ++k) {
        ASSERT_GT(image.density[static_cast<std::size_t>(k)], 0.0f) << "global rows, block " << k;
        ASSERT_GT(image.density[static_cast<std::size_t>(k) * image.width], 0.0f) << "global columns, block " << k;
    }
    // Away from the diagonal and the globals nothing is allowed.
    EXPECT_EQ(image.density[static_cast<std::size_t>(300) * image.width + 100], 0.0f);
}

// Every B × B block (the last row and column of blocks smaller) classified by counting its cells.
// `classes` gets each block's class, row-major.
BlockCounts bruteForceBlocks(const Pattern& pattern, std::int64_t block, std::vector<BlockClass>& classes) {
    const std::int64_t n = pattern.size();
    BlockCounts counts;
    counts.size = block;
    for (std::int64_t r0 = 0; r0 < n; r0 += block)
        for (std::int64_t c0 = 0; c0 < n; c0 += block) {
            std::int64_t allowed = 0, area = 0;
            for (std::int64_t i = r0; i < std::min(n, r0 + block); ++i)
                for (std::int64_t j = c0; j < std::min(n, c0 + block); ++j) {
                    ++area;
                    allowed += pattern.allowed(i, j) ? 1 : 0;
                }
            counts.allowedCells += allowed;
            if (allowed == 0) ++counts.empty;
            else ++(allowed == area ? counts.full : counts.partial);
            classes.push_back(allowed == 0 ? BlockClass::Empty : allowed == area ? BlockClass::Full : BlockClass::Partial);
            if (allowed > 0) counts.computedCells += area;
        }
    return counts;
}

void expectBlockCounts(const Pattern& pattern, std::int64_t block, const std::string& what) {
    SCOPED_TRACE(what + " n=" + std::to_string(pattern.size()) + " B=" + std::to_string(block));
    std::vector<BlockClass> expectedClasses, visited;
    const std::int64_t side = (pattern.size() + std::min(block, pattern.size()) - 1) / std::min(block, pattern.size());
    const BlockCounts expected = bruteForceBlocks(pattern, block, expectedClasses);
    std::int64_t nextRow = 0, nextBlock = 0;
    const BlockCounts counted = countBlocks(pattern, block, [&](std::int64_t row, std::int64_t first, std::int64_t last, BlockClass kind) {
        if (row != nextRow) {
            EXPECT_EQ(nextBlock, side) << "block row " << nextRow << " not covered";
            nextRow = row;
            nextBlock = 0;
        }
        EXPECT_EQ(first, nextBlock) << "runs of block row " << row << " out of order";
        EXPECT_LT(first, last);
        nextBlock = last;
        visited.insert(visited.end(), static_cast<std::size_t>(last - first), kind);
    });
    EXPECT_EQ(visited, expectedClasses) << "block classes as visited";
    EXPECT_EQ(counted.size, block);
    EXPECT_EQ(counted.full, expected.full);
    EXPECT_EQ(counted.partial, expected.partial);
    EXPECT_EQ(counted.empty, expected.empty);
    EXPECT_EQ(counted.computedCells, expected.computedCells);
    EXPECT_EQ(counted.allowedCells, expected.allowedCells);
    EXPECT_EQ(counted.allowedCells, pattern.nnz());
}

TEST(BlockCounts, EqualCountingEveryBlockForExpressionsAndBuiltIns) {
    const std::vector<std::string> expressions = {
        "all", "diag", "band(3)", "band(8) | global(0)", "block(5) | summary(7, 2)", "stride(4) & !band(1)",
        "random(3, 11)", "random(9, 2) | sink(3)", "docs(5, 17, 2) & causal", "segment(6, 3)", "prefix(13) | cols(40, 2)",
        "!band(20)", "rows(0, 63, 64) | dilated(3, 5)"};
    for (const std::int64_t n : {1, 7, 64, 100, 131})
        for (const bool causal : {false, true}) {
            for (const std::string& expression : expressions) {
                const ExpressionPattern pattern(parseExpression(expression), n, causal);
                for (const std::int64_t block : std::vector<std::int64_t>{1, 3, 16, 64, n, n + 5, std::int64_t{1} << 40})
                    expectBlockCounts(pattern, block, expression + (causal ? " causal" : ""));
            }
            for (const auto& [id, set] : std::vector<std::pair<std::string, ParamOverrides>>{
                     {"full", {}}, {"strided", {}}, {"fixed", {}}, {"longformer", {{"window", "9"}}}, {"chunk", {{"chunk", "10"}}},
                     {"bigbird", {}}, {"bigbird", {{"block", "8"}, {"seed", "3"}}}})
                for (const std::int64_t block : std::vector<std::int64_t>{2, 8, 17, 2 * n})
                    expectBlockCounts(*patternOf(id, n, causal, set), block, id + (causal ? " causal" : ""));
        }
}

// Random patterns: rows of random disjoint ranges (empty rows, full rows, single cells), and random grid
// expressions on grids in every order, at block sizes that leave edge blocks and at B > n.
TEST(BlockCounts, EqualCountingEveryBlockForRandomPatterns) {
    std::mt19937_64 random(20260131);
    for (const std::int64_t n : {1, 5, 63, 64, 65, 130}) {
        for (int round = 0; round < 6; ++round) {
            std::vector<std::vector<ColumnRange>> rows(static_cast<std::size_t>(n));
            for (auto& row : rows) {
                const int kind = static_cast<int>(random() % 5);
                if (kind == 0) continue; // empty
                if (kind == 1) {
                    row.push_back({0, n}); // full
                    continue;
                }
                for (std::int64_t j = 0; j < n;) {
                    const std::int64_t gap = static_cast<std::int64_t>(random() % 9), length = 1 + static_cast<std::int64_t>(random() % 12);
                    if (j + gap >= n) break;
                    row.push_back({j + gap, std::min(n, j + gap + length)});
                    j = row.back().end + 1;
                }
            }
            const ExplicitPattern pattern(n, rows);
            for (const std::int64_t block : std::vector<std::int64_t>{1, 2, 7, 16, 64, n, n + 3, std::int64_t{1} << 40})
                expectBlockCounts(pattern, block, "random rows, round " + std::to_string(round));
        }
    }
    grid_reference::Maker maker(424242);
    for (const auto& c : grid_reference::gridCases()) {
        const auto grid = std::make_shared<const TokenGrid>(c.grid, parseTokenOrder(grid_reference::orderText(c)));
        const grid_reference::Problem problem = grid_reference::problemOf(c);
        for (int round = 0; round < 4; ++round) {
            const grid_reference::Expression expression = maker.expression(problem);
            const std::string text = grid_reference::print(expression);
            const bool causal = round % 2 == 1;
            const ExpressionPattern pattern(parseExpression(text), grid->cells(), causal, grid);
            // The pattern counted is the one the grid formulas give, cell by cell.
            const std::vector<std::uint8_t> reference = grid_reference::expectedComponents(expression, problem, causal);
            for (std::int64_t i = 0; i < grid->cells(); ++i)
                for (std::int64_t j = 0; j < grid->cells(); ++j)
                    ASSERT_EQ(reference[static_cast<std::size_t>(i * grid->cells() + j)] != 0, pattern.allowed(i, j)) << text;
            for (const std::int64_t block : std::vector<std::int64_t>{3, 4, 8, grid->cells() + 1})
                expectBlockCounts(pattern, block, text + " on " + grid->describe());
        }
    }
}

TEST(BlockCounts, BigBirdsBlockModeComputesOnlyItsBlocks) {
    // On its own grid every block of block-mode BigBird is full or empty (partial only on a causal diagonal).
    for (const bool causal : {false, true}) {
        const auto pattern = patternOf("bigbird", 1000, causal, {{"block", "50"}, {"window", "3"}, {"globals", "1"}});
        const BlockCounts counts = countBlocks(*pattern, 50);
        EXPECT_EQ(counts.partial, causal ? 20 : 0);
        if (!causal) {
            EXPECT_EQ(counts.computedCells, counts.allowedCells);
        }
        EXPECT_EQ(counts.full + counts.partial + counts.empty, 400);
    }
}

TEST(BlockCounts, BlockSizeBelowOneIsRejected) {
    const auto pattern = patternOf("full", 10, false);
    EXPECT_THROW(countBlocks(*pattern, 0), std::invalid_argument);
    EXPECT_THROW(countBlocks(*pattern, -4), std::invalid_argument);
}

} // namespace
} // namespace attnlab
