// The FLOP view's line on exponentials names whose they are, with the count the cost model gives for
// the variant on screen: the softmax's, a feature map's (linear, performer), or none (relu²).
#include "text_recorder.h"

#include "views/figures/figure_export.h"
#include "views/figures/flops_view.h"

#include "core/cost/cost_model.h"
#include "core/registry.h"
#include "views/plot/plot_axes.h"

#include <gtest/gtest.h>

#include <QRegularExpression>

#include <string>

namespace attnlab {
namespace {

constexpr int kIdleTimeoutMs = 60000;

// Without white space: a note wraps over lines at its spaces.
QString withoutSpaces(QString text) {
    return text.remove(QRegularExpression(QStringLiteral("\\s")));
}

QString paintedText(const FigureView& view) {
    QString text;
    for (const auto& painted : testing::paintedTexts(view, QSize(900, 600)))
        text += painted.text;
    return withoutSpaces(text);
}

QString legendOf(const std::string& variant, bool flops) {
    LabSettings settings;
    settings.variant = variant;
    settings.n = 2048;
    settings.heads = 12;
    settings.flopsAsMacs = !flops;
    FlopsView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(900, 600);
    view.setSettings(settings);
    view.show();
    EXPECT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    return paintedText(view);
}

QString expsOf(const std::string& variant) {
    const VariantInfo& info = requireVariant(variant);
    ProblemShape shape;
    shape.heads = 12;
    shape.n = 2048;
    shape.d = shape.dv = 64;
    return compactNumber(layerCost(info, shape, prepareParams(info, shape, {})).exps);
}

TEST(FlopsLegend, ExponentialsAreNamedByWhereTheyComeFrom) {
    EXPECT_TRUE(legendOf("full", false)
                    .contains(withoutSpaces(
                        QStringLiteral("softmax: %1 exps at n=2048 (not MACs)").arg(expsOf("full")))));
    EXPECT_TRUE(
        legendOf("linear", true)
            .contains(withoutSpaces(
                QStringLiteral("feature map φ: %1 exps at n=2048 (not FLOPs)").arg(expsOf("linear")))));
    EXPECT_TRUE(
        legendOf("performer", false)
            .contains(withoutSpaces(QStringLiteral("feature map φ: %1 exps").arg(expsOf("performer")))));
    const QString relu = legendOf("relu2", false);
    EXPECT_TRUE(relu.contains(QStringLiteral("noexponentialsatn=2048"))) << relu.toStdString();
    EXPECT_FALSE(relu.contains(QStringLiteral("softmax:"))) << relu.toStdString();
}

} // namespace
} // namespace attnlab
