#include "views/shell/grid_presets.h"

#include "core/patterns/token_grid.h"

#include <QCoreApplication>

#include <algorithm>

namespace attnlab {

namespace {

struct GridPanel {
    std::string title;
    std::string expression;
    std::string order = {}; // the panel's own token order; empty: the grid's
};

// Custom patterns side by side on one grid, coloured by component, their parameters kept whatever n.
LabSettings gridComparison(const std::string& preset, const std::string& grid, const std::string& order, bool causal,
                           const std::vector<GridPanel>& panels) {
    LabSettings settings;
    settings.preset = preset;
    settings.grid = grid;
    settings.order = order;
    settings.n = makeTokenGrid(grid, order)->cells();
    settings.presetN = settings.n;
    settings.causal = causal;
    settings.variant = "custom";
    settings.params = {{"expr", panels.front().expression}};
    settings.showComponents = true;
    if (panels.size() == 1) return settings;
    for (const auto& panel : panels) {
        settings.compareVariants.push_back("custom");
        settings.compareParams.push_back({{"expr", panel.expression}});
        settings.panelTitles.push_back(panel.title);
        settings.panelOrders.push_back(panel.order);
    }
    if (std::all_of(panels.begin(), panels.end(), [](const GridPanel& panel) { return panel.order.empty(); })) settings.panelOrders.clear();
    return settings;
}

// Child et al. (2019), fig. 3, on its own ground: an 8 × 8 image read in raster order, strided with
// stride = W (the previous row's worth of pixels, A(1), and the same column, A(2)) and fixed with blocks
// of one image row; each head apart, its pixels on the image above its matrix.
LabSettings sparseTransformerImage() {
    LabSettings settings;
    settings.preset = "sparse-transformer-image";
    settings.grid = "8,8";
    settings.n = 64;
    settings.presetN = 64;
    settings.causal = true;
    settings.variant = "strided";
    settings.params = {{"stride", "8"}};
    settings.compareVariants = {"strided", "fixed"};
    settings.compareParams = {{{"stride", "8"}}, {{"block", "8"}, {"summary", "1"}}};
    settings.showComponents = true;
    settings.splitComponents = true;
    return settings;
}

// The same strided pattern through two layers: every earlier pixel is reached in two steps.
LabSettings sparseTransformerReach() {
    LabSettings settings = sparseTransformerImage();
    settings.preset = "sparse-transformer-image-reach";
    settings.compareVariants.clear();
    settings.compareParams.clear();
    settings.splitComponents = false;
    settings.layers = 2;
    settings.gridQuery = 63; // the last pixel: its receptive field is the whole image
    return settings;
}

// Hassani et al. (2023) and Hassani and Shi (2022): a 5 × 5 neighbourhood and the same kernel dilated by 2,
// on a 16 × 16 image, for a query next to the top edge, so the window slides instead of shrinking.
LabSettings natten() {
    LabSettings settings = gridComparison("natten", "16,16", "", false,
                                          {{"(a) neighbourhood 5×5 (NAT, 2023)", "neighborhood(5)"},
                                           {"(b) dilated 5×5, δ = 2 (DiNAT, 2022)", "neighborhood(5, 5, 2, 2)"}});
    settings.gridQuery = 1 * 16 + 2; // cell (y 1, x 2)
    return settings;
}

// Liu et al. (2021), fig. 2: 4 × 4 windows on an 8 × 8 feature map, then the windows shifted by 2.
LabSettings swin() {
    LabSettings settings = gridComparison("swin", "8,8", "", false,
                                          {{"(a) window 4×4, layer l", "window(4)"}, {"(b) shifted window, layer l + 1", "shifted_window(4)"}});
    settings.gridQuery = 3 * 8 + 3; // cell (y 3, x 3): its shifted window crosses all four windows
    return settings;
}

// Ho et al. (2019): one head attends along the row, one along the column.
LabSettings axial() {
    LabSettings settings = gridComparison("axial", "16,16", "", false, {{"", "same_row | same_col"}});
    settings.splitComponents = true;
    return settings;
}

// Zhang et al. (2025): sliding tile attention (3 × 3 tiles of 4 × 4) beside a 12 × 12 neighbourhood of the
// same reach, with the block view in blocks of one tile (16 cells): in raster order both scatter over
// partial blocks; in tile order every block of tile attention is full or empty.
LabSettings slidingTile(const std::string& preset, const std::string& order) {
    LabSettings settings = gridComparison(preset, "16,16", order, false,
                                          {{"(a) neighbourhood 12×12", "neighborhood(12)"},
                                           {"(b) sliding tiles, 3×3 tiles of 4×4", "tile_neighborhood(4, 4, 3, 3)"}});
    settings.blockView = 16;
    return settings;
}

// A 15 × 15 neighbourhood on a 64 × 64 image in raster, tile and Morton order, with the block view in
// blocks of 64 (one 8 × 8 tile): the pattern on the image is the same, the blocks a kernel computes are
// not (a block of one raster row needs keys from 15 image rows).
LabSettings neighbourhoodOrders() {
    LabSettings settings = gridComparison("neighbourhood-orders", "64,64", "", false,
                                          {{"(a) raster order", "neighborhood(15)", "raster"},
                                           {"(b) tile order, tiles of 8×8", "neighborhood(15)", "tiles:8,8"},
                                           {"(c) Morton order", "neighborhood(15)", "morton"}});
    settings.blockView = 64;
    return settings;
}

} // namespace

std::vector<FigurePreset> gridFigurePresets() {
    const QString pattern = QStringLiteral("pattern");
    return {
        {QStringLiteral("sparse-transformer-image"),
         QT_TRANSLATE_NOOP("ModelPresets", "Sparse Transformer (Child et al., 2019): strided and fixed heads on an 8×8 image"), pattern,
         sparseTransformerImage(), nullptr},
        {QStringLiteral("sparse-transformer-image-reach"),
         QT_TRANSLATE_NOOP("ModelPresets", "Sparse Transformer (Child et al., 2019): two strided layers reach every earlier pixel"),
         QStringLiteral("reach"), sparseTransformerReach(), nullptr},
        {QStringLiteral("natten"),
         QT_TRANSLATE_NOOP("ModelPresets", "NATTEN (Hassani et al., 2022–2023): neighbourhood vs dilated neighbourhood at the edge"), pattern,
         natten(), nullptr},
        {QStringLiteral("swin"), QT_TRANSLATE_NOOP("ModelPresets", "Swin Transformer (Liu et al., 2021): window vs shifted window"), pattern,
         swin(), nullptr},
        {QStringLiteral("axial"), QT_TRANSLATE_NOOP("ModelPresets", "Axial attention (Ho et al., 2019): row and column heads"), pattern,
         axial(), nullptr},
        {QStringLiteral("sliding-tile-raster"),
         QT_TRANSLATE_NOOP("ModelPresets", "Sliding tile attention (Zhang et al., 2025) vs neighbourhood, raster order, blocks of 16"), pattern,
         slidingTile("sliding-tile-raster", ""), nullptr},
        {QStringLiteral("sliding-tile"),
         QT_TRANSLATE_NOOP("ModelPresets", "Sliding tile attention (Zhang et al., 2025) vs neighbourhood, tile order, blocks of 16"), pattern,
         slidingTile("sliding-tile", "tiles:4,4"), nullptr},
        {QStringLiteral("neighbourhood-orders"),
         QT_TRANSLATE_NOOP("ModelPresets", "One 15×15 neighbourhood in raster, tile and Morton order: the blocks a kernel computes"), pattern,
         neighbourhoodOrders(), nullptr},
    };
}

} // namespace attnlab
