// The grid view: on an image or video token grid the pattern view draws, above each matrix, the cells one
// query cell attends, coloured by component; the query moves by hover, click and arrow keys. The
// receptive-field view draws the cells the query reaches in 1 … L layers. Colours are read back from
// the painted figure and checked against the rules written out here, cell by cell.
#include "pattern_view_fixture.h"

#include "gui/csv_table.h"

#include "views/figures/pattern_grid.h"
#include "views/figures/receptive_field_view.h"
#include "views/shell/model_presets.h"

#include "core/patterns/block_counts.h"
#include "core/patterns/token_grid.h"

#include <QKeyEvent>

#include <algorithm>

namespace attnlab::patternviewtest {
namespace {

// NATTEN's neighbourhood with kernel k on an axis of length L (no dilation): the window of k keys slid
// inwards at the edges.
bool inNeighbourhood(std::int64_t a, std::int64_t b, std::int64_t k, std::int64_t length) {
    const std::int64_t left = k / 2, right = k / 2 + k % 2 - 1;
    const std::int64_t centre = std::min(std::max(a, left), length - 1 - right);
    return centre - left <= b && b <= centre + right;
}

LabSettings gridSettings(const std::string& expression, const std::string& grid, const std::string& order) {
    LabSettings settings;
    settings.variant = "custom";
    settings.params = {{"expr", expression}};
    settings.grid = grid;
    settings.order = order;
    settings.n = makeTokenGrid(grid, order)->cells();
    settings.showComponents = true;
    return settings;
}

QRgb colourOfCell(const QImage& image, const TokenGrid& grid, const QRectF& box, const GridCell& cell) {
    return pixelAt(image, GridLayout(grid, box).cellRect(cell).center());
}

TEST_F(PatternViewTest, GridPanelDrawsWhatTheQueryCellAttendsInEveryOrder) {
    // "neighborhood(3) | same_col": component 1 the 3 × 3 window slid inside the image, component 2 the
    // rest of the query's column. The picture is of cells, so every order draws the same one.
    const GridCell query{0, 0, 3}; // on the top edge: the window slides down instead of shrinking
    for (const std::string order : {"", "morton", "tiles:2,2"}) {
        SCOPED_TRACE(order);
        LabSettings settings = gridSettings("neighborhood(3) | same_col", "6,4", order);
        const TokenGridPtr grid = makeTokenGrid(settings.grid, settings.order);
        settings.gridQuery = grid->positionOf(query);
        show(settings);
        ASSERT_TRUE(view->hasGrid());
        EXPECT_EQ(view->gridQuery(), settings.gridQuery);
        const QRectF box = view->gridRect(QRectF(view->rect()), 0);
        ASSERT_FALSE(box.isEmpty());
        EXPECT_LE(box.bottom(), plot().top()) << "the grid goes above the matrix";
        const QImage image = paint();
        for (std::int64_t y = 0; y < 6; ++y)
            for (std::int64_t x = 0; x < 4; ++x) {
                const bool window = inNeighbourhood(query.y, y, 3, 6) && inNeighbourhood(query.x, x, 3, 4);
                const QRgb expected = window ? componentColor(1) : x == query.x ? componentColor(2) : emptyCellColor();
                const QRgb colour = colourOfCell(image, *grid, box, {0, y, x});
                EXPECT_TRUE(sameColor(colour, expected)) << "cell (" << y << ", " << x << ") is " << colorText(colour);
            }
        // The picture holds the query's row of the matrix and nothing else.
        const auto picture = view->gridPicture(0);
        ASSERT_TRUE(picture);
        EXPECT_EQ(picture->attended, 3 * 3 + 3);
    }
}

TEST_F(PatternViewTest, VideoFramesAreDrawnSideBySide) {
    LabSettings settings = gridSettings("neighborhood(1, 3, 3) | same_pixel", "3,4,5", "");
    show(settings);
    const TokenGridPtr grid = makeTokenGrid(settings.grid, "");
    const GridCell centre{1, 2, 2};
    EXPECT_EQ(view->gridQuery(), grid->positionOf(centre)) << "the default query is the centre cell";
    const QRectF box = view->gridRect(QRectF(view->rect()), 0);
    const GridLayout layout(*grid, box);
    for (std::int64_t t = 0; t + 1 < 3; ++t) {
        EXPECT_FALSE(layout.frameRect(t).intersects(layout.frameRect(t + 1)));
        EXPECT_TRUE(box.contains(layout.frameRect(t)));
    }
    const QImage image = paint();
    for (std::int64_t t = 0; t < 3; ++t)
        for (std::int64_t y = 0; y < 4; ++y)
            for (std::int64_t x = 0; x < 5; ++x) {
                const bool window = t == centre.t && std::abs(y - centre.y) <= 1 && std::abs(x - centre.x) <= 1;
                const bool pixel = y == centre.y && x == centre.x;
                const QRgb expected = window ? componentColor(1) : pixel ? componentColor(2) : emptyCellColor();
                EXPECT_TRUE(sameColor(colourOfCell(image, *grid, box, {t, y, x}), expected)) << "cell " << t << "," << y << "," << x;
            }
}

TEST_F(PatternViewTest, HoverClickAndArrowKeysMoveTheQuery) {
    LabSettings settings = gridSettings("neighborhood(3)", "8,8", "morton");
    show(settings);
    const TokenGridPtr grid = makeTokenGrid(settings.grid, settings.order);
    const auto waitForPicture = [&](std::int64_t query) {
        ASSERT_TRUE(waitUntilIdle({view.get()}, kIdleTimeoutMs));
        ASSERT_TRUE(view->gridPicture(0));
        EXPECT_EQ(view->gridPicture(0)->query, query);
    };
    // Hovering matrix row i makes position i the query.
    const QRectF matrix = plot();
    const std::int64_t row = 37;
    hoverMessage(QPointF(matrix.center().x(), matrix.top() + (static_cast<double>(row) + 0.5) * matrix.height() / 64));
    EXPECT_EQ(view->gridQuery(), row);
    waitForPicture(row);
    // Clicking a cell of the picture makes it the query.
    const QRectF box = view->gridRect(QRectF(view->rect()), 0);
    const GridCell target{0, 6, 1};
    click(GridLayout(*grid, box).cellRect(target).center());
    EXPECT_EQ(view->gridQuery(), grid->positionOf(target));
    waitForPicture(grid->positionOf(target));
    // The arrow keys walk it over cells (whatever the order) and stop at the edges.
    const auto press = [&](int key) {
        QKeyEvent event(QEvent::KeyPress, key, Qt::NoModifier);
        send(event);
    };
    press(Qt::Key_Right);
    EXPECT_EQ(grid->cellAt(view->gridQuery()), (GridCell{0, 6, 2}));
    press(Qt::Key_Down);
    press(Qt::Key_Down);
    EXPECT_EQ(grid->cellAt(view->gridQuery()), (GridCell{0, 7, 2})) << "the bottom edge stops it";
    press(Qt::Key_Left);
    press(Qt::Key_Up);
    EXPECT_EQ(grid->cellAt(view->gridQuery()), (GridCell{0, 6, 1}));
    waitForPicture(grid->positionOf({0, 6, 1}));
    // The new picture is the new query's row.
    const QImage image = paint();
    for (std::int64_t y = 0; y < 8; ++y)
        for (std::int64_t x = 0; x < 8; ++x) {
            const bool attended = inNeighbourhood(6, y, 3, 8) && inNeighbourhood(1, x, 3, 8);
            EXPECT_TRUE(sameColor(colourOfCell(image, *grid, box, {0, y, x}), attended ? componentColor(1) : emptyCellColor()))
                << "cell (" << y << ", " << x << ")";
        }
}

TEST_F(PatternViewTest, FactorisedHeadsEachGetTheirGridPicture) {
    // The Sparse Transformer's image figure: strided with stride = W on an 8 × 8 image, heads apart. Head
    // A(2) of the strided pattern attends the query's column above it.
    const FigurePreset* preset = findFigurePreset("sparse-transformer-image");
    ASSERT_NE(preset, nullptr);
    show(preset->settings);
    ASSERT_EQ(view->panelCount(), 4);
    const TokenGridPtr grid = makeTokenGrid(preset->settings.grid, preset->settings.order);
    const GridCell query = grid->cellAt(view->gridQuery());
    EXPECT_EQ(query, (GridCell{0, 4, 4}));
    const QImage image = paint();
    const QRectF box = view->gridRect(QRectF(view->rect()), 1);
    const QRgb colour = view->componentLegend(1).front().colour;
    for (std::int64_t y = 0; y < 8; ++y)
        for (std::int64_t x = 0; x < 8; ++x) {
            const bool above = x == query.x && y <= query.y;
            EXPECT_TRUE(sameColor(colourOfCell(image, *grid, box, {0, y, x}), above ? colour : emptyCellColor()))
                << "cell (" << y << ", " << x << ")";
        }
    for (int index = 0; index < 4; ++index) {
        EXPECT_TRUE(view->gridPicture(index)) << "panel " << index;
        EXPECT_LE(view->gridRect(QRectF(view->rect()), index).bottom(), plot(index).top());
    }
}

// The CSV carries the grid view: each row's cell, whether the query attends it and its component, so
// the picture can be drawn again from the file; it follows the query as the user moves it.
TEST_F(PatternViewTest, CsvRebuildsTheGridPicture) {
    LabSettings settings = gridSettings("neighborhood(3) | same_col", "6,4", "morton");
    show(settings);
    const TokenGridPtr grid = makeTokenGrid(settings.grid, settings.order);
    const auto expectPicture = [&](const GridCell& query) {
        const guitest::CsvTable table = guitest::readCsv(view->csvData());
        const auto column = [&](const char* name) { return table.header.indexOf(QString::fromLatin1(name)); };
        for (const char* name : {"query_i", "cell_t", "cell_y", "cell_x", "grid_query", "attended", "component", "component_term", "allowed_ranges"})
            ASSERT_GE(column(name), 0) << name;
        ASSERT_EQ(table.rows.size(), 24u);
        for (const QStringList& row : table.rows) {
            const std::int64_t position = row[column("query_i")].toLongLong();
            const GridCell cell{row[column("cell_t")].toLongLong(), row[column("cell_y")].toLongLong(), row[column("cell_x")].toLongLong()};
            EXPECT_EQ(grid->positionOf(cell), position);
            EXPECT_EQ(row[column("grid_query")].toLongLong(), grid->positionOf(query));
            const bool window = inNeighbourhood(query.y, cell.y, 3, 6) && inNeighbourhood(query.x, cell.x, 3, 4);
            const int component = window ? 1 : cell.x == query.x ? 2 : 0;
            EXPECT_EQ(row[column("attended")], component ? QStringLiteral("1") : QStringLiteral("0")) << position;
            EXPECT_EQ(row[column("component")], component ? QString::number(component) : QString()) << position;
            EXPECT_EQ(row[column("component_term")], component == 1 ? QStringLiteral("neighborhood(3)")
                                                     : component == 2 ? QStringLiteral("same_col")
                                                                      : QString());
        }
    };
    expectPicture(grid->cellAt(view->gridQuery()));
    view->setGridQuery(grid->positionOf({0, 5, 0}));
    ASSERT_TRUE(waitUntilIdle({view.get()}, kIdleTimeoutMs));
    expectPicture({0, 5, 0});
}

// One pattern in three orders: the same picture of the same query cell above each matrix, each matrix
// marking that cell's row in its own order, and its own block counts (fewer computed cells in tile and
// Morton order on a 64 × 64 image).
TEST_F(PatternViewTest, OnePatternInSeveralOrdersSharesTheQueryCell) {
    const FigurePreset* preset = findFigurePreset("neighbourhood-orders");
    ASSERT_NE(preset, nullptr);
    view->resize(1300, 700);
    show(preset->settings);
    ASSERT_EQ(view->panelCount(), 3);
    const TokenGridPtr raster = makeTokenGrid("64,64", "");
    const GridCell query = raster->cellAt(view->gridQuery());
    EXPECT_EQ(query, (GridCell{0, 32, 32}));
    std::vector<std::int64_t> computed;
    for (int index = 0; index < 3; ++index) {
        const auto picture = view->gridPicture(index);
        ASSERT_TRUE(picture) << index;
        EXPECT_EQ(picture->cell, query);
        EXPECT_EQ(picture->attended, 225);
        EXPECT_EQ(picture->image, view->gridPicture(0)->image) << "the same cells in every order";
        const auto blocks = view->blockCountsOf(index);
        ASSERT_TRUE(blocks);
        EXPECT_EQ(blocks->allowedCells, 225 * 4096);
        computed.push_back(blocks->computedCells);
    }
    // The same pattern, counted again in each order from the registry.
    const std::vector<std::string> orders = {"raster", "tiles:8,8", "morton"};
    for (std::size_t k = 0; k < orders.size(); ++k) {
        LabSettings own = preset->settings;
        own.order = orders[k];
        own.compareVariants.clear();
        EXPECT_EQ(countBlocks(*referencePattern(own, {"custom", {{"expr", "neighborhood(15)"}}}), 64).computedCells, computed[k]) << orders[k];
    }
    EXPECT_LT(computed[1], computed[0]) << "tiles of one block compute fewer cells than raster rows";
    // A block of 64 holds one 8 × 8 tile in both orders; only the tiles' sequence differs.
    EXPECT_EQ(computed[2], computed[1]);
    // The query's row in each matrix is the query cell's position in that order: hovering panel (c)'s row
    // of another cell moves every panel's query to that cell.
    const TokenGridPtr morton = makeTokenGrid("64,64", "morton");
    const GridCell target{0, 3, 29};
    const QRectF matrix = plot(2);
    hoverMessage(QPointF(matrix.center().x(), matrix.top() + (static_cast<double>(morton->positionOf(target)) + 0.5) * matrix.height() / 4096));
    ASSERT_TRUE(waitUntilIdle({view.get()}, kIdleTimeoutMs));
    EXPECT_EQ(raster->cellAt(view->gridQuery()), target);
    for (int index = 0; index < 3; ++index) EXPECT_EQ(view->gridPicture(index)->cell, target) << index;
}

// The grid query changed in the settings (the panel's field, the ImGui lab) moves the query without
// building the patterns again.
TEST_F(PatternViewTest, SettingsQueryMovesTheQueryCell) {
    LabSettings settings = gridSettings("neighborhood(3)", "8,8", "");
    show(settings);
    const QString before = view->csvData();
    settings.gridQuery = 9;
    view->setSettings(settings);
    EXPECT_EQ(view->gridQuery(), 9) << "moved at once";
    ASSERT_TRUE(waitUntilIdle({view.get()}, kIdleTimeoutMs));
    ASSERT_TRUE(view->gridPicture(0));
    EXPECT_EQ(view->gridPicture(0)->query, 9);
    EXPECT_EQ(view->gridPicture(0)->attended, 9);
    EXPECT_NE(view->csvData(), before);
}

TEST(ReceptiveFieldGrid, TwoStridedLayersReachEveryEarlierPixel) {
    // From the last pixel of an 8 × 8 image, strided with stride 8 reaches its band (the previous 8
    // positions: its row) and its column in one layer, and every other pixel in two.
    const FigurePreset* preset = findFigurePreset("sparse-transformer-image-reach");
    ASSERT_NE(preset, nullptr);
    ReceptiveFieldView view;
    view.resize(1000, 700);
    view.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    view.setSettings(preset->settings);
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    ASSERT_TRUE(view.hasGrid());
    EXPECT_EQ(view.gridQuery(), 63);
    QImage image(view.size(), QImage::Format_RGB32);
    QPainter painter(&image);
    view.paintFigure(painter, QRectF(view.rect()));
    painter.end();
    const TokenGridPtr grid = makeTokenGrid("8,8", "");
    const QRectF box = view.gridRect(QRectF(view.rect()), 0).adjusted(0, 0, 0, -13);
    for (std::int64_t y = 0; y < 8; ++y)
        for (std::int64_t x = 0; x < 8; ++x) {
            const int hops = y == 7 && x == 7 ? 0 : (y == 7 || x == 7) ? 1 : 2;
            EXPECT_TRUE(sameColor(colourOfCell(image, *grid, box, {0, y, x}), ReceptiveFieldView::hopColor(hops, 2)))
                << "cell (" << y << ", " << x << ") should be " << hops << " hops away";
        }
    EXPECT_EQ(view.gridPicture(0)->attended, 64);
    // One layer reaches only the row and the column.
    LabSettings one = preset->settings;
    one.layers = 1;
    view.setSettings(one);
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    EXPECT_EQ(view.gridPicture(0)->attended, 8 + 7);
}

} // namespace
} // namespace attnlab::patternviewtest
