#pragma once

// The grid view of the pattern figure (docs/grids.md): on an image or video token grid, the H × W picture
// of the cells one query cell attends, coloured by component as the matrix is, the query cell marked.
// Computed on a worker from the pattern's row ranges for the query row alone, never an n × n buffer.

#include "core/analysis/lab_settings.h"
#include "core/patterns/pattern.h"
#include "core/patterns/pattern_components.h"
#include "core/patterns/token_grid.h"

#include <QImage>
#include <QPainter>
#include <QRectF>

#include <cstdint>
#include <optional>

namespace attnlab {

// What one query attends, cell by cell: `image` is W wide and T·H high, pixel (x, t·H + y) the cell
// (t, y, x) — the raster order of the grid — in its component's colour or emptyCellColor() when masked.
struct GridPicture {
    std::int64_t query = 0; // sequence position
    GridCell cell;          // its cell
    std::int64_t attended = 0;
    QImage image;
};

// The grid of the settings when it has exactly n cells (the problem's grid); null otherwise.
TokenGridPtr settingsGrid(const LabSettings& settings);

// The grid of one compared panel: the settings' grid in the panel's own token order (choiceSettings);
// null as for settingsGrid.
TokenGridPtr choiceGrid(const LabSettings& settings, const VariantChoice& choice);

// The position in `own`'s order of the cell at `position` in `grid`'s order (the same grid sizes).
inline std::int64_t cellPosition(const TokenGrid& grid, std::int64_t position, const TokenGrid& own) {
    return &grid == &own ? position : own.positionOf(grid.cellAt(position));
}

// The query the settings ask for: gridQuery clamped to the grid, or the centre cell's position when -1.
std::int64_t gridQueryOf(const LabSettings& settings, const TokenGrid& grid);

// A picture of the query with every cell masked, and one cell (a sequence position) set to `colour`.
GridPicture emptyGridPicture(const TokenGrid& grid, std::int64_t query);
void setGridPictureCell(GridPicture& picture, const TokenGrid& grid, std::int64_t position, QRgb colour);

// Row `query` of `pattern` on the grid, each cell in `colour` (or, with components, its component's colour).
GridPicture buildGridPicture(const Pattern& pattern, const PatternComponents* components, std::optional<QRgb> colour,
                             const TokenGrid& grid, std::int64_t query);

// The grid as the figures name the problem, in the UI's language: "128×128 image, raster order",
// "8×16×16 video, tiles 2×4×4 order" (TokenGrid::describe is the command line's English form).
QString gridDescription(const TokenGrid& grid);

// A cell as the figures name it: "(y 3, x 4)" on an image, "(t 1, y 3, x 4)" on a video.
QString gridCellText(const TokenGrid& grid, const GridCell& cell);

// The query one step away along an arrow key (Qt::Key_Left … Key_Down: x and y; Key_PageUp/PageDown: t),
// staying on the grid.
std::int64_t steppedQuery(const TokenGrid& grid, std::int64_t query, int key);
bool isGridStepKey(int key);

// Where the frames of a grid go in `box`: side by side, wrapped into rows when that gives larger cells,
// centred, with square cells; frame t's top-left corner and the cell size in pixels.
class GridLayout {
public:
    GridLayout(const TokenGrid& grid, const QRectF& box);
    double cellSize() const { return m_cell; }
    QRectF frameRect(std::int64_t t) const;
    QRectF cellRect(const GridCell& cell) const;
    std::optional<GridCell> cellAt(const QPointF& pixel) const; // nothing between frames or outside
    bool labelsFrames() const { return m_frames > 1; }
    static constexpr double kFrameLabel = 11.0; // room above each frame row for "t = k" on a video

private:
    std::int64_t m_frames, m_height, m_width;
    int m_columns = 1;
    double m_cell = 0, m_gap = 0;
    QPointF m_origin;
};

// Paints the picture into `box` (frames laid out by GridLayout): cells as rectangles on vector devices
// while the grid is small, otherwise the image nearest-neighbour; cell lines where cells are large;
// the query cell ringed.
void paintGridPicture(QPainter& painter, const GridPicture& picture, const TokenGrid& grid, const QRectF& box);

} // namespace attnlab
