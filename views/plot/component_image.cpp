#include "views/plot/component_image.h"

#include "views/plot/colormap.h"

#include <algorithm>
#include <array>
#include <utility>
#include <vector>

namespace attnlab {

namespace {

// Colour shares: the seven palette colours (components repeat them) and the added diagonal.
constexpr int kSlots = 8;

int slotOf(std::uint8_t component) { return component == kAddedDiagonal ? kSlots - 1 : (component - 1) % (kSlots - 1); }

using Palette = std::array<QRgb, kSlots>;

Palette componentPalette() {
    Palette palette{};
    for (int s = 0; s < kSlots; ++s) palette[s] = componentColor(s == kSlots - 1 ? kAddedDiagonal : s + 1);
    return palette;
}

// Pixel x of the region holds columns [start(x), start(x + 1)): column j lands in ⌊(j − col0)·width / cols⌋.
struct Binning {
    std::int64_t first = 0, count = 0;
    int bins = 0;
    int binOf(std::int64_t k) const { return static_cast<int>((k - first) * bins / count); }
    std::int64_t start(int bin) const { return first + (static_cast<std::int64_t>(bin) * count + bins - 1) / bins; }
};

// Accumulates one image row of per-slot cell counts and writes its pixels when the row is complete.
template <class Rows>
QImage labelledImage(const PlaneRegion& region, int width, int height, const Palette& palette, Rows&& rowRuns) {
    QImage image(width, height, QImage::Format_RGB32);
    image.fill(emptyCellColor());
    if (width <= 0 || height <= 0 || region.row1 <= region.row0 || region.col1 <= region.col0) return image;
    const Binning cols{region.col0, region.col1 - region.col0, width};
    const Binning rows{region.row0, region.row1 - region.row0, height};
    std::vector<std::array<double, kSlots>> counts(static_cast<std::size_t>(width));
    std::vector<ComponentRange> runs;
    const auto flush = [&](int y) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(y));
        const double rowsInPixel = static_cast<double>(rows.start(y + 1) - rows.start(y));
        for (int x = 0; x < width; ++x) {
            auto& shares = counts[static_cast<std::size_t>(x)];
            double total = 0, red = 0, green = 0, blue = 0;
            for (int s = 0; s < kSlots; ++s) {
                if (shares[s] == 0) continue;
                total += shares[s];
                red += shares[s] * qRed(palette[s]);
                green += shares[s] * qGreen(palette[s]);
                blue += shares[s] * qBlue(palette[s]);
            }
            shares.fill(0);
            if (total == 0) continue;
            const double cells = rowsInPixel * static_cast<double>(cols.start(x + 1) - cols.start(x));
            const QRgb mixed = qRgb(static_cast<int>(red / total + 0.5), static_cast<int>(green / total + 0.5),
                                    static_cast<int>(blue / total + 0.5));
            line[x] = fadedComponentColor(mixed, total / cells);
        }
    };
    int currentY = rows.binOf(region.row0);
    for (std::int64_t i = region.row0; i < region.row1; ++i) {
        const int y = rows.binOf(i);
        if (y != currentY) flush(std::exchange(currentY, y));
        runs.clear();
        rowRuns(i, runs);
        for (const auto& run : runs) {
            const std::int64_t begin = std::max(run.begin, region.col0), end = std::min(run.end, region.col1);
            if (begin >= end) continue;
            const int slot = slotOf(run.component);
            for (int x = cols.binOf(begin); x <= cols.binOf(end - 1); ++x)
                counts[static_cast<std::size_t>(x)][slot] +=
                    static_cast<double>(std::min(end, cols.start(x + 1)) - std::max(begin, cols.start(x)));
        }
    }
    flush(currentY);
    return image;
}

} // namespace

QImage componentColorImage(const PatternComponents& components, const PlaneRegion& region, int width, int height) {
    // The region may reach past n (grown to whole blocks): those rows have no cells.
    const std::int64_t n = components.pattern().size();
    return labelledImage(region, width, height, componentPalette(), [&](std::int64_t i, std::vector<ComponentRange>& out) {
        if (i < n) components.rowComponents(i, out);
    });
}

QImage singleColorImage(const Pattern& pattern, const PlaneRegion& region, int width, int height, QRgb colour) {
    Palette palette;
    palette.fill(colour);
    std::vector<ColumnRange> ranges;
    return labelledImage(region, width, height, palette, [&](std::int64_t i, std::vector<ComponentRange>& out) {
        ranges.clear();
        if (i < pattern.size()) pattern.rowRanges(i, ranges);
        for (const auto& r : ranges) out.push_back({r.begin, r.end, 1});
    });
}

} // namespace attnlab
