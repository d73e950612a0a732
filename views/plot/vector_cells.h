#pragma once

// What the figures share when they draw cells: whether the painter writes vectors, and an image's rows
// as runs of equal colour (core/patterns/cell_rects.h merges them into rectangles).

#include "core/patterns/cell_rects.h"

#include <QImage>
#include <QPaintEngine>
#include <QPainter>

#include <algorithm>
#include <vector>

namespace attnlab {

// SVG, PDF and TeX painters: their cells become shapes instead of pixels.
inline bool vectorDevice(const QPainter& painter) {
    const QPaintEngine::Type type = painter.paintEngine()->type();
    return type == QPaintEngine::SVG || type == QPaintEngine::Pdf || type >= QPaintEngine::User;
}

// Runs of equal colour along row i of `image` (one pixel per cell) within columns [col0, col1).
inline RowRuns imageRuns(const QImage& image, std::int64_t col0, std::int64_t col1) {
    return [&image, col0, col1](std::int64_t i, std::vector<CellRun>& out) {
        const auto* line = reinterpret_cast<const QRgb*>(image.constScanLine(static_cast<int>(i)));
        for (std::int64_t j = col0; j < col1;) {
            std::int64_t end = j + 1;
            while (end < col1 && line[end] == line[j]) ++end;
            out.push_back({j, end, line[j]});
            j = end;
        }
    };
}

// Rows [row0, row1) × columns [col0, col1) of `rowRuns` at one pixel per cell, `background` where no run
// lies: what a vector file embeds for a pattern with too many cells for rectangles, so that no cell
// shares a pixel with another.
inline QImage runsImage(std::int64_t row0, std::int64_t row1, std::int64_t col0, std::int64_t col1, const RowRuns& rowRuns, QRgb background) {
    QImage image(static_cast<int>(col1 - col0), static_cast<int>(row1 - row0), QImage::Format_RGB32);
    image.fill(background);
    std::vector<CellRun> runs;
    for (std::int64_t i = row0; i < row1; ++i) {
        runs.clear();
        rowRuns(i, runs);
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(static_cast<int>(i - row0)));
        for (const CellRun& run : runs) std::fill(line + (run.col0 - col0), line + (run.col1 - col0), static_cast<QRgb>(run.colour));
    }
    return image;
}

} // namespace attnlab
