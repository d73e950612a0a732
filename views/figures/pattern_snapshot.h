#pragma once

#include "core/analysis/lab_settings.h"
#include "views/figures/pattern_blocks.h"
#include "views/figures/pattern_grid.h"
#include "views/plot/plane_viewport.h"

#include "core/patterns/pattern.h"
#include "core/patterns/pattern_components.h"
#include "core/registry.h"
#include "core/tensor.h"
#include "core/variant.h"

#include <QImage>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>
#include <vector>

namespace attnlab {

// Largest n for which the pattern view computes the effective weights (they need an n × n matrix).
constexpr std::int64_t kMaxPatternWeightsN = 2048;

// One colour of the component legend: the component's label and what it is (e.g. "band(8)").
struct ComponentLegendEntry {
    std::uint8_t component = 0;
    QRgb colour = 0;
    QString text;
};

// What the pattern view draws for one variant, or for one component of it when components are split;
// immutable once built on a worker.
struct PatternPanel {
    VariantChoice choice;
    QString name;
    QString title;                                // the paper's panel title; empty: the name is the title
    QString error;                                // one line; the panel shows it instead of the pattern
    std::shared_ptr<const Pattern> pattern;
    bool hasMask = true;
    std::int64_t n = 0;
    std::int64_t nnz = 0;
    double coreMacs = 0;
    double fullMacs = 0; // full attention in the direction of coreMacs: causal when the panel's problem is
    bool causal = false;
    double relativePositionMacs = 0; // of coreMacs, Transformer-XL's q·R term (its `relpos` cost term)
    // Effective weights of the chosen head, row-major n × n, and their colour image: viridis of √(w / max w),
    // or, when some weight is negative (low-rank and linear variants), divergingColor of
    // sign(w)·√(|w| / max |w|).
    std::shared_ptr<const FloatStorage> weights;
    QImage weightsImage;
    float maxWeight = 0;
    float minWeight = 0;
    bool signedWeights() const { return minWeight < 0; }
    QString weightsNote;                          // why there are no weights
    // settings.showComponents: the pattern's cells labelled by component (`pattern` aliases its pattern)
    // and the legend of the components that occur.
    std::shared_ptr<const PatternComponents> components;
    std::vector<ComponentLegendEntry> legend;
    // settings.splitComponents: this panel is one component of a variant, drawn in one colour.
    std::optional<QRgb> colour;
    QString detail;                               // compare-style second title line instead of the parameters
    // settings.blockView > 0: the pattern in blocks of that size (null otherwise).
    std::shared_ptr<const PatternBlocks> blocks;
    // With a token grid: the grid in this panel's own token order (the settings' unless the panel has its
    // own), and what the snapshot's query cell attends (null without a grid or a pattern).
    TokenGridPtr grid;
    std::shared_ptr<const GridPicture> picture;
    // The position in this panel's order of the cell at `position` in the snapshot grid's order.
    std::int64_t ownPosition(const TokenGrid& snapshotGrid, std::int64_t position) const {
        return grid ? cellPosition(snapshotGrid, position, *grid) : position;
    }
};

// Every panel of one set of settings, built with the same inputs.
struct PatternSnapshot {
    LabSettings settings;
    std::int64_t n = 0;
    QString note;                                 // e.g. shape taken from the NPY files
    std::vector<PatternPanel> panels;
    TokenGridPtr grid;                            // the settings' grid when it has n cells, else null
    std::int64_t query = -1;                      // with a grid: the query cell's position in its order
};

// The density images of one region of one panel's pattern, width × height pixels, each pixel a whole
// block of block × block cells (no moiré from fractional bins).
struct PatternTile {
    PlaneRegion region;     // what was asked for
    PlaneRegion drawnCells; // what the images cover: region grown to whole blocks
    std::int64_t block = 1;
    int width = 0;
    int height = 0;
    QImage mask;   // densityColor per cell block
    QImage veil;   // white, opaque where masked: drawn over the weights
};

// Runs on a worker: patterns, statistics and (for n ≤ kMaxPatternWeightsN when settings.showWeights)
// weights of every chosen variant. Errors land in their panels; a cancelled build stops adding panels.
PatternSnapshot buildPatternSnapshot(const LabSettings& settings, const CancelCheck& cancelled);

// Runs on a worker: what the query cell attends on the grid in one panel, coloured as the panel's matrix
// (`query` is a position in `grid`'s order; the panel reads it in its own).
GridPicture panelGridPicture(const PatternPanel& panel, const TokenGrid& grid, std::int64_t query);

// Runs on a worker: the mask image of `region` in blocks of `block` × `block` cells (in component
// colours when the panel has components or a colour) and, when `withVeil`, the veil drawn over the weights.
PatternTile buildPatternTile(const PatternPanel& panel, const PlaneRegion& region, std::int64_t block, bool withVeil);

// The legend of the components that occur in `components`, component k named by texts[k − 1].
std::vector<ComponentLegendEntry> componentLegendOf(const PatternComponents& components, const std::vector<QString>& texts);

// The name of each component of a variant for the legend, index k − 1 for component k: the custom
// variant's top-level terms; for built-ins the variant's component name followed by the printed term
// when there is a printed expression ("band: band(7)"). Throws like the pattern itself.
std::vector<QString> componentTexts(const ResolvedVariant& resolved);

} // namespace attnlab
