// Animations on a token grid: n (the grid's cell count) is not among the parameters a view sweeps there,
// in the command's parser and in the app's dialog alike, and the receptive field's grid picture keeps the
// hop colours held over a sweep of L, like its heatmap and legend.

#include "gui/animation_run.h"
#include "gui/figure_command_fixture.h"

#include "views/animation/animation_renderer.h"
#include "views/figures/receptive_field_view.h"
#include "views/shell/animation_dialog.h"

#include "core/errors.h"

#include <gtest/gtest.h>

#include <QComboBox>
#include <QTemporaryDir>

#include <algorithm>

namespace attnlab {
namespace {

LabSettings onImage(const std::string& expression) {
    LabSettings settings;
    settings.variant = "custom";
    settings.params = {{"expr", expression}};
    settings.grid = "8,8";
    settings.n = 64;
    return settings;
}

bool sweeps(const std::vector<std::string>& params, const std::string& param) {
    return std::find(params.begin(), params.end(), param) != params.end();
}

TEST(GridAnimation, NIsTheGridsCellCountAndOnlyTheTimingViewSweepsIt) {
    const LabSettings settings = onImage("neighborhood(3)");
    for (const char* view : {"pattern", "reach", "flops", "roofline", "accuracy"}) {
        SCOPED_TRACE(view);
        EXPECT_FALSE(sweeps(animationParams(QString::fromLatin1(view), settings), "n"));
        LabSettings plain = settings;
        plain.grid.clear();
        EXPECT_TRUE(sweeps(animationParams(QString::fromLatin1(view), plain), "n"));
    }
    EXPECT_TRUE(sweeps(animationParams(QStringLiteral("timing"), settings), "n"));
    EXPECT_TRUE(sweeps(animationParams(QStringLiteral("reach"), settings), "query"));
    try {
        parseAnimationSweep(QStringLiteral("pattern"), settings, "n=16:64:*2");
        ADD_FAILURE() << "n was swept on a grid";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find("n is the grid's cell count here (8,8)"), std::string::npos)
            << error.what();
    }
    AnimationDialog dialog(QStringLiteral("pattern"), settings);
    QStringList offered;
    for (int k = 0; k < dialog.paramBox()->count(); ++k)
        offered << dialog.paramBox()->itemText(k);
    EXPECT_FALSE(offered.contains(QStringLiteral("n"))) << offered.join(' ').toStdString();
    EXPECT_TRUE(offered.contains(QStringLiteral("query"))) << offered.join(' ').toStdString();
}

int pixelsOf(const QImage& image, QRgb colour) {
    int count = 0;
    for (int y = 0; y < image.height(); ++y)
        for (int x = 0; x < image.width(); ++x)
            count += (image.pixel(x, y) & 0xffffffu) == (colour & 0xffffffu);
    return count;
}

// A 3 × 3 neighbourhood reaches 8 cells in one hop and 16 more in two. Over L = 2 … 3 the colours are
// those of 3 layers in every frame: hop 2 in the middle of the scale, never the end it has at L = 2 alone.
TEST(GridAnimation, TheReachGridPictureHoldsTheSweepsHopColours) {
    QTemporaryDir dir;
    const LabSettings settings = onImage("neighborhood(3)");
    const AnimationSweep sweep = parseAnimationSweep(QStringLiteral("reach"), settings, "layers=2:3");
    AnimationOutput output;
    output.path = dir.filePath(QStringLiteral("reach.gif"));
    output.options.size = QSizeF(700, 520);
    output.previewOnly = true;
    AnimationRenderer renderer(std::make_unique<ReceptiveFieldView>(), sweep, settings, output);
    const guitest::AnimationRun run = guitest::runToTheEnd(renderer, sweep.values.size(), kRunTimeoutMs);
    const std::vector<QImage>& frames = run.frames;
    ASSERT_TRUE(run.finished);
    ASSERT_FALSE(frames[0].isNull());
    const QRgb ownEnd = ReceptiveFieldView::hopColor(2, 2), held = ReceptiveFieldView::hopColor(2, 2, 3);
    ASSERT_NE(ownEnd, held);
    EXPECT_EQ(pixelsOf(frames[0], ownEnd), 0) << "a picture of L = 2 kept its own colour scale";
    EXPECT_GT(pixelsOf(frames[0], held), 0);
}

} // namespace
} // namespace attnlab
