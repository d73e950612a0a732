// The pattern view as a user meets it: what its pixels show for known patterns, compare mode, the
// weights outline, parameter changes at n = 4096, and a 65,536-long sequence drawn from a density image
// while the UI thread keeps running, and the block view (its counts per panel are the core's block
// counts, computed with the snapshot; partial blocks are tinted, full and empty ones keep the pattern's
// colours). Mouse interaction
// is tested in test_pattern_view_interaction.cpp.
#include "pattern_view_fixture.h"

#include "core/measure/thread_cpu_clock.h"
#include "core/patterns/block_counts.h"

#include <set>

namespace attnlab::patternviewtest {
namespace {

TEST_F(PatternViewTest, CausalPatternHasAnEmptyUpperTriangle) {
    const std::int64_t n = 40;
    show(settingsFor("full", n, true));
    const QImage image = paint();
    const QRectF area = plot();
    ASSERT_GT(area.width(), 4.0 * n) << "cells too small to sample";
    const PlaneViewport& viewport = view->viewport();
    ASSERT_DOUBLE_EQ(viewport.zoom(), 1.0);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const QPointF centre = cellCentre(area, n, 1.0, QPointF(0, 0), i, j);
            PlaneViewport mapping = viewport;
            mapping.setPlot(area);
            ASSERT_NEAR(mapping.cellRect({i, j}).center().x(), centre.x(), 1e-6);
            ASSERT_NEAR(mapping.cellRect({i, j}).center().y(), centre.y(), 1e-6);
            const QRgb expected = j <= i ? densityColor(1.0) : emptyCellColor();
            const QRgb actual = pixelAt(image, centre);
            ASSERT_TRUE(sameColor(actual, expected)) << "cell (" << i << ", " << j << ") is " << colorText(actual) << ", expected "
                                                     << colorText(expected);
        }
}

TEST_F(PatternViewTest, CausalPatternDrawnFromDensityBinsAtLargerN) {
    // More cells than plot pixels: the image comes from density bins; away from the diagonal every
    // pixel is either all allowed (below) or all masked (above).
    const std::int64_t n = 3000;
    show(settingsFor("full", n, true));
    const QImage image = paint();
    const QRectF area = plot();
    const QSize heatmap = view->heatmapImageSize(0);
    EXPECT_LE(heatmap.width(), std::ceil(area.width() * view->devicePixelRatioF()));
    EXPECT_GT(heatmap.width(), 0);
    int above = 0, below = 0;
    for (int y = static_cast<int>(area.top()) + 2; y < area.bottom() - 2; y += 7)
        for (int x = static_cast<int>(area.left()) + 2; x < area.right() - 2; x += 7) {
            const double offDiagonal = (x - area.left()) - (y - area.top()); // j − i in pixels
            if (std::abs(offDiagonal) < 4) continue;
            const QRgb expected = offDiagonal > 0 ? emptyCellColor() : densityColor(1.0);
            ASSERT_TRUE(sameColor(image.pixel(x, y), expected))
                << "pixel (" << x << ", " << y << ") is " << colorText(image.pixel(x, y)) << ", expected " << colorText(expected);
            ++(offDiagonal > 0 ? above : below);
        }
    EXPECT_GT(above, 1000);
    EXPECT_GT(below, 1000);
}

TEST_F(PatternViewTest, ParameterChangesAtN4096ReachTheScreenAndTheirLatencyIsReported) {
    // Each change must be drawn (checked on a cell the patterns disagree on); the time from setSettings()
    // to the computed result (repaints then follow within one 16–40 ms batch) is printed, not asserted.
    const std::int64_t n = 4096;
    show(settingsFor("full", n, true));
    double slowestMs = 0;
    // Strided and bigbird scatter single columns, so a density bin there is neither empty nor full:
    // only their latency is recorded.
    const std::vector<std::pair<std::string, ParamOverrides>> steps = {
        {"chunk", {{"chunk", "256"}}}, {"strided", {}}, {"longformer", {{"window", "64"}}}, {"bigbird", {}}, {"full", {}}};
    for (const auto& [id, params] : steps) {
        LabSettings settings = settingsFor(id, n, true);
        settings.params = params;
        QElapsedTimer clock;
        clock.start();
        view->setSettings(settings);
        while (view->busy() && clock.elapsed() < kIdleTimeoutMs) QCoreApplication::processEvents(QEventLoop::AllEvents, 1);
        const double readyMs = static_cast<double>(clock.nsecsElapsed()) / 1e6;
        std::printf("pattern view at n = %lld: %s computed %.1f ms after the change\n", static_cast<long long>(n), id.c_str(),
                    readyMs);
        slowestMs = std::max(slowestMs, readyMs);
        show(settings);
        if (id == "strided" || id == "bigbird") continue;
        const QImage image = paint();
        PlaneViewport mapping = view->viewport();
        mapping.setPlot(plot());
        const std::int64_t i = n - 1, j = n / 2; // far below the diagonal: only full allows it of these
        const bool allowed = referencePattern(settings, {id, params})->allowed(i, j);
        const QRgb pixel = pixelAt(image, mapping.cellRect({i, j}).center());
        EXPECT_EQ(sameColor(pixel, emptyCellColor()), !allowed) << id << ": " << colorText(pixel);
    }
    std::printf("pattern view at n = %lld: slowest change to computed result %.1f ms\n", static_cast<long long>(n), slowestMs);
}

TEST_F(PatternViewTest, CompareModePaintsOnePanelPerVariant) {
    const std::int64_t n = 32;
    const std::vector<std::string> ids = {"full", "strided", "longformer", "bigbird"};
    for (std::size_t count = 2; count <= 4; ++count) {
        LabSettings settings = settingsFor("full", n, true);
        settings.compareVariants.assign(ids.begin(), ids.begin() + static_cast<std::ptrdiff_t>(count));
        show(settings);
        ASSERT_EQ(view->panelCount(), static_cast<int>(count));
        const QImage image = paint();
        const QRectF bounds(QPointF(0, 0), QSizeF(view->size()));
        const auto choices = chosenVariants(settings);
        for (std::size_t p = 0; p < count; ++p) {
            const QRectF area = plot(static_cast<int>(p));
            SCOPED_TRACE(ids[p] + " in a comparison of " + std::to_string(count));
            ASSERT_TRUE(bounds.contains(area));
            ASSERT_GT(area.width(), 3.0 * n);
            if (p > 0) {
                EXPECT_LT(plot(static_cast<int>(p) - 1).right(), area.left()) << "panels overlap";
            }
            const auto reference = referencePattern(settings, choices[p]);
            for (std::int64_t i = 0; i < n; ++i)
                for (std::int64_t j = 0; j < n; ++j) {
                    const QRgb colour = pixelAt(image, cellCentre(area, n, 1.0, QPointF(0, 0), i, j));
                    const QRgb expected = reference->allowed(i, j) ? densityColor(1.0) : emptyCellColor();
                    ASSERT_TRUE(sameColor(colour, expected)) << "cell (" << i << ", " << j << ") is " << colorText(colour);
                }
        }
        // Every panel answers hover for its own variant.
        for (std::size_t p = 0; p < count; ++p) {
            const auto hit = view->hitTest(plot(static_cast<int>(p)).center());
            ASSERT_TRUE(hit);
            EXPECT_EQ(hit->first, static_cast<int>(p));
        }
    }
}

// Compare mode draws each variant that can do what was asked and says so in the panel of one that
// cannot (linformer has no causal form), instead of drawing it bidirectional.
TEST_F(PatternViewTest, CompareModeNamesAVariantThatCannotBeCausal) {
    LabSettings settings = settingsFor("full", 32, true);
    settings.compareVariants = {"full", "linformer"};
    view->setSettings(settings);
    ASSERT_TRUE(waitUntilIdle({view.get()}, kIdleTimeoutMs));
    ASSERT_EQ(view->panelCount(), 2);
    EXPECT_TRUE(view->hoverText(0, PlaneCell{3, 1}).contains(QStringLiteral("allowed")));
    const QString message = view->hoverText(1, PlaneCell{3, 1});
    EXPECT_TRUE(message.contains(QStringLiteral("bidirectional only"))) << message.toStdString();
    EXPECT_EQ(view->errorText(), message);
    EXPECT_GT(view->csvData().count(QStringLiteral("\n1,full,")), 0);
    EXPECT_EQ(view->csvData().count(QStringLiteral(",linformer,")), 0) << "no rows for a panel that is not drawn";
    settings.causal = false;
    show(settings);
    EXPECT_TRUE(view->errorText().isEmpty()) << view->errorText().toStdString();
    settings.compareVariants = {"full", "xl"};
    view->setSettings(settings);
    ASSERT_TRUE(waitUntilIdle({view.get()}, kIdleTimeoutMs));
    EXPECT_TRUE(view->errorText().contains(QStringLiteral("causal only"))) << view->errorText().toStdString();
}

TEST_F(PatternViewTest, WeightsModeOutlinesTheMask) {
    const std::int64_t n = 16;
    LabSettings settings = settingsFor("longformer", n, false, {{"window", "4"}});
    settings.showWeights = true;
    const auto reference = referencePattern(settings, chosenVariants(settings).front());
    // Allowed cells whose right-hand neighbour is masked: the outline runs along their right edge.
    std::vector<PlaneCell> edges;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j + 1 < n; ++j)
            if (reference->allowed(i, j) && !reference->allowed(i, j + 1)) edges.push_back({i, j});
    ASSERT_GT(edges.size(), 4u);

    // Whether the outline's near-black runs along the right edge of each of those cells (any of the
    // three pixel columns around the edge, wherever rasterisation puts a line between pixels).
    const auto outlinedEdges = [&](const QImage& image) {
        std::vector<bool> found;
        const QRectF area = plot();
        const double size = area.width() / static_cast<double>(n);
        for (const PlaneCell& cell : edges) {
            const int x = static_cast<int>(std::floor(area.left() + static_cast<double>(cell.j + 1) * size));
            const int y = static_cast<int>(area.top() + (static_cast<double>(cell.i) + 0.5) * size);
            bool dark = false;
            for (int dx = -1; dx <= 1; ++dx) dark = dark || sameColor(image.pixel(x + dx, y), kOutlineColor, 12);
            found.push_back(dark);
        }
        return found;
    };
    settings.showMaskOutline = true;
    show(settings);
    const QImage outlined = paint();
    const QRectF area = plot();
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const QRgb colour = pixelAt(outlined, cellCentre(area, n, 1.0, QPointF(0, 0), i, j));
            EXPECT_EQ(sameColor(colour, emptyCellColor()), !reference->allowed(i, j))
                << "cell (" << i << ", " << j << ") is " << colorText(colour);
        }
    const std::vector<bool> outline = outlinedEdges(outlined);
    for (std::size_t k = 0; k < edges.size(); ++k)
        EXPECT_TRUE(outline[k]) << "no outline right of cell (" << edges[k].i << ", " << edges[k].j << ")";

    settings.showMaskOutline = false;
    show(settings);
    const std::vector<bool> plain = outlinedEdges(paint());
    const auto dark = std::count(plain.begin(), plain.end(), true);
    EXPECT_EQ(dark, 0) << "without the outline the mask edge is not drawn";
}

// The weights' colour bar shows the whole viridis scale it names. Samples of the bar's steps must all
// be somewhere in the figure: the cells of this band (weights near 1/5 of a row) reach none of the dark
// ones. (The bar's frame was once filled with the "exactly 0" swatch's grey and hid them.)
TEST_F(PatternViewTest, WeightsColourBarShowsTheScale) {
    LabSettings settings = settingsFor("longformer", 16, false, {{"window", "4"}});
    settings.showWeights = true;
    show(settings);
    const QImage image = paint();
    constexpr int kBarSteps = 48;
    for (int step = 0; step < kBarSteps; step += 6) {
        const QRgb expected = viridis((step + 0.5) / kBarSteps);
        bool found = false;
        for (int y = 0; y < image.height() && !found; ++y)
            for (int x = 0; x < image.width() && !found; ++x) found = sameColor(image.pixel(x, y), expected, 4);
        EXPECT_TRUE(found) << "bar step " << step << " (" << colorText(expected) << ") is nowhere in the figure";
    }
}

// Linformer's W = softmax(q·(E·K)ᵀ)·F has negative entries. Each cell is drawn in the diverging colour
// of sign(w)·√(|w| / max |w|) (the weights as the view's CSV gives them), so negative weights are not
// shown as small positive ones.
TEST_F(PatternViewTest, NegativeWeightsAreDrawnOnADivergingScale) {
    const std::int64_t n = 12;
    LabSettings settings = settingsFor("linformer", n, false, {});
    settings.showWeights = true;
    show(settings);
    std::vector<std::vector<double>> weights;
    double largest = 0;
    for (const QString& line : view->csvData().split(QLatin1Char('\n')).mid(1)) {
        const QStringList fields = line.split(QLatin1Char(','));
        if (fields.size() != 4 + n) continue;
        weights.emplace_back();
        for (std::int64_t j = 0; j < n; ++j) {
            weights.back().push_back(fields[4 + j].toDouble());
            largest = std::max(largest, std::abs(weights.back().back()));
        }
    }
    ASSERT_EQ(weights.size(), static_cast<std::size_t>(n));
    const QImage image = paint();
    const QRectF area = plot();
    int negative = 0;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const double w = weights[i][j];
            negative += w < 0;
            const double magnitude = std::sqrt(std::abs(w) / largest);
            const QRgb expected = divergingColor(w < 0 ? -magnitude : magnitude);
            const QRgb colour = pixelAt(image, cellCentre(area, n, 1.0, QPointF(0, 0), i, j));
            EXPECT_TRUE(sameColor(colour, expected, 8)) << "cell (" << i << ", " << j << ") w = " << w << " is " << colorText(colour)
                                                        << ", expected " << colorText(expected);
        }
    EXPECT_GT(negative, n) << "the test needs negative weights";
}

TEST_F(PatternViewTest, LongSequenceIsDrawnFromADensityImageWithoutStallingTheUi) {
    const std::int64_t n = 65536;
    // The UI thread's own CPU time, which a busy machine does not inflate (wall-clock gaps it does): the
    // pattern and its density image are built on a worker, so the UI thread only paints and answers events.
    const double uiCpuBefore = teamCpuSeconds(1);
    view->setSettings(settingsFor("full", n, true));
    // Hovering while the pattern is computed is answered at once.
    const QRectF area = plot();
    hover(area.center());
    QTRY_VERIFY_WITH_TIMEOUT(!view->busy(), kIdleTimeoutMs);
    const double uiCpu = teamCpuSeconds(1) - uiCpuBefore;
    ASSERT_TRUE(view->errorText().isEmpty()) << view->errorText().toStdString();
    EXPECT_LT(uiCpu, 0.5) << "the UI thread itself computed for " << uiCpu << " s";

    const QSize heatmap = view->heatmapImageSize(0);
    const double devicePixels = std::ceil(area.width() * view->devicePixelRatioF());
    EXPECT_GT(heatmap.width(), 0);
    EXPECT_LE(heatmap.width(), devicePixels);
    EXPECT_LE(heatmap.height(), devicePixels);
    const QImage image = paint();
    for (int y = static_cast<int>(area.top()) + 3; y < area.bottom() - 3; y += 11)
        for (int x = static_cast<int>(area.left()) + 3; x < area.right() - 3; x += 11) {
            const double offDiagonal = (x - area.left()) - (y - area.top());
            if (std::abs(offDiagonal) < 4) continue;
            ASSERT_TRUE(sameColor(image.pixel(x, y), offDiagonal > 0 ? emptyCellColor() : densityColor(1.0)))
                << "pixel (" << x << ", " << y << ") is " << colorText(image.pixel(x, y));
        }

    // Zoomed to 64 × 64 cells around (30000, 30000): one image pixel per cell, cells exact.
    const double zoom = static_cast<double>(n) / 64.0;
    const QPointF origin(30000, 30000);
    view->setViewport(zoom, origin);
    ASSERT_TRUE(waitUntilIdle({view.get()}, kIdleTimeoutMs));
    EXPECT_EQ(view->heatmapImageSize(0), QSize(64, 64));
    const QImage zoomed = paint();
    for (std::int64_t i = 30000; i < 30064; i += 3)
        for (std::int64_t j = 30000; j < 30064; j += 5) {
            const QRgb colour = pixelAt(zoomed, cellCentre(area, n, zoom, origin, i, j));
            ASSERT_TRUE(sameColor(colour, j <= i ? densityColor(1.0) : emptyCellColor()))
                << "cell (" << i << ", " << j << ") is " << colorText(colour);
        }
    const auto named = hover(cellCentre(area, n, zoom, origin, 30010, 30042));
    ASSERT_TRUE(named);
    EXPECT_EQ(named->i, 30010);
    EXPECT_EQ(named->j, 30042);

    // Panned so that rows and columns show different indices: both axes still carry their labels.
    view->setViewport(zoom, QPointF(100, 30000));
    ASSERT_TRUE(waitUntilIdle({view.get()}, kIdleTimeoutMs));
    const QImage panned = paint();
    const auto ink = [&panned](const QRectF& band) {
        int dark = 0;
        for (int y = static_cast<int>(band.top()); y < band.bottom(); ++y)
            for (int x = static_cast<int>(band.left()); x < band.right(); ++x) dark += qGray(panned.pixel(x, y)) < 128 ? 1 : 0;
        return dark;
    };
    EXPECT_GT(ink(QRectF(area.left(), area.top() - 26, area.width(), 22)), 200) << "no key labels above the plot";
    EXPECT_GT(ink(QRectF(area.left() - 32, area.top(), 30, area.height())), 200) << "no query labels left of the plot";
}

LabSettings withBlocks(LabSettings settings, std::int64_t size) {
    settings.blockView = size;
    return settings;
}

void expectCounts(const std::optional<BlockCounts>& shown, const BlockCounts& expected) {
    ASSERT_TRUE(shown.has_value());
    EXPECT_EQ(shown->size, expected.size);
    EXPECT_EQ(shown->full, expected.full);
    EXPECT_EQ(shown->partial, expected.partial);
    EXPECT_EQ(shown->empty, expected.empty);
    EXPECT_EQ(shown->computedCells, expected.computedCells);
    EXPECT_EQ(shown->allowedCells, expected.allowedCells);
}

TEST_F(PatternViewTest, BlockViewCountsAndTintsTheBlocksOfThePattern) {
    const LabSettings plain = settingsFor("bigbird", 64, false, {{"block", "8"}, {"window", "1"}, {"globals", "1"}, {"random", "1"}});
    show(plain);
    EXPECT_FALSE(view->blockCountsOf(0).has_value());
    const QImage before = paint();
    const LabSettings settings = withBlocks(plain, 16);
    show(settings);
    const auto pattern = referencePattern(settings, {settings.variant, settings.params});
    std::vector<BlockClass> classes;
    expectCounts(view->blockCountsOf(0), countBlocks(*pattern, 16, [&](std::int64_t, std::int64_t first, std::int64_t last, BlockClass kind) {
                     classes.insert(classes.end(), static_cast<std::size_t>(last - first), kind);
                 }));
    ASSERT_EQ(classes.size(), 16u);
    const QImage after = paint();
    // At the centre cell of each block: tinted where the block is partial; unchanged where it is empty or
    // full, whose cells keep the pattern's own colours (a component legend still reads on them).
    std::set<BlockClass> seen;
    for (std::int64_t r = 0; r < 4; ++r)
        for (std::int64_t c = 0; c < 4; ++c) {
            const QPointF centre = cellCentre(plot(), 64, 1.0, QPointF(0, 0), r * 16 + 7, c * 16 + 7);
            const bool tinted = !sameColor(pixelAt(after, centre), pixelAt(before, centre));
            const BlockClass kind = classes[static_cast<std::size_t>(r * 4 + c)];
            seen.insert(kind);
            EXPECT_EQ(tinted, kind == BlockClass::Partial) << "block (" << r << ", " << c << ")";
        }
    EXPECT_EQ(seen.size(), 3u) << "the case has full, partial and empty blocks";
}

TEST_F(PatternViewTest, BlockViewGivesEachComparedPanelItsOwnCounts) {
    LabSettings settings = withBlocks(settingsFor("full", 200, true), 64);
    settings.compareVariants = {"full", "chunk", "bigbird"};
    settings.compareParams = {{}, {{"chunk", "50"}}, {{"block", "20"}}};
    show(settings);
    ASSERT_EQ(view->panelCount(), 3);
    for (int index = 0; index < 3; ++index) {
        const VariantChoice choice{settings.compareVariants[static_cast<std::size_t>(index)],
                                   settings.compareParams[static_cast<std::size_t>(index)]};
        expectCounts(view->blockCountsOf(index), countBlocks(*referencePattern(settings, choice), 64));
    }
    EXPECT_NE(view->blockCountsOf(0)->partial, view->blockCountsOf(1)->partial);
}

} // namespace
} // namespace attnlab::patternviewtest
