// The ImGui lab's canvas data (no OpenGL needed): its density image is the pattern view's, each pixel a
// whole block of cells, so strided's diagonals keep one colour along their length (no moiré) and
// Longformer's global rows and columns are there at n = 65,536.
#include "views/imgui/lab_pattern_canvas.h"
#include "views/plot/colormap.h"
#include "views/plot/plane_viewport.h"

#include "core/registry.h"

#include <gtest/gtest.h>

#include <QTest>

namespace attnlab {
namespace {

constexpr int kTileTimeoutMs = 60000;

LabSettings settingsFor(const std::string& variant, std::int64_t n, ParamOverrides params = {}) {
    LabSettings settings;
    settings.variant = variant;
    settings.n = n;
    settings.params = std::move(params);
    return settings;
}

// Syncs the canvas, asks for the whole plane across `pixels` and waits for the tile.
const DensityTile& wholePlane(LabPatternCanvas& canvas, const LabSettings& settings, int pixels) {
    canvas.sync(settings);
    [&] { QTRY_VERIFY_WITH_TIMEOUT(canvas.patternCurrent(), kTileTimeoutMs); }();
    EXPECT_TRUE(canvas.pattern().pattern) << canvas.pattern().error.toStdString();
    canvas.request(PlaneRegion{0, settings.n, 0, settings.n}, pixels);
    [&] { QTRY_VERIFY_WITH_TIMEOUT(!canvas.pending(), kTileTimeoutMs); }();
    EXPECT_TRUE(canvas.tile().has_value());
    return *canvas.tile();
}

TEST(LabCanvas, DensityImageIsThePatternViewsWholeBlocks) {
    LabPatternCanvas canvas;
    const std::int64_t n = 1024;
    const DensityTile& tile = wholePlane(canvas, settingsFor("strided", n, {{"stride", "32"}}), 700);
    const std::int64_t block = densityBlock(n, 700);
    ASSERT_EQ(block, 2);
    EXPECT_EQ(tile.block, block);
    const DensityImage expected = regionDensity(*canvas.pattern().pattern, PlaneRegion{0, n, 0, n}, block);
    EXPECT_EQ(tile.image, densityColorImage(expected).convertToFormat(QImage::Format_RGBA8888));
    EXPECT_EQ(tile.drawnCells, blocksRegion(PlaneRegion{0, n, 0, n}, expected, block));
    // Strided's pattern depends on i − j only, and every pixel folds a 2 × 2 block: each diagonal of
    // the image is one colour (fractional bins of 1024 / 700 cells would beat against the stride).
    for (int y = 0; y + 1 < tile.image.height(); ++y)
        for (int x = 0; x + 1 < tile.image.width(); ++x)
            ASSERT_EQ(tile.image.pixel(x, y), tile.image.pixel(x + 1, y + 1)) << "pixel (" << x << ", " << y << ")";
    // The diagonals |i − j| = l = 32 are there in every pixel they cross (16 pixels off the main one).
    const QRgb empty = emptyCellColor() & 0xFFFFFFu;
    for (int x = 0; x + 16 < tile.image.width(); ++x) {
        ASSERT_NE(tile.image.pixel(x, x + 16) & 0xFFFFFFu, empty) << x;
        ASSERT_NE(tile.image.pixel(x + 16, x) & 0xFFFFFFu, empty) << x;
    }
}

TEST(LabCanvas, LongformerGlobalsAreVisibleAtN65536) {
    LabPatternCanvas canvas;
    const std::int64_t n = 65536;
    const DensityTile& tile = wholePlane(canvas, settingsFor("longformer", n, {{"globals", "0"}, {"window", "16"}}), 700);
    EXPECT_EQ(tile.block, densityBlock(n, 700));
    ASSERT_EQ(tile.image.width(), static_cast<int>((n + tile.block - 1) / tile.block));
    const QRgb empty = emptyCellColor();
    for (int k = 0; k < tile.image.width(); ++k) {
        ASSERT_NE(tile.image.pixel(k, 0) & 0xFFFFFFu, empty & 0xFFFFFFu) << "global row, block " << k;
        ASSERT_NE(tile.image.pixel(0, k) & 0xFFFFFFu, empty & 0xFFFFFFu) << "global column, block " << k;
        ASSERT_NE(tile.image.pixel(k, k) & 0xFFFFFFu, empty & 0xFFFFFFu) << "window, block " << k;
    }
    EXPECT_EQ(tile.image.pixel(300, 100) & 0xFFFFFFu, empty & 0xFFFFFFu);
}

} // namespace
} // namespace attnlab
