#pragma once

// What the figures share when they draw cells: whether the painter writes vectors, and an image's rows
// as runs of equal colour (core/patterns/cell_rects.h merges them into rectangles).

#include "core/patterns/cell_rects.h"

#include <QImage>
#include <QPaintEngine>
#include <QPainter>

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

} // namespace attnlab
