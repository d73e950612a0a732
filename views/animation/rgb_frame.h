#pragma once

#include <cstdint>
#include <vector>

namespace attnlab {

// One frame of an animation as the encoders take it, without Qt: width × height pixels, row-major from
// the top-left, each 0xFFRRGGBB (opaque; the layout of QImage::Format_RGB32 in memory).
struct RgbFrame {
    int width = 0;
    int height = 0;
    std::vector<std::uint32_t> pixels;

    std::uint32_t at(int x, int y) const {
        return pixels[static_cast<std::size_t>(y) * static_cast<std::size_t>(width) +
                      static_cast<std::size_t>(x)];
    }
};

} // namespace attnlab
