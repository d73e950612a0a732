#pragma once

// Tokens laid out on an image (H × W) or a video (T × H × W) grid, and the token order that says which
// sequence position holds which cell (docs/grids.md). A grid belongs to the problem, not to a variant:
// built-in variants act on sequence positions whatever the grid; the grid primitives of the pattern
// expressions (core/patterns/grid_primitives.h) act on cells.

#include <array>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace attnlab {

// The largest cell count a grid may have: the largest n any command takes.
inline constexpr std::int64_t kMaxGridCells = 2147483647; // 2^31 − 1

// One cell: frame t (0 on an image), row y, column x.
struct GridCell {
    std::int64_t t = 0;
    std::int64_t y = 0;
    std::int64_t x = 0;
    bool operator==(const GridCell&) const = default;
};

enum class TokenOrderKind { Raster, Tiles, Morton };

// `--order` as parsed: raster, tiles:a,b[,c] (tile sizes in the grid's axis order) or morton.
struct TokenOrder {
    TokenOrderKind kind = TokenOrderKind::Raster;
    std::vector<std::int64_t> tile; // Tiles only: one size per axis of the grid
    std::string text() const;       // as --order takes it
};

// Parses `--order` text (syntax only; the tile sizes are checked against a grid by TokenGrid).
// Throws InputError.
TokenOrder parseTokenOrder(const std::string& text);

// Parses `--grid` text "H,W" or "T,H,W" into its sizes (each ≥ 1). Throws InputError.
std::vector<std::int64_t> parseGridSizes(const std::string& text);

class TokenGrid {
public:
    // sizes = {H, W} or {T, H, W}, each ≥ 1, product ≤ kMaxGridCells; a tile order's sizes must be as
    // many as the axes and divide them. Throws InputError naming the problem.
    explicit TokenGrid(const std::vector<std::int64_t>& sizes, TokenOrder order = {});

    int dims() const { return m_dims; }             // 2 (image) or 3 (video)
    std::int64_t frames() const { return m_size[0]; } // T, 1 on an image
    std::int64_t height() const { return m_size[1]; }
    std::int64_t width() const { return m_size[2]; }
    // Length of axis 0 (t), 1 (y) or 2 (x); an image's t axis has length 1.
    std::int64_t axisLength(int axis) const { return m_size[static_cast<std::size_t>(axis)]; }
    std::int64_t cells() const { return m_size[0] * m_size[1] * m_size[2]; }
    const TokenOrder& order() const { return m_order; }
    // Tile size along axis 0…2 for a tile order (1 on an image's t axis), else 0.
    std::int64_t tileLength(int axis) const { return m_tile[static_cast<std::size_t>(axis)]; }

    // The cell at sequence position p and the position of a cell: O(1) (Morton through tables).
    GridCell cellAt(std::int64_t position) const;
    std::int64_t positionOf(const GridCell& cell) const;
    // Raster index (t·H + y)·W + x of a cell and back.
    std::int64_t rasterIndex(const GridCell& cell) const { return (cell.t * m_size[1] + cell.y) * m_size[2] + cell.x; }
    GridCell rasterCell(std::int64_t index) const;

    std::string sizeText() const;  // as --grid takes it: "H,W" or "T,H,W"
    std::string orderText() const { return m_order.text(); }
    std::string describe() const;  // e.g. "128×128 image, raster order", "8×16×16 video, tiles 2×4×4 order"

private:
    int m_dims;
    std::array<std::int64_t, 3> m_size{};
    std::array<std::int64_t, 3> m_tile{};
    TokenOrder m_order;
    // Morton only: position → raster index and raster index → position.
    std::vector<std::int32_t> m_rasterAt;
    std::vector<std::int32_t> m_positionAt;
};

using TokenGridPtr = std::shared_ptr<const TokenGrid>;

// The grid of `--grid` and `--order` texts (order empty: raster). Throws InputError.
TokenGridPtr makeTokenGrid(const std::string& gridText, const std::string& orderText);

// The grid scaled to `cells` cells, for a sweep over image sizes: the same frames and order, height and width
// scaled by one factor (the aspect kept: 32 × 32 → 64 × 64 at 4096 cells); null when no such grid exists or
// a tile order's tiles do not divide it.
TokenGridPtr scaledGrid(const TokenGrid& grid, std::int64_t cells);

// The cell counts in [minCells, maxCells] of the grid's scaled copies, ascending. With g the greatest
// common divisor of height and width, the copies are k · (H/g × W/g) for k = 2^a and 3 · 2^a (so that n
// about doubles from one to the next) and k = g (the grid itself), the same frames; those scaledGrid
// cannot make (tiles that do not divide) are left out.
std::vector<std::int64_t> scaledGridSizes(const TokenGrid& grid, std::int64_t minCells, std::int64_t maxCells);

// The n of a problem given `--n` (0: not given) and a grid (null: none): the grid's cell count, which
// a given n must equal. Throws InputError when neither is given or they disagree.
std::int64_t problemSize(std::int64_t givenN, const TokenGrid* grid);

} // namespace attnlab
