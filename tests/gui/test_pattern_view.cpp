// The pattern view as a user meets it: what its pixels show for known patterns, which cell the mouse
// names at several zooms, what a click highlights, compare mode, the weights outline, and a 65,536-long
// sequence drawn from a density image while the UI thread keeps running.

#include "views/plot/colormap.h"
#include "views/figures/figure_export.h"
#include "views/figures/pattern_view.h"

#include "core/pattern.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QElapsedTimer>
#include <QMouseEvent>
#include <QPainter>
#include <QRegularExpression>
#include <QSignalSpy>
#include <QTest>
#include <QTimer>
#include <QWheelEvent>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {
namespace {

constexpr QRgb kHighlightColor = 0xe66100;
constexpr QRgb kOutlineColor = 0x101010;
constexpr int kIdleTimeoutMs = 60000;

bool sameColor(QRgb a, QRgb b, int tolerance = 2) {
    return std::abs(qRed(a) - qRed(b)) <= tolerance && std::abs(qGreen(a) - qGreen(b)) <= tolerance &&
           std::abs(qBlue(a) - qBlue(b)) <= tolerance;
}

std::string colorText(QRgb c) { return QColor(c).name().toStdString(); }

QRgb pixelAt(const QImage& image, const QPointF& point) {
    return image.pixel(static_cast<int>(std::floor(point.x())), static_cast<int>(std::floor(point.y())));
}

LabSettings settingsFor(const std::string& variant, std::int64_t n, bool causal, ParamOverrides params = {}) {
    LabSettings settings;
    settings.variant = variant;
    settings.params = std::move(params);
    settings.n = n;
    settings.causal = causal;
    return settings;
}

// The allowed set straight from the core registry, for the settings' shape.
std::unique_ptr<Pattern> referencePattern(const LabSettings& settings, const VariantChoice& choice) {
    const VariantInfo& variant = requireVariant(choice.variant);
    const ProblemShape shape = problemShape(settings, variant);
    return buildPattern(variant, shape, prepareParams(variant, shape, choice.params));
}

// Pixel centre of cell (i, j) computed from the plot rectangle, the zoom and the origin alone.
QPointF cellCentre(const QRectF& plot, std::int64_t n, double zoom, QPointF origin, std::int64_t i, std::int64_t j) {
    const double size = plot.width() * zoom / static_cast<double>(n);
    return {plot.left() + (static_cast<double>(j) + 0.5 - origin.x()) * size,
            plot.top() + (static_cast<double>(i) + 0.5 - origin.y()) * size};
}

// The cell under a pixel by the same independent formula.
PlaneCell cellUnder(const QRectF& plot, std::int64_t n, double zoom, QPointF origin, QPointF pixel) {
    const double size = plot.width() * zoom / static_cast<double>(n);
    return {static_cast<std::int64_t>(std::floor(origin.y() + (pixel.y() - plot.top()) / size)),
            static_cast<std::int64_t>(std::floor(origin.x() + (pixel.x() - plot.left()) / size))};
}

class PatternViewTest : public ::testing::Test {
protected:
    void SetUp() override {
        view = std::make_unique<PatternView>();
        view->resize(900, 600);
        view->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(view.get()));
    }

    void show(const LabSettings& settings) {
        view->setSettings(settings);
        ASSERT_TRUE(waitUntilIdle({view.get()}, kIdleTimeoutMs)) << "the pattern view stayed busy";
        ASSERT_TRUE(view->errorText().isEmpty()) << view->errorText().toStdString();
    }

    // The figure painted by the one paint path at the widget's own size (so the view's plot rectangles apply).
    QImage paint() const {
        QImage image(view->size(), QImage::Format_RGB32);
        image.fill(Qt::white);
        QPainter painter(&image);
        view->paintFigure(painter, QRectF(QPointF(0, 0), QSizeF(view->size())));
        return image;
    }

    QRectF plot(int panel = 0) const { return view->plotRect(QRectF(view->rect()), panel); }

    void send(QEvent& event) { QApplication::sendEvent(view.get(), &event); }

    // Hovers `pixel` and returns the (i, j) the view reports in its status message.
    std::optional<PlaneCell> hover(const QPointF& pixel) {
        QSignalSpy spy(view.get(), &FigureView::statusMessage);
        QMouseEvent move(QEvent::MouseMove, pixel, view->mapToGlobal(pixel), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        send(move);
        if (spy.isEmpty()) return std::nullopt;
        static const QRegularExpression cellText(QStringLiteral("query i = (\\d+), key j = (\\d+)"));
        const auto match = cellText.match(spy.takeLast().at(0).toString());
        if (!match.hasMatch()) return std::nullopt;
        return PlaneCell{match.captured(1).toLongLong(), match.captured(2).toLongLong()};
    }

    QString hoverMessage(const QPointF& pixel) {
        QSignalSpy spy(view.get(), &FigureView::statusMessage);
        QMouseEvent move(QEvent::MouseMove, pixel, view->mapToGlobal(pixel), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        send(move);
        return spy.isEmpty() ? QString() : spy.takeLast().at(0).toString();
    }

    void wheel(const QPointF& pixel, int notches) {
        QWheelEvent event(pixel, view->mapToGlobal(pixel), QPoint(), QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                          Qt::NoScrollPhase, false);
        send(event);
    }

    void click(const QPointF& pixel) {
        QMouseEvent press(QEvent::MouseButtonPress, pixel, view->mapToGlobal(pixel), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
        send(press);
        QMouseEvent release(QEvent::MouseButtonRelease, pixel, view->mapToGlobal(pixel), Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
        send(release);
    }

    void drag(const QPointF& from, const QPointF& to) {
        QMouseEvent press(QEvent::MouseButtonPress, from, view->mapToGlobal(from), Qt::LeftButton, Qt::LeftButton, Qt::NoModifier);
        send(press);
        const int steps = 5;
        for (int s = 1; s <= steps; ++s) {
            const QPointF at = from + (to - from) * (static_cast<double>(s) / steps);
            QMouseEvent move(QEvent::MouseMove, at, view->mapToGlobal(at), Qt::NoButton, Qt::LeftButton, Qt::NoModifier);
            send(move);
        }
        QMouseEvent release(QEvent::MouseButtonRelease, to, view->mapToGlobal(to), Qt::LeftButton, Qt::NoButton, Qt::NoModifier);
        send(release);
    }

    std::unique_ptr<PatternView> view;
};

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

TEST_F(PatternViewTest, HoverNamesTheCellUnderTheMouseAtSeveralZooms) {
    const std::int64_t n = 64;
    const LabSettings settings = settingsFor("strided", n, true, {{"stride", "8"}});
    show(settings);
    const auto reference = referencePattern(settings, chosenVariants(settings).front());
    const QRectF area = plot();
    // Pixels at fractional positions, not cell centres, spread over the plot.
    const std::vector<QPointF> probes = {area.topLeft() + QPointF(0.5, 0.5), area.center() + QPointF(3.3, -7.9),
                                         area.bottomRight() - QPointF(1.5, 1.5), QPointF(area.left() + area.width() * 0.21, area.top() + area.height() * 0.77),
                                         QPointF(area.left() + area.width() * 0.83, area.top() + area.height() * 0.12)};
    const QPointF anchor(area.left() + area.width() * 0.6, area.top() + area.height() * 0.7);
    double lastZoom = 0;
    for (const int notches : {0, 3, 5, 8}) {
        if (notches > 0) {
            const PlaneCell before = cellUnder(area, n, view->viewport().zoom(), view->viewport().origin(), anchor);
            wheel(anchor, notches);
            ASSERT_TRUE(waitUntilIdle({view.get()}, kIdleTimeoutMs));
            // Zooming keeps the cell under the wheel where it was.
            const auto after = hover(anchor);
            ASSERT_TRUE(after);
            EXPECT_EQ(after->i, before.i);
            EXPECT_EQ(after->j, before.j);
        }
        const double zoom = view->viewport().zoom();
        const QPointF origin = view->viewport().origin();
        EXPECT_GT(zoom, lastZoom) << "the wheel did not zoom in";
        lastZoom = zoom;
        const QImage image = paint();
        for (const QPointF& probe : probes) {
            const auto reported = hover(probe);
            ASSERT_TRUE(reported) << "no cell reported at (" << probe.x() << ", " << probe.y() << ") at zoom " << zoom;
            const PlaneCell expected = cellUnder(area, n, zoom, origin, probe);
            EXPECT_EQ(reported->i, expected.i) << "zoom " << zoom;
            EXPECT_EQ(reported->j, expected.j) << "zoom " << zoom;
            // The hovered cell is drawn as what the pattern says it is.
            const QPointF centre = cellCentre(area, n, zoom, origin, expected.i, expected.j);
            if (!area.adjusted(1, 1, -1, -1).contains(centre)) continue; // a cell cut by the plot's edge
            const QRgb colour = pixelAt(image, centre);
            const bool allowed = reference->allowed(expected.i, expected.j);
            EXPECT_TRUE(sameColor(colour, allowed ? densityColor(1.0) : emptyCellColor()))
                << "cell (" << expected.i << ", " << expected.j << ") at zoom " << zoom << " is " << colorText(colour);
            EXPECT_TRUE(hoverMessage(probe).contains(allowed ? QStringLiteral("allowed: yes") : QStringLiteral("allowed: no")));
        }
    }
    EXPECT_GT(lastZoom, 5.0);
    // Outside the plot no cell is named.
    EXPECT_FALSE(hover(area.topLeft() - QPointF(5, 5)));
}

TEST_F(PatternViewTest, DragPansAndDoubleClickResets) {
    const std::int64_t n = 64;
    show(settingsFor("full", n, true));
    const QRectF area = plot();
    wheel(area.center(), 8);
    ASSERT_TRUE(waitUntilIdle({view.get()}, kIdleTimeoutMs));
    const double zoom = view->viewport().zoom();
    const QPointF origin = view->viewport().origin();
    ASSERT_GT(zoom, 2.0);
    const QPointF delta(-60, 40);
    drag(area.center(), area.center() + delta);
    const double size = area.width() * zoom / static_cast<double>(n);
    const double limit = static_cast<double>(n) - static_cast<double>(n) / zoom;
    const QPointF expected(std::clamp(origin.x() - delta.x() / size, 0.0, limit), std::clamp(origin.y() - delta.y() / size, 0.0, limit));
    EXPECT_NEAR(view->viewport().origin().x(), expected.x(), 1e-6);
    EXPECT_NEAR(view->viewport().origin().y(), expected.y(), 1e-6);
    EXPECT_DOUBLE_EQ(view->viewport().zoom(), zoom);
    EXPECT_FALSE(view->highlightedRow()) << "a drag is not a click";

    QMouseEvent doubleClick(QEvent::MouseButtonDblClick, area.center(), view->mapToGlobal(area.center()), Qt::LeftButton,
                            Qt::LeftButton, Qt::NoModifier);
    send(doubleClick);
    EXPECT_DOUBLE_EQ(view->viewport().zoom(), 1.0);
    EXPECT_EQ(view->viewport().origin(), QPointF(0, 0));
}

TEST_F(PatternViewTest, ClickOnAQueryRowHighlightsTheKeysItAttendsTo) {
    const std::int64_t n = 32;
    const LabSettings settings = settingsFor("longformer", n, false, {{"window", "6"}, {"globals", "0,17"}});
    show(settings);
    const auto reference = referencePattern(settings, chosenVariants(settings).front());
    const QRectF area = plot();
    for (const std::int64_t row : {std::int64_t{10}, std::int64_t{0}, std::int64_t{25}}) {
        click(cellCentre(area, n, 1.0, QPointF(0, 0), row, (row * 7 + 3) % n));
        ASSERT_TRUE(view->highlightedRow());
        EXPECT_EQ(*view->highlightedRow(), row);
        ASSERT_TRUE(waitUntilIdle({view.get()}, kIdleTimeoutMs));
        const QImage image = paint();
        int highlighted = 0;
        for (std::int64_t j = 0; j < n; ++j) {
            const QRgb colour = pixelAt(image, cellCentre(area, n, 1.0, QPointF(0, 0), row, j));
            const bool allowed = reference->allowed(row, j);
            EXPECT_EQ(sameColor(colour, kHighlightColor), allowed) << "row " << row << ", key " << j << ": " << colorText(colour);
            highlighted += allowed ? 1 : 0;
        }
        EXPECT_EQ(highlighted, reference->rowCount(row));
        // Other rows keep the pattern's colours.
        const std::int64_t other = (row + 5) % n;
        for (std::int64_t j = 0; j < n; ++j)
            EXPECT_FALSE(sameColor(pixelAt(image, cellCentre(area, n, 1.0, QPointF(0, 0), other, j)), kHighlightColor));
    }
    // A second click on the same row clears the highlight; so does a click outside the plot.
    click(cellCentre(area, n, 1.0, QPointF(0, 0), 25, 2));
    EXPECT_FALSE(view->highlightedRow());
    click(cellCentre(area, n, 1.0, QPointF(0, 0), 4, 4));
    EXPECT_TRUE(view->highlightedRow());
    click(area.bottomRight() + QPointF(40, 40));
    EXPECT_FALSE(view->highlightedRow());
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

TEST_F(PatternViewTest, LongSequenceIsDrawnFromADensityImageWithoutStallingTheUi) {
    const std::int64_t n = 65536;
    QElapsedTimer clock;
    qint64 last = 0, longestGap = 0;
    QTimer tick;
    tick.setInterval(5);
    QObject::connect(&tick, &QTimer::timeout, [&] {
        const qint64 now = clock.elapsed();
        longestGap = std::max(longestGap, now - last);
        last = now;
    });
    clock.start();
    tick.start();
    view->setSettings(settingsFor("full", n, true));
    // Hovering while the pattern is computed is answered at once.
    const QRectF area = plot();
    hover(area.center());
    QTRY_VERIFY_WITH_TIMEOUT(!view->busy(), kIdleTimeoutMs);
    tick.stop();
    ASSERT_TRUE(view->errorText().isEmpty()) << view->errorText().toStdString();
    // The UI-stall bound of the issue: the event loop never paused for half a second.
    EXPECT_LT(longestGap, 500) << "the UI thread stalled for " << longestGap << " ms";

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

} // namespace
} // namespace attnlab
