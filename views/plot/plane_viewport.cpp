#include "views/plot/plane_viewport.h"

#include "views/plot/colormap.h"

#include <algorithm>
#include <cmath>
#include <utility>

namespace attnlab {

std::optional<PlaneCell> PlaneViewport::cellAt(const QPointF& pixel) const {
    if (!m_plot.contains(pixel)) return std::nullopt;
    const double size = cellSize();
    const auto j = static_cast<std::int64_t>(std::floor(m_origin.x() + (pixel.x() - m_plot.left()) / size));
    const auto i = static_cast<std::int64_t>(std::floor(m_origin.y() + (pixel.y() - m_plot.top()) / size));
    if (i < 0 || j < 0 || i >= m_n || j >= m_n) return std::nullopt;
    return PlaneCell{i, j};
}

QRectF PlaneViewport::cellRect(const PlaneCell& cell) const { return regionRect({cell.i, cell.i + 1, cell.j, cell.j + 1}); }

QRectF PlaneViewport::regionRect(const PlaneRegion& region) const {
    const double size = cellSize();
    return QRectF(m_plot.left() + (static_cast<double>(region.col0) - m_origin.x()) * size,
                  m_plot.top() + (static_cast<double>(region.row0) - m_origin.y()) * size,
                  static_cast<double>(region.col1 - region.col0) * size, static_cast<double>(region.row1 - region.row0) * size);
}

PlaneRegion PlaneViewport::visibleRegion() const {
    const double cells = visibleCells();
    auto span = [this, cells](double first) {
        const auto begin = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::floor(first)), 0, m_n - 1);
        const auto end = std::clamp<std::int64_t>(static_cast<std::int64_t>(std::ceil(first + cells - 1e-9)), begin + 1, m_n);
        return std::pair{begin, end};
    };
    const auto [row0, row1] = span(m_origin.y());
    const auto [col0, col1] = span(m_origin.x());
    return {row0, row1, col0, col1};
}

void PlaneViewport::zoomAt(const QPointF& pixel, double factor) {
    const double size = cellSize();
    const QPointF anchor = m_origin + (pixel - m_plot.topLeft()) / size;
    const double maxZoom = std::max(1.0, static_cast<double>(m_n) / 4.0);
    m_zoom = std::clamp(m_zoom * factor, 1.0, maxZoom);
    m_origin = anchor - (pixel - m_plot.topLeft()) / cellSize();
    clampOrigin();
}

void PlaneViewport::panByPixels(const QPointF& delta) {
    m_origin -= delta / cellSize();
    clampOrigin();
}

void PlaneViewport::setView(double zoom, const QPointF& origin) {
    m_zoom = std::clamp(zoom, 1.0, std::max(1.0, static_cast<double>(m_n) / 4.0));
    m_origin = origin;
    clampOrigin();
}

void PlaneViewport::clampOrigin() {
    const double limit = static_cast<double>(m_n) - visibleCells();
    m_origin.setX(std::clamp(m_origin.x(), 0.0, std::max(0.0, limit)));
    m_origin.setY(std::clamp(m_origin.y(), 0.0, std::max(0.0, limit)));
}

DensityImage regionDensity(const Pattern& pattern, const PlaneRegion& region, std::int64_t block, int threads) {
    return densityImageBlocks(pattern, region.row0, region.row1, region.col0, region.col1, block, threads);
}

PlaneRegion blocksRegion(const PlaneRegion& region, const DensityImage& density, std::int64_t block) {
    return {region.row0, region.row0 + density.height * block, region.col0, region.col0 + density.width * block};
}

QImage densityColorImage(const DensityImage& density) {
    QImage image(density.width, density.height, QImage::Format_RGB32);
    for (int y = 0; y < density.height; ++y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        const float* values = density.density.data() + static_cast<std::size_t>(y) * density.width;
        for (int x = 0; x < density.width; ++x) line[x] = densityColor(values[x]);
    }
    return image;
}

} // namespace attnlab
