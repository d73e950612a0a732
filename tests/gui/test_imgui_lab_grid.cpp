// The ImGui lab's grid panel: on a token grid, the cells the query cell attends above the matrix in their
// components' colours (read back from the framebuffer and checked against the rules written out here);
// hovering a matrix row moves the query, a click on a cell or an arrow key pins it in the settings.

#include "gui/imgui_lab_fixture.h"
#include "views/figures/pattern_grid.h"

#include "core/patterns/token_grid.h"

#include <QSignalSpy>

#include <cstdlib>

namespace attnlab::labtest {
namespace {

LabSettings onGrid(const std::string& expression, const std::string& grid, const std::string& order) {
    LabSettings settings = settingsFor("custom", makeTokenGrid(grid, order)->cells());
    settings.params = {{"expr", expression}};
    settings.grid = grid;
    settings.order = order;
    return settings;
}

class ImGuiLabGridTest : public ImGuiLabWidgetTest {
  protected:
    // The framebuffer once the picture of the current query is in.
    QImage settledFrame() {
        for (int k = 0; k < 50 && lab->gridPicturePending(); ++k)
            frame();
        frame();
        return frame();
    }

    QPointF cellCentreOnGrid(const TokenGrid& grid, const GridCell& cell) const {
        return GridLayout(grid, lab->gridPanelRect()).cellRect(cell).center();
    }
};

TEST_F(ImGuiLabGridTest, PanelDrawsWhatTheQueryCellAttendsByComponent) {
    // "neighborhood(3) | same_col" in Morton order: component 1 the 3 × 3 window slid inside the image,
    // component 2 the rest of the query's column, whatever the order.
    const LabSettings settings = onGrid("neighborhood(3) | same_col", "6,4", "morton");
    showSettings(settings);
    const TokenGridPtr grid = makeTokenGrid(settings.grid, settings.order);
    ASSERT_FALSE(lab->gridPanelRect().isEmpty());
    EXPECT_LE(lab->gridPanelRect().bottom(), lab->canvasRect().top()) << "the grid panel is above the matrix";
    const GridCell query{0, 3, 2};
    EXPECT_EQ(lab->gridQuery(), grid->positionOf(query)) << "the default query is the centre cell";
    const QImage image = settledFrame();
    for (std::int64_t y = 0; y < 6; ++y)
        for (std::int64_t x = 0; x < 4; ++x) {
            const bool window = std::abs(y - query.y) <= 1 && std::abs(x - query.x) <= 1;
            const QRgb expected = window         ? componentColor(1)
                                  : x == query.x ? componentColor(2)
                                                 : emptyCellColor();
            const QRgb colour = pixelAt(image, cellCentreOnGrid(*grid, {0, y, x}));
            EXPECT_TRUE(sameColor(colour, expected))
                << "cell (" << y << ", " << x << ") is " << colorText(colour);
        }
    // Without a grid there is no panel.
    showSettings(settingsFor("full", 24));
    EXPECT_TRUE(lab->gridPanelRect().isEmpty());
    EXPECT_EQ(lab->gridQuery(), -1);
}

TEST_F(ImGuiLabGridTest, HoverClickAndArrowKeysMoveTheQuery) {
    const LabSettings settings = onGrid("neighborhood(3)", "8,8", "");
    showSettings(settings);
    const TokenGridPtr grid = makeTokenGrid(settings.grid, settings.order);
    QSignalSpy edits(lab.get(), &ImGuiLabWidget::settingsEdited);
    // Hovering matrix row 37 makes it the query, without editing the settings.
    moveMouse(cellCentre(37, 5));
    EXPECT_EQ(lab->gridQuery(), 37);
    EXPECT_EQ(edits.count(), 0);
    QImage image = settledFrame();
    EXPECT_TRUE(sameColor(pixelAt(image, cellCentreOnGrid(*grid, grid->cellAt(37 + 8))), componentColor(1)))
        << "the cell below row 37's";
    // A click on a cell makes it the query and pins it in the settings.
    const GridCell target{0, 6, 1};
    click(cellCentreOnGrid(*grid, target));
    ASSERT_GE(edits.count(), 1);
    EXPECT_EQ(edits.takeLast().at(0).value<LabSettings>().gridQuery, grid->positionOf(target));
    EXPECT_EQ(lab->gridQuery(), grid->positionOf(target));
    // The arrow keys walk it and stop at the edges.
    pressKey(Qt::Key_Down);
    pressKey(Qt::Key_Down);
    EXPECT_EQ(grid->cellAt(lab->gridQuery()), (GridCell{0, 7, 1})) << "the bottom edge stops it";
    pressKey(Qt::Key_Right);
    EXPECT_EQ(grid->cellAt(lab->gridQuery()), (GridCell{0, 7, 2}));
    ASSERT_GE(edits.count(), 1);
    EXPECT_EQ(edits.takeLast().at(0).value<LabSettings>().gridQuery, grid->positionOf({0, 7, 2}));
    moveMouse(QPointF(4, lab->height() - 4)); // no tooltip over the picture
    image = settledFrame();
    for (std::int64_t y = 0; y < 8; ++y)
        for (std::int64_t x = 0; x < 8; ++x) {
            const bool attended = y >= 5 && x >= 1 && x <= 3; // the window slid up from the bottom edge
            EXPECT_TRUE(sameColor(pixelAt(image, cellCentreOnGrid(*grid, {0, y, x})),
                                  attended ? componentColor(1) : emptyCellColor()))
                << "cell (" << y << ", " << x << ")";
        }
}

} // namespace
} // namespace attnlab::labtest
