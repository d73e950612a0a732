// Qt's mouse, wheel and key events in the ImGui lab: they reach ImGui's IO, the hover names the cell
// under the mouse at several zooms, the wheel zooms at the cursor and a drag pans.

#include "gui/imgui_lab_fixture.h"

#include <cfloat>

namespace attnlab::labtest {
namespace {

TEST_F(ImGuiLabWidgetTest, QtMouseAndKeyEventsReachImGui) {
    ImGui::SetCurrentContext(lab->imguiContext());
    const ImGuiIO& io = ImGui::GetIO();
    QMouseEvent move(QEvent::MouseMove, QPointF(123.5, 77.0), lab->mapToGlobal(QPointF(123.5, 77.0)), Qt::NoButton, Qt::NoButton,
                     Qt::NoModifier);
    send(move);
    EXPECT_FLOAT_EQ(io.MousePos.x, 123.5f);
    EXPECT_FLOAT_EQ(io.MousePos.y, 77.0f);

    QMouseEvent press(QEvent::MouseButtonPress, QPointF(200, 90), lab->mapToGlobal(QPointF(200, 90)), Qt::RightButton,
                      Qt::RightButton, Qt::ShiftModifier);
    send(press);
    EXPECT_TRUE(io.MouseDown[1]);
    EXPECT_FALSE(io.MouseDown[0]);
    EXPECT_TRUE(io.KeyShift);
    EXPECT_FLOAT_EQ(io.MousePos.x, 200.0f);
    QMouseEvent release(QEvent::MouseButtonRelease, QPointF(200, 90), lab->mapToGlobal(QPointF(200, 90)), Qt::RightButton,
                        Qt::NoButton, Qt::NoModifier);
    send(release);
    EXPECT_FALSE(io.MouseDown[1]);

    wheel(QPointF(300, 100), 2);
    EXPECT_FLOAT_EQ(io.MouseWheel, 2.0f);

    QKeyEvent tab(QEvent::KeyPress, Qt::Key_Tab, Qt::ControlModifier);
    send(tab);
    EXPECT_TRUE(io.KeysDown[io.KeyMap[ImGuiKey_Tab]]);
    EXPECT_TRUE(io.KeyCtrl);
    QKeyEvent tabUp(QEvent::KeyRelease, Qt::Key_Tab, Qt::NoModifier);
    send(tabUp);
    EXPECT_FALSE(io.KeysDown[io.KeyMap[ImGuiKey_Tab]]);

    QEvent leave(QEvent::Leave);
    send(leave);
    EXPECT_EQ(io.MousePos.x, -FLT_MAX);

    frame();
    EXPECT_FLOAT_EQ(io.DisplaySize.x, static_cast<float>(lab->width()));
    EXPECT_FLOAT_EQ(io.DisplaySize.y, static_cast<float>(lab->height()));
    EXPECT_FLOAT_EQ(io.DisplayFramebufferScale.x, static_cast<float>(lab->devicePixelRatioF()));
    EXPECT_GT(io.DeltaTime, 0.0f);
}

// Bidirectional strided with stride l: |i − j| ≤ l or |i − j| mod l = 0 (spec, variants.md).
bool stridedAllows(std::int64_t i, std::int64_t j, std::int64_t l) {
    const std::int64_t distance = i > j ? i - j : j - i;
    return distance <= l || distance % l == 0;
}

TEST_F(ImGuiLabWidgetTest, HoverNamesTheCellUnderTheMouseAtSeveralZooms) {
    showSettings(settingsFor("strided", 256)); // stride ceil(sqrt(256)) = 16
    struct Case {
        double zoom;
        QPointF origin;
        std::vector<std::pair<std::int64_t, std::int64_t>> cells;
    };
    const std::vector<Case> cases{{1.0, {0, 0}, {{0, 0}, {255, 0}, {17, 200}, {100, 116}}},
                                  {4.0, {20, 100}, {{100, 20}, {130, 50}, {163, 83}, {120, 40}}},
                                  {16.0, {33, 47}, {{47, 33}, {50, 40}, {62, 48}, {55, 35}}}};
    for (const Case& c : cases) {
        lab->setCanvasView(c.zoom, c.origin);
        frame();
        ASSERT_DOUBLE_EQ(lab->canvasViewport().zoom(), c.zoom);
        ASSERT_EQ(lab->canvasViewport().origin(), c.origin);
        for (const auto& [i, j] : c.cells) {
            moveMouse(cellCentre(i, j));
            const auto hover = lab->hoveredCell();
            ASSERT_TRUE(hover.has_value()) << "zoom " << c.zoom << " cell (" << i << ", " << j << ")";
            EXPECT_EQ(*hover, (CanvasHover{i, j, stridedAllows(i, j, 16)})) << "zoom " << c.zoom << " at (" << i << ", " << j
                                                                            << ") got (" << hover->row << ", " << hover->col << ")";
        }
    }
    moveMouse(lab->canvasRect().topLeft() - QPointF(5, 5));
    EXPECT_FALSE(lab->hoveredCell().has_value());
}

TEST_F(ImGuiLabWidgetTest, WheelZoomsAtTheCursorAndDragPans) {
    // ImGui floors the mouse position to whole pixels, so the test works in whole pixels too.
    showSettings(settingsFor("chunk", 512));
    const QPoint at = cellCentre(300, 120).toPoint();
    moveMouse(at);
    ASSERT_TRUE(lab->hoveredCell().has_value());
    const CanvasHover before = *lab->hoveredCell();
    EXPECT_LE(std::abs(before.row - 300), 1);
    EXPECT_LE(std::abs(before.col - 120), 1);
    wheel(at, 3);
    frame();
    EXPECT_NEAR(lab->canvasViewport().zoom(), 1.25 * 1.25 * 1.25, 1e-9);
    moveMouse(at);
    ASSERT_TRUE(lab->hoveredCell().has_value());
    EXPECT_EQ(*lab->hoveredCell(), before) << "the cell under the cursor stays under it";

    const double cell = lab->canvasViewport().cellSize();
    const QPointF origin = lab->canvasViewport().origin();
    const QPoint drag(40, 0);
    pressMouse(at);
    moveMouse(at + drag, Qt::LeftButton);
    releaseMouse(at + drag);
    EXPECT_NEAR(lab->canvasViewport().origin().x(), origin.x() - drag.x() / cell, 1e-6);
    EXPECT_NEAR(lab->canvasViewport().origin().y(), origin.y(), 1e-6);
    moveMouse(at + drag);
    ASSERT_TRUE(lab->hoveredCell().has_value());
    EXPECT_EQ(*lab->hoveredCell(), before) << "a drag carries the cell along with the cursor";
}

} // namespace
} // namespace attnlab::labtest
