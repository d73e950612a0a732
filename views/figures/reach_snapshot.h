#pragma once

#include "views/figures/receptive_field_view.h"

#include "core/analysis/receptive_field.h"

#include <QImage>
#include <QString>

#include <cstdint>
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
};

struct ReceptiveFieldView::Snapshot {
    LabSettings settings;
    QString note;
    std::vector<Panel> panels;
};

// Heatmap cell x of `blocks` covers columns [blockStart(x), blockStart(x + 1)); a sampled row y is query
// sampledRow(y).
inline std::int64_t blockStart(std::int64_t block, std::int64_t blocks, std::int64_t n) { return block * n / blocks; }
inline std::int64_t sampledRow(std::int64_t row, std::int64_t rows, std::int64_t n) { return rows < 2 ? 0 : row * (n - 1) / (rows - 1); }

// Every chosen variant's panel; a variant the settings do not fit gets its one-line error instead.
ReceptiveFieldView::Snapshot buildReachSnapshot(const LabSettings& settings, const CancelCheck& cancelled);

} // namespace attnlab
