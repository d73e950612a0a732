#pragma once

// The pattern view's block view: what a block kernel computes of a pattern cut into B × B blocks over
// sequence positions (empty blocks clear, partial ones hatched, full ones solid), with the counts.

#include "core/patterns/block_counts.h"
#include "views/plot/plane_viewport.h"

#include <QImage>
#include <QPainter>
#include <QStringList>

#include <cstdint>
#include <memory>

namespace attnlab {

// The block sizes the view offers (powers of two) and the figures' default.
inline constexpr std::int64_t kMinBlockViewSize = 16, kMaxBlockViewSize = 256, kDefaultBlockViewSize = 64;
// Grids of at most this many blocks per side keep each block's class for drawing (16 MiB at most).
inline constexpr std::int64_t kMaxBlockClassSide = 4096;

// One panel's blocks, built with its snapshot on a worker; immutable afterwards.
struct PatternBlocks {
    BlockCounts counts;
    std::int64_t n = 0;
    // ⌈n/B⌉ × ⌈n/B⌉, one pixel per block: clear where empty, a translucent tint where partial, a stronger
    // one where full. Null when the grid has more than kMaxBlockClassSide blocks per side.
    QImage overlay;
};

// O(ranges · log ranges) for the counts, plus the overlay's pixels.
std::shared_ptr<const PatternBlocks> buildPatternBlocks(const Pattern& pattern, std::int64_t blockSize);

// Draws the visible blocks over the pattern: the overlay, then, once a block spans a few pixels, the
// hatching of the partial blocks and the grid lines.
void paintPatternBlocks(QPainter& painter, const PatternBlocks& blocks, const PlaneViewport& view);

// The statistics' lines: the counts, computed ÷ allowed cells and the block density.
QStringList blockStatsLines(const PatternBlocks& blocks);

} // namespace attnlab
