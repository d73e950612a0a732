#pragma once

#include "core/analysis/lab_settings.h"
#include "views/figures/pattern_grid.h"
#include "views/figures/pattern_snapshot.h"
#include "views/jobs/job_runner.h"
#include "views/plot/plane_viewport.h"

#include "core/patterns/pattern.h"

#include <QCoreApplication>
#include <QImage>
#include <QString>

#include <cstdint>
#include <memory>
#include <optional>

class QOpenGLFunctions;

namespace attnlab {

// The pattern of one set of settings, immutable once built; shared by tile workers and hover.
struct LabPattern {
    std::uint64_t generation = 0;
    std::shared_ptr<const Pattern> pattern; // null when `error` is set or nothing is built yet
    QString error;
    QString note;                           // where the shape came from when not from the sliders
    std::int64_t n = 0;
    std::int64_t nnz = 0;
    // With a token grid of n cells: the grid, and the pattern labelled by component (`pattern` aliases its
    // pattern) with the legend of the components that occur, which the grid panel colours its cells by.
    TokenGridPtr grid;
    std::shared_ptr<const PatternComponents> components;
    std::vector<ComponentLegendEntry> legend;
};

// The grid panel's picture of one query of one pattern, RGBA bytes for an OpenGL texture.
struct LabGridPicture {
    std::uint64_t patternGeneration = 0;
    GridPicture picture;
    QImage image; // picture.image as Format_RGBA8888
};

// The colour-mapped density image of `region` of one pattern, each pixel a whole block of block × block
// cells (regionDensity, as the pattern view draws it: no moiré, no thin structure lost), RGBA bytes
// ready for an OpenGL texture.
struct DensityTile {
    std::uint64_t patternGeneration = 0;
    std::int64_t n = 0;
    PlaneRegion region;     // what was asked for
    PlaneRegion drawnCells; // what the image covers: region grown to whole blocks
    std::int64_t block = 1;
    QImage image; // Format_RGBA8888
};

struct DensityTileRequest {
    std::uint64_t patternGeneration = 0;
    PlaneRegion region;
    std::int64_t block = 1;
    bool operator==(const DensityTileRequest&) const = default;
};

// The live lab canvas's data: the current pattern and the density image of the visible region, built
// inline for small problems and on workers (tagged with a generation, stale results dropped) for large
// ones. Lives on the UI thread; deliveries arrive through queued calls.
class LabPatternCanvas {
public:
    // Rebuilds the pattern when what it depends on changed.
    void sync(const LabSettings& settings);
    // Asks for the density image of `region` drawn across `pixels` device pixels: one pixel per cell
    // while cells are at least a pixel wide, else one per the smallest whole block that fits.
    void request(const PlaneRegion& region, int pixels);

    const LabPattern& pattern() const { return m_pattern; }
    bool patternCurrent() const { return m_pattern.generation == m_generation; }
    const std::optional<DensityTile>& tile() const { return m_tile; }
    bool pending() const;

    // The grid panel (patterns on a token grid): asks for the picture of what `query` attends, built
    // within the frame for small problems and on a worker for large ones; the last picture stays until
    // the new one is in.
    void requestGridPicture(std::int64_t query);
    const std::optional<LabGridPicture>& gridPicture() const { return m_gridPicture; }
    bool gridPicturePending() const;

    // The tile and the grid picture as textures of the current OpenGL context (0 when there is none),
    // uploaded when new.
    unsigned texture(QOpenGLFunctions& gl);
    unsigned gridTexture(QOpenGLFunctions& gl);
    void releaseTexture(QOpenGLFunctions& gl);

private:
    void adoptPattern(const LabPattern& pattern);
    void adoptTile(DensityTile tile);
    void submitWantedTile();

    LabSettings m_key;
    bool m_hasKey = false;
    std::uint64_t m_generation = 0;
    LabPattern m_pattern;
    std::optional<DensityTileRequest> m_wanted;
    std::optional<DensityTileRequest> m_submitted;
    std::optional<DensityTile> m_tile;
    unsigned m_texture = 0;
    bool m_textureStale = true;
    std::optional<std::pair<std::uint64_t, std::int64_t>> m_wantedPicture; // (pattern generation, query)
    std::optional<LabGridPicture> m_gridPicture;
    unsigned m_gridTexture = 0;
    bool m_gridTextureStale = true;
    // Declared last: destroyed (and waited for) first, so no delivery outlives the members above.
    JobRunner m_patternRunner{QCoreApplication::translate("attnlab::ImGuiLabWidget", "lab pattern")};
    JobRunner m_tileRunner{QCoreApplication::translate("attnlab::ImGuiLabWidget", "lab pattern tiles")};
    JobRunner m_gridRunner{QCoreApplication::translate("attnlab::ImGuiLabWidget", "lab grid picture")};
};

} // namespace attnlab
