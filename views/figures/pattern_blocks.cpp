#include "views/figures/pattern_blocks.h"

#include "core/patterns/block_grid_pattern.h"

#include <QCoreApplication>

#include <algorithm>

namespace attnlab {

namespace {

// Orange, as the highlighted row: distinct from the mask's viridis colours. Only partial blocks are
// tinted (and hatched): a full block shows the pattern's own colours untouched, solid as the kernel
// computes it, so the component legend still reads on it.
QColor blockTint(int alpha) { return QColor(0xe6, 0x61, 0x00, alpha); }
constexpr int kPartialAlpha = 35;
// Hatching and grid lines need blocks of at least this many pixels, and at most this many visible blocks.
constexpr double kMinBlockPixels = 5;
constexpr std::int64_t kMaxHatchedBlocks = 40000;

} // namespace

std::shared_ptr<const PatternBlocks> buildPatternBlocks(const Pattern& pattern, std::int64_t blockSize) {
    auto blocks = std::make_shared<PatternBlocks>();
    blocks->n = pattern.size();
    const std::int64_t side = blockCount(std::max<std::int64_t>(1, pattern.size()), blockSize);
    QImage overlay;
    if (side <= kMaxBlockClassSide) {
        overlay = QImage(static_cast<int>(side), static_cast<int>(side), QImage::Format_ARGB32_Premultiplied);
        overlay.fill(Qt::transparent);
    }
    const QRgb partial = qPremultiply(blockTint(kPartialAlpha).rgba());
    blocks->counts = countBlocks(pattern, blockSize, [&](std::int64_t row, std::int64_t first, std::int64_t last, BlockClass kind) {
        if (overlay.isNull() || kind != BlockClass::Partial) return;
        auto* line = reinterpret_cast<QRgb*>(overlay.scanLine(static_cast<int>(row)));
        std::fill(line + first, line + last, partial);
    });
    blocks->overlay = std::move(overlay);
    return blocks;
}

void paintPatternBlocks(QPainter& painter, const PatternBlocks& blocks, const PlaneViewport& view) {
    if (blocks.overlay.isNull()) return;
    const std::int64_t size = blocks.counts.size, n = view.n();
    const PlaneRegion visible = view.visibleRegion();
    const std::int64_t row0 = visible.row0 / size, row1 = (visible.row1 + size - 1) / size;
    const std::int64_t col0 = visible.col0 / size, col1 = (visible.col1 + size - 1) / size;
    painter.save();
    painter.setRenderHint(QPainter::SmoothPixmapTransform, false);
    painter.setRenderHint(QPainter::LosslessImageRendering);
    // The overlay's pixels are whole blocks; a smaller last block is clipped by the plot's edge.
    const QRectF target = view.regionRect({row0 * size, row1 * size, col0 * size, col1 * size});
    painter.drawImage(target, blocks.overlay, QRectF(static_cast<double>(col0), static_cast<double>(row0),
                                                     static_cast<double>(col1 - col0), static_cast<double>(row1 - row0)));
    const double blockPixels = view.cellSize() * static_cast<double>(size);
    if (blockPixels >= kMinBlockPixels && (row1 - row0) * (col1 - col0) <= kMaxHatchedBlocks) {
        const QRgb partial = qPremultiply(blockTint(kPartialAlpha).rgba());
        painter.setPen(Qt::NoPen);
        painter.setBrush(QBrush(blockTint(220), Qt::BDiagPattern));
        for (std::int64_t r = row0; r < row1; ++r) {
            const auto* line = reinterpret_cast<const QRgb*>(blocks.overlay.constScanLine(static_cast<int>(r)));
            for (std::int64_t c = col0; c < col1; ++c)
                if (line[c] == partial)
                    painter.drawRect(view.regionRect({r * size, std::min(n, (r + 1) * size), c * size, std::min(n, (c + 1) * size)}));
        }
        painter.setPen(QPen(blockTint(160), 0.6));
        for (std::int64_t k = col0; k <= col1; ++k) {
            const double x = view.regionRect({0, 1, std::min(n, k * size), std::min(n, k * size)}).left();
            painter.drawLine(QPointF(x, view.plot().top()), QPointF(x, view.plot().bottom()));
        }
        for (std::int64_t k = row0; k <= row1; ++k) {
            const double y = view.regionRect({std::min(n, k * size), std::min(n, k * size), 0, 1}).top();
            painter.drawLine(QPointF(view.plot().left(), y), QPointF(view.plot().right(), y));
        }
    }
    painter.restore();
}

QStringList blockStatsLines(const PatternBlocks& blocks) {
    const BlockCounts& c = blocks.counts;
    const double ratio = c.allowedCells > 0 ? static_cast<double>(c.computedCells) / static_cast<double>(c.allowedCells) : 0.0;
    return {QCoreApplication::translate("attnlab::PatternView", "blocks %1 × %1: %2 full, %3 partial, %4 empty")
                .arg(c.size)
                .arg(c.full)
                .arg(c.partial)
                .arg(c.empty),
            QCoreApplication::translate("attnlab::PatternView", "computed ÷ allowed cells: %1 (block density %2 %)")
                .arg(ratio, 0, 'f', 2)
                .arg(100.0 * c.blockDensity(), 0, 'g', 3)};
}

} // namespace attnlab
