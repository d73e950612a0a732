#pragma once

#include "views/animation/rgb_frame.h"

#include <cstdint>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

namespace attnlab {

// The colours of every frame of an animation, counted before the GIF is written, so that the file has one
// global palette made from the figure's own colours.
class GifPalette {
  public:
    void count(const RgbFrame& frame);
    // At most kColours colours: all of them, exactly, when the frames hold no more; else the most frequent
    // colours exactly (backgrounds, text, the series' colours) and a median cut of the rest (antialiased
    // edges).
    std::vector<std::uint32_t> colours() const;

    // One index of the 256 is kept to mean "as in the previous frame".
    static constexpr int kColours = 255;

  private:
    std::unordered_map<std::uint32_t, std::uint64_t> m_counts; // 0xRRGGBB → pixels
    std::uint64_t m_pixels = 0;
};

// A GIF89a animation written into memory with giflib: the global palette given, looping forever, each frame
// stored as the rectangle that changed since the previous one, its unchanged pixels transparent (the frame
// before stays in place), so a sweep where little moves makes a small file. Throws InputError naming `path`
// when giflib fails.
class GifWriter {
  public:
    GifWriter(std::string path, int width, int height, std::vector<std::uint32_t> palette);
    ~GifWriter();
    GifWriter(const GifWriter&) = delete;
    GifWriter& operator=(const GifWriter&) = delete;

    // `frame` must have the writer's size; it is shown for `delayCentiseconds` (at least 2: browsers
    // slow shorter delays down to 10).
    void addFrame(const RgbFrame& frame, int delayCentiseconds);
    // Closes the file and returns its bytes.
    std::string finish();

  private:
    struct Gif;
    std::uint8_t indexOf(std::uint32_t colour);
    void putFrame(const std::vector<std::uint8_t>& indices, int delayCentiseconds);

    std::string m_path;
    int m_width, m_height;
    std::vector<std::uint32_t> m_palette;
    std::unordered_map<std::uint32_t, std::uint8_t> m_nearest;
    std::vector<std::uint8_t> m_previous; // the last frame's indices; empty before the first
    std::unique_ptr<Gif> m_gif;
};

// Centiseconds each of `frames` frames stays at `fps`, rounded so that the total never drifts from
// frames / fps, the last frame held `holdLastSeconds` longer.
std::vector<int> gifDelays(std::size_t frames, double fps, double holdLastSeconds);

} // namespace attnlab
