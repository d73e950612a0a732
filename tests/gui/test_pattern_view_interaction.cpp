// The pattern view under the mouse: which cell hovering names at several zooms, dragging and double
// clicks, and what a click on a query row highlights.
#include "pattern_view_fixture.h"

namespace attnlab::patternviewtest {
namespace {

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

// In slide mode the widget shows the 1920 × 1080 slide scaled into it and centred, laid out at font scale 2:
// hovering and the wheel act on the cell drawn under the mouse there, not on the unscaled layout's.
TEST_F(PatternViewTest, InSlideModeHoverAndZoomActOnTheCellDrawnUnderTheMouse) {
    const std::int64_t n = 64;
    LabSettings settings = settingsFor("strided", n, true, {{"stride", "8"}});
    settings.slideMode = true;
    settings.fontScale = kSlideFontScale;
    show(settings);
    const auto reference = referencePattern(settings, chosenVariants(settings).front());
    const double shrink = std::min(view->width() / 1920.0, view->height() / 1080.0);
    const QPointF offset((view->width() - 1920.0 * shrink) / 2, (view->height() - 1080.0 * shrink) / 2);
    const QRectF laidOut = view->plotRect(QRectF(0, 0, 1920.0 / kSlideFontScale, 1080.0 / kSlideFontScale), 0);
    const double scale = shrink * kSlideFontScale;
    const QRectF area(offset + laidOut.topLeft() * scale, laidOut.size() * scale);
    const QPointF anchor(area.left() + area.width() * 0.6, area.top() + area.height() * 0.3);
    const PlaneCell before = cellUnder(area, n, 1.0, QPointF(0, 0), anchor);
    wheel(anchor, 4);
    ASSERT_TRUE(waitUntilIdle({view.get()}, kIdleTimeoutMs));
    const double zoom = view->viewport().zoom();
    EXPECT_GT(zoom, 1.0);
    const auto after = hover(anchor);
    ASSERT_TRUE(after);
    EXPECT_EQ(after->i, before.i);
    EXPECT_EQ(after->j, before.j);
    const QImage screen = view->grab().toImage();
    for (const QPointF& probe : {anchor, area.center() + QPointF(2.3, -3.1), QPointF(area.left() + area.width() * 0.2, area.top() + area.height() * 0.8)}) {
        const auto reported = hover(probe);
        ASSERT_TRUE(reported) << probe.x() << ", " << probe.y();
        const PlaneCell expected = cellUnder(area, n, zoom, view->viewport().origin(), probe);
        EXPECT_EQ(reported->i, expected.i);
        EXPECT_EQ(reported->j, expected.j);
        // What the screen shows at that cell's centre is what the pattern says of the reported cell.
        const QPointF centre = cellCentre(area, n, zoom, view->viewport().origin(), expected.i, expected.j);
        if (!area.adjusted(1, 1, -1, -1).contains(centre)) continue;
        const bool allowed = reference->allowed(expected.i, expected.j);
        const QRgb colour = pixelAt(screen, centre * screen.devicePixelRatio());
        EXPECT_TRUE(sameColor(colour, allowed ? densityColor(1.0) : emptyCellColor()))
            << "cell (" << expected.i << ", " << expected.j << ") is " << colorText(colour);
    }
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


} // namespace
} // namespace attnlab::patternviewtest
