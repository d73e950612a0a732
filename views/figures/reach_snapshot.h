#pragma once

#include "views/figures/pattern_grid.h"
#include "views/figures/receptive_field_view.h"

#include "core/analysis/receptive_field.h"

#include <QImage>
#include <QString>

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

// What the receptive-field view draws, computed on a worker: per chosen variant its reach curve, the
// hop heatmap (folded to at most kHeatmapCells per side) and what the variant states about its reach.
struct ReceptiveFieldView::Panel {
    VariantChoice choice;
    QString name;        // display name with the overrides
    QString paramsText;  // every resolved parameter, "key=value" separated by spaces
    QString error;       // one line; the panel shows it instead of the heatmap
    std::int64_t n = 0;
    bool causal = false;
    int layers = 0;
    ReachCurve curve;
    // Heatmap: rows × cols cells, row-major, each the fewest hops over the pairs it stands for. Column
    // x covers keys [x·n/cols, (x+1)·n/cols); row y covers queries [y·n/rows, (y+1)·n/rows), or with
    // sampledRows the one query y·(n − 1)/(rows − 1).
    int rows = 0;
    int cols = 0;
    bool sampledRows = false;
    std::vector<std::uint8_t> cells;
    QImage image;
    QString heatmapNote;
    ReachTheory theory;
    // With a token grid: the pattern (to move the query on a worker) and the hops from the query cell to
    // every cell, in hop colours (null without a grid).
    std::shared_ptr<const Pattern> pattern;
    std::shared_ptr<const GridPicture> picture;
};

struct ReceptiveFieldView::Snapshot {
    LabSettings settings;
    QString note;
    std::vector<Panel> panels;
    TokenGridPtr grid;       // the settings' grid when it has n cells, else null
    std::int64_t query = -1; // with a grid: the query cell's position
};

// The hop colours' scale, held over an animation's sweep of L (animation_frame.h) by the heatmaps, the
// hop legend and the grid pictures alike.
inline const std::string kHopScale = "reach.layers";

// `image` (a grid picture in the hop colours of `layers` layers) in those of `scale` layers.
QImage heldHopColours(const QImage& image, int layers, int scale);

// Runs on a worker: the cells `query` reaches within 1 … layers layers of `pattern` on the grid, each in
// its hop colour (ReceptiveFieldView::hopColor); `attended` counts the cells reached.
GridPicture hopGridPicture(const Pattern& pattern, const TokenGrid& grid, std::int64_t query, int layers);
// That picture for one panel of a snapshot with a grid: `query` is a position in the snapshot grid's order,
// the panel's pattern is read in its own order (LabSettings::panelOrders).
GridPicture panelHopPicture(const ReceptiveFieldView::Snapshot& snapshot, const ReceptiveFieldView::Panel& panel, std::int64_t query);

// Heatmap cell x of `blocks` covers columns [blockStart(x), blockStart(x + 1)); a sampled row y is query
// sampledRow(y).
inline std::int64_t blockStart(std::int64_t block, std::int64_t blocks, std::int64_t n) { return block * n / blocks; }
inline std::int64_t sampledRow(std::int64_t row, std::int64_t rows, std::int64_t n) { return rows < 2 ? 0 : row * (n - 1) / (rows - 1); }

// Every chosen variant's panel; a variant the settings do not fit gets its one-line error instead.
ReceptiveFieldView::Snapshot buildReachSnapshot(const LabSettings& settings, const CancelCheck& cancelled);

} // namespace attnlab
