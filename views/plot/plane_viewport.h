#pragma once

#include "core/patterns/pattern.h"

#include <QImage>
#include <QPointF>
#include <QRectF>
#include <QSize>

#include <cstdint>
#include <optional>

namespace attnlab {

// One cell of the n × n plane: query row i, key column j.
struct PlaneCell {
    std::int64_t i = 0;
    std::int64_t j = 0;
    bool operator==(const PlaneCell&) const = default;
};

// Integer block [row0, row1) × [col0, col1) of the plane.
struct PlaneRegion {
    std::int64_t row0 = 0, row1 = 0, col0 = 0, col1 = 0;
    bool operator==(const PlaneRegion&) const = default;
};

// The view maths of a square heatmap of the n × n plane drawn in a square plot rectangle (widget
// pixels): zoom 1 shows the whole plane; zoom z shows n / z cells per axis starting at the fractional
// cell `origin` (x = column, y = row). Rows grow downwards, columns to the right.
class PlaneViewport {
public:
    PlaneViewport() = default;
    PlaneViewport(std::int64_t n, const QRectF& plot) : m_n(n), m_plot(plot) {}

    std::int64_t n() const { return m_n; }
    const QRectF& plot() const { return m_plot; }
    void setPlot(const QRectF& plot) { m_plot = plot; }
    double zoom() const { return m_zoom; }
    QPointF origin() const { return m_origin; }

    double visibleCells() const { return static_cast<double>(m_n) / m_zoom; }
    double cellSize() const { return m_plot.width() / visibleCells(); } // pixels per cell
    // The cell under a pixel, or nothing outside the plot.
    std::optional<PlaneCell> cellAt(const QPointF& pixel) const;
    QRectF cellRect(const PlaneCell& cell) const;
    QRectF regionRect(const PlaneRegion& region) const;
    // Smallest integer region covering what the plot shows.
    PlaneRegion visibleRegion() const;

    // Zooms by `factor` keeping the cell under `pixel` fixed; zoom stays in [1, max(1, n / 4)].
    void zoomAt(const QPointF& pixel, double factor);
    void panByPixels(const QPointF& delta);
    void setView(double zoom, const QPointF& origin);
    void reset() { setView(1.0, QPointF(0, 0)); }

private:
    void clampOrigin();

    std::int64_t m_n = 1;
    QRectF m_plot;
    double m_zoom = 1.0;
    QPointF m_origin{0, 0};
};

// The share of allowed cells of `region` of `pattern` in whole blocks of block × block cells
// (densityImageBlocks: row-major, first row = region.row0). Reads row ranges only, never an n × n buffer.
DensityImage regionDensity(const Pattern& pattern, const PlaneRegion& region, std::int64_t block, int threads = 1);
// The plane cells the image of regionDensity covers: `region` grown to whole blocks (beyond n when the
// last block is partial; drawn clipped to the plot).
PlaneRegion blocksRegion(const PlaneRegion& region, const DensityImage& density, std::int64_t block);

// A density image as colours: Format_RGB32, one pixel per bin, densityColor of its share.
QImage densityColorImage(const DensityImage& density);

} // namespace attnlab
