#include "views/animation/gif_writer.h"

#include "core/errors.h"

#include <gif_lib.h>

#include <algorithm>
#include <array>
#include <cmath>

namespace attnlab {

namespace {

constexpr std::uint8_t kUnchanged = GifPalette::kColours; // the transparent index
// A colour covering at least this share of all pixels keeps its exact value in the palette.
constexpr double kExactShare = 1.0 / 4000;
constexpr std::size_t kMostExact = 160;

struct Weighted {
    std::uint32_t colour;
    std::uint64_t count;
};

int channel(std::uint32_t colour, int c) {
    return static_cast<int>((colour >> (16 - 8 * c)) & 0xFF);
}

std::uint32_t meanColour(const std::vector<Weighted>& colours) {
    std::array<double, 3> sums{};
    double total = 0;
    for (const Weighted& item : colours) {
        for (int c = 0; c < 3; ++c)
            sums[static_cast<std::size_t>(c)] += static_cast<double>(item.count) * channel(item.colour, c);
        total += static_cast<double>(item.count);
    }
    std::uint32_t colour = 0;
    for (int c = 0; c < 3; ++c)
        colour =
            colour << 8 | static_cast<std::uint32_t>(std::lround(sums[static_cast<std::size_t>(c)] / total));
    return colour;
}

// The channel a box spreads most along, and how far (0 … 255).
std::pair<int, int> widestChannel(const std::vector<Weighted>& box) {
    std::pair<int, int> widest{0, -1};
    for (int c = 0; c < 3; ++c) {
        int low = 255, high = 0;
        for (const Weighted& item : box) {
            low = std::min(low, channel(item.colour, c));
            high = std::max(high, channel(item.colour, c));
        }
        if (high - low > widest.second) widest = {c, high - low};
    }
    return widest;
}

std::vector<std::uint32_t> medianCut(std::vector<Weighted> colours, std::size_t boxes) {
    std::vector<std::vector<Weighted>> parts{std::move(colours)};
    while (parts.size() < boxes) {
        // Split the box whose pixels spread most (channel range times pixels).
        std::size_t best = parts.size();
        double bestScore = 0;
        for (std::size_t k = 0; k < parts.size(); ++k) {
            if (parts[k].size() < 2) continue;
            double pixels = 0;
            for (const Weighted& item : parts[k])
                pixels += static_cast<double>(item.count);
            const double score = widestChannel(parts[k]).second * pixels;
            if (score > bestScore) bestScore = score, best = k;
        }
        if (best == parts.size()) break;
        std::vector<Weighted>& box = parts[best];
        const int c = widestChannel(box).first;
        std::sort(box.begin(), box.end(), [c](const Weighted& a, const Weighted& b) {
            return channel(a.colour, c) < channel(b.colour, c);
        });
        double total = 0, running = 0;
        for (const Weighted& item : box)
            total += static_cast<double>(item.count);
        std::size_t cut = 1;
        for (; cut + 1 < box.size(); ++cut) {
            running += static_cast<double>(box[cut - 1].count);
            if (running >= total / 2) break;
        }
        std::vector<Weighted> upper(box.begin() + static_cast<std::ptrdiff_t>(cut), box.end());
        box.resize(cut);
        parts.push_back(std::move(upper));
    }
    std::vector<std::uint32_t> palette;
    for (const auto& box : parts)
        palette.push_back(meanColour(box));
    return palette;
}

int squaredDistance(std::uint32_t a, std::uint32_t b) {
    int sum = 0;
    for (int c = 0; c < 3; ++c)
        sum += (channel(a, c) - channel(b, c)) * (channel(a, c) - channel(b, c));
    return sum;
}

int writeToString(GifFileType* gif, const GifByteType* bytes, int length) {
    static_cast<std::string*>(gif->UserData)
        ->append(reinterpret_cast<const char*>(bytes), static_cast<std::size_t>(length));
    return length;
}

} // namespace

void GifPalette::count(const RgbFrame& frame) {
    const std::vector<std::uint32_t>& pixels = frame.pixels;
    // Figures are long runs of one colour: counting runs keeps the map's work small.
    for (std::size_t k = 0; k < pixels.size();) {
        std::size_t end = k + 1;
        while (end < pixels.size() && pixels[end] == pixels[k])
            ++end;
        m_counts[pixels[k] & 0xFFFFFF] += end - k;
        k = end;
    }
    m_pixels += pixels.size();
}

std::vector<std::uint32_t> GifPalette::colours() const {
    std::vector<Weighted> all;
    for (const auto& [colour, count] : m_counts)
        all.push_back({colour, count});
    std::sort(all.begin(), all.end(), [](const Weighted& a, const Weighted& b) {
        return a.count != b.count ? a.count > b.count : a.colour < b.colour;
    });
    std::vector<std::uint32_t> palette;
    if (all.size() <= static_cast<std::size_t>(kColours)) {
        for (const Weighted& item : all)
            palette.push_back(item.colour);
        return palette;
    }
    std::size_t exact = 0;
    while (exact < kMostExact &&
           static_cast<double>(all[exact].count) >= kExactShare * static_cast<double>(m_pixels))
        ++exact;
    for (std::size_t k = 0; k < exact; ++k)
        palette.push_back(all[k].colour);
    const std::vector<std::uint32_t> rest =
        medianCut(std::vector<Weighted>(all.begin() + static_cast<std::ptrdiff_t>(exact), all.end()),
                  static_cast<std::size_t>(kColours) - exact);
    palette.insert(palette.end(), rest.begin(), rest.end());
    return palette;
}

struct GifWriter::Gif {
    std::string bytes;
    GifFileType* file = nullptr;
};

GifWriter::GifWriter(std::string path, int width, int height, std::vector<std::uint32_t> palette)
    : m_path(std::move(path)), m_width(width), m_height(height), m_palette(std::move(palette)),
      m_gif(std::make_unique<Gif>()) {
    if (m_palette.empty() || m_palette.size() > static_cast<std::size_t>(GifPalette::kColours))
        throw InputError("cannot write '" + m_path + "': a GIF palette needs 1 to 255 colours");
    int error = 0;
    m_gif->file = EGifOpen(&m_gif->bytes, writeToString, &error);
    if (!m_gif->file) throw InputError("cannot write '" + m_path + "': " + GifErrorString(error));
    std::vector<GifColorType> colours(256, GifColorType{255, 255, 255});
    for (std::size_t k = 0; k < m_palette.size(); ++k)
        colours[k] = {static_cast<GifByteType>(channel(m_palette[k], 0)),
                      static_cast<GifByteType>(channel(m_palette[k], 1)),
                      static_cast<GifByteType>(channel(m_palette[k], 2))};
    ColorMapObject* map = GifMakeMapObject(256, colours.data());
    EGifSetGifVersion(m_gif->file, true);
    const bool described = map && EGifPutScreenDesc(m_gif->file, width, height, 8, 0, map) == GIF_OK;
    GifFreeMapObject(map);
    // NETSCAPE2.0 application extension: loop count 0, i.e. forever.
    const GifByteType netscape[] = {'N', 'E', 'T', 'S', 'C', 'A', 'P', 'E', '2', '.', '0'};
    const GifByteType loop[] = {1, 0, 0};
    if (!described || EGifPutExtensionLeader(m_gif->file, APPLICATION_EXT_FUNC_CODE) != GIF_OK ||
        EGifPutExtensionBlock(m_gif->file, sizeof netscape, netscape) != GIF_OK ||
        EGifPutExtensionBlock(m_gif->file, sizeof loop, loop) != GIF_OK ||
        EGifPutExtensionTrailer(m_gif->file) != GIF_OK)
        throw InputError("cannot write '" + m_path + "': " + GifErrorString(m_gif->file->Error));
}

GifWriter::~GifWriter() {
    if (m_gif->file) EGifCloseFile(m_gif->file, nullptr);
}

std::uint8_t GifWriter::indexOf(std::uint32_t colour) {
    colour &= 0xFFFFFF;
    if (const auto found = m_nearest.find(colour); found != m_nearest.end()) return found->second;
    std::size_t best = 0;
    for (std::size_t k = 1; k < m_palette.size(); ++k)
        if (squaredDistance(colour, m_palette[k]) < squaredDistance(colour, m_palette[best])) best = k;
    return m_nearest[colour] = static_cast<std::uint8_t>(best);
}

void GifWriter::addFrame(const RgbFrame& frame, int delayCentiseconds) {
    if (frame.width != m_width || frame.height != m_height)
        throw InputError("cannot write '" + m_path + "': a frame of another size than the first");
    std::vector<std::uint8_t> indices(frame.pixels.size());
    std::uint32_t last = ~0u;
    std::uint8_t lastIndex = 0;
    for (std::size_t k = 0; k < indices.size(); ++k) {
        if (frame.pixels[k] != last) last = frame.pixels[k], lastIndex = indexOf(last);
        indices[k] = lastIndex;
    }
    putFrame(indices, std::max(2, delayCentiseconds));
    m_previous = std::move(indices);
}

void GifWriter::putFrame(const std::vector<std::uint8_t>& indices, int delayCentiseconds) {
    // The rectangle that changed since the previous frame (all of the first; one pixel when none did).
    int left = 0, top = 0, right = m_width - 1, bottom = m_height - 1;
    if (!m_previous.empty()) {
        left = m_width, top = m_height, right = -1, bottom = -1;
        for (int y = 0; y < m_height; ++y)
            for (int x = 0; x < m_width; ++x) {
                const std::size_t k = static_cast<std::size_t>(y) * static_cast<std::size_t>(m_width) +
                                      static_cast<std::size_t>(x);
                if (indices[k] == m_previous[k]) continue;
                left = std::min(left, x), right = std::max(right, x), top = std::min(top, y),
                bottom = std::max(bottom, y);
            }
        if (right < 0) left = right = top = bottom = 0;
    }
    GraphicsControlBlock control{};
    control.DisposalMode = DISPOSE_DO_NOT;
    control.DelayTime = delayCentiseconds;
    control.TransparentColor = m_previous.empty() ? NO_TRANSPARENT_COLOR : kUnchanged;
    GifByteType extension[4];
    const std::size_t length = EGifGCBToExtension(&control, extension);
    GifFileType* file = m_gif->file;
    const int width = right - left + 1, height = bottom - top + 1;
    bool ok = EGifPutExtension(file, GRAPHICS_EXT_FUNC_CODE, static_cast<int>(length), extension) == GIF_OK &&
              EGifPutImageDesc(file, left, top, width, height, false, nullptr) == GIF_OK;
    std::vector<GifPixelType> line(static_cast<std::size_t>(width));
    for (int y = top; ok && y <= bottom; ++y) {
        for (int x = left; x <= right; ++x) {
            const std::size_t k =
                static_cast<std::size_t>(y) * static_cast<std::size_t>(m_width) + static_cast<std::size_t>(x);
            const bool same = !m_previous.empty() && indices[k] == m_previous[k];
            line[static_cast<std::size_t>(x - left)] = same ? kUnchanged : indices[k];
        }
        ok = EGifPutLine(file, line.data(), width) == GIF_OK;
    }
    if (!ok) throw InputError("cannot write '" + m_path + "': " + GifErrorString(file->Error));
}

std::string GifWriter::finish() {
    int error = 0;
    const int closed = EGifCloseFile(m_gif->file, &error);
    m_gif->file = nullptr;
    if (closed != GIF_OK) throw InputError("cannot write '" + m_path + "': " + GifErrorString(error));
    return std::move(m_gif->bytes);
}

std::vector<int> gifDelays(std::size_t frames, double fps, double holdLastSeconds) {
    std::vector<int> delays;
    for (std::size_t k = 0; k < frames; ++k)
        delays.push_back(static_cast<int>(std::lround(100.0 * static_cast<double>(k + 1) / fps) -
                                          std::lround(100.0 * static_cast<double>(k) / fps)));
    if (!delays.empty()) delays.back() += static_cast<int>(std::lround(100.0 * holdLastSeconds));
    return delays;
}

} // namespace attnlab
