// The FLOP view's line on exponentials names whose they are, with the count the cost model gives for
// the variant on screen: the softmax's, a feature map's (linear, performer), or none (relu²).
#include "text_recorder.h"

#include "views/figures/figure_export.h"
#include "views/figures/flops_view.h"
#include "views/figures/tikz_paint_engine.h"

#include "core/cost/cost_model.h"
#include "core/patterns/block_counts.h"
#include "core/patterns/token_grid.h"
#include "core/registry.h"
#include "views/plot/plot_axes.h"

#include <gtest/gtest.h>

#include <QPainter>
#include <QRegularExpression>

#include <algorithm>
#include <map>
#include <string>
#include <vector>

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

// Every stacked term names its multiply-adds (all heads, hd = h·d; nnz the mask's allowed pairs of one
// head) for the variant shown, and the legend lists the terms from the top of the stack down, read in
// rows: the CSV's terms, which come in stack order from the bottom, backwards.
TEST(FlopsLegend, EveryStackedTermHasItsFormulaInStackOrder) {
    using Labels = std::map<std::string, QString>;
    const Labels projections = {{"qkv_proj", "QKV projections 3n(hd)²"}, {"out_proj", "output projection n(hd)²"}, {"ffn", "FFN 8n(hd)²"}};
    const Labels masked = {{"scores", "scores QKᵀ nnz·hd"}, {"weights_v", "weights × V nnz·hd"}};
    const std::map<std::string, Labels> cores = {
        {"full", {{"scores", "scores QKᵀ n(n+1)/2·hd"}, {"weights_v", "weights × V n(n+1)/2·hd"}}},
        {"strided", masked},
        {"xl", {{"scores", "scores QKᵀ nnz·hd"}, {"weights_v", "weights × V nnz·hd"}, {"relpos", "relative position q·R nnz·hd"}}},
        {"performer", {{"feature_map", "feature map 2n·m·hd"}, {"linear_state", "linear state 2n·m·hd"}}},
        {"linear", {{"feature_map", "feature map 2n·hd"}, {"linear_state", "linear state 2n·d·hd"}}},
        {"linformer", {{"projection", "low-rank projection 2k·n·hd"}, {"scores", "scores QKᵀ n·k·hd"}, {"weights_v", "weights × V n·k·hd"}}},
        {"lsh", {{"hashing", "LSH hashing rounds·n·b·hd"}, {"scores", "scores QKᵀ nnz·hd"}, {"weights_v", "weights × V nnz·hd"}}},
    };
    for (const auto& [variant, core] : cores) {
        SCOPED_TRACE(variant);
        Labels expected = projections;
        expected.insert(core.begin(), core.end());
        LabSettings settings;
        settings.variant = variant;
        settings.causal = variant == "full";
        settings.n = 2048;
        settings.flopsAsMacs = true;
        FlopsView view;
        view.setAttribute(Qt::WA_DontShowOnScreen);
        view.resize(1100, 700);
        view.setSettings(settings);
        view.show();
        ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
        // The stack from the bottom: the non-zero terms of the CSV's first n, in their order.
        std::vector<std::string> stack;
        const QStringList rows = view.csvData().split('\n', Qt::SkipEmptyParts);
        ASSERT_GT(rows.size(), 1);
        const QString firstN = rows.at(1).split(',').at(2);
        for (const QString& row : rows.mid(1)) {
            const QStringList fields = row.split(',');
            if (fields.at(0) != QLatin1String("layer") || fields.at(2) != firstN) break;
            if (fields.at(3) != QLatin1String("exps") && fields.at(3) != QLatin1String("layer_total") && fields.at(4).toDouble() > 0)
                stack.push_back(fields.at(3).toStdString());
        }
        ASSERT_FALSE(stack.empty());
        // Where each term's entry is painted.
        std::vector<std::pair<QPointF, std::string>> legend;
        for (const auto& text : testing::paintedTexts(view, QSize(1100, 700)))
            for (const std::string& term : stack)
                if (expected.count(term) && text.text == expected.at(term)) legend.emplace_back(text.rect.topLeft(), term);
        for (const std::string& term : stack)
            EXPECT_EQ(std::count_if(legend.begin(), legend.end(), [&](const auto& entry) { return entry.second == term; }), 1)
                << term << ": " << (expected.count(term) ? expected.at(term).toStdString() : "no formula expected");
        std::sort(legend.begin(), legend.end(), [](const auto& a, const auto& b) {
            return std::abs(a.first.y() - b.first.y()) > 2 ? a.first.y() < b.first.y() : a.first.x() < b.first.x();
        });
        std::vector<std::string> read;
        for (const auto& entry : legend) read.push_back(entry.second);
        EXPECT_EQ(read, std::vector<std::string>(stack.rbegin(), stack.rend()));
    }
}

// The causal figure's crossovers (n > 4hd − 1 = 3071, n > 12hd − 1 = 9215) and the current n: each label
// sits beside its own dashed line and runs across no other marker's line, at the sizes a slide takes.
TEST(FlopsLegend, CrossoverLabelsCrossNoOtherMarker) {
    LabSettings settings;
    settings.variant = "full";
    settings.causal = true;
    settings.heads = 12;
    settings.d = 64;
    settings.n = 2048;
    FlopsView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(1000, 600);
    view.setSettings(settings);
    view.show();
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    for (const QSize size : {QSize(900, 600), QSize(1000, 560), QSize(1280, 720), QSize(1920, 1080)}) {
        SCOPED_TRACE(size.width());
        TikzPaintDevice device(size);
        {
            QPainter painter(&device);
            view.paintFigure(painter, QRectF(QPointF(0, 0), QSizeF(size)));
        }
        const QString body = device.engine().body();
        std::map<QString, QRgb> colours;
        static const QRegularExpression define(QStringLiteral(R"(\\definecolor\{(c\d+)\}\{RGB\}\{(\d+),(\d+),(\d+)\})"));
        for (const QString& line : device.engine().colourDefinitions())
            if (const auto found = define.match(line); found.hasMatch())
                colours[found.captured(1)] = qRgb(found.captured(2).toInt(), found.captured(3).toInt(), found.captured(4).toInt());
        std::vector<double> markers;
        static const QRegularExpression dashed(QStringLiteral(R"(^\\path\[draw=c\d+,[^\]]*dashed\] \(([-0-9.]+),([-0-9.]+)\) -- \(([-0-9.]+),([-0-9.]+)\);$)"),
                                               QRegularExpression::MultilineOption);
        for (auto match = dashed.globalMatch(body); match.hasNext();) {
            const auto found = match.next();
            if (found.captured(1) == found.captured(3) && std::abs(found.captured(2).toDouble() - found.captured(4).toDouble()) > 100)
                markers.push_back(found.captured(1).toDouble());
        }
        std::vector<QRectF> labels;
        static const QRegularExpression box(QStringLiteral(R"(^\\path\[fill=(c\d+),fill opacity=0.92\] \(([-0-9.]+),([-0-9.]+)\) rectangle \(([-0-9.]+),([-0-9.]+)\);$)"),
                                            QRegularExpression::MultilineOption);
        for (auto match = box.globalMatch(body); match.hasNext();) {
            const auto found = match.next();
            if (colours[found.captured(1)] == qRgb(255, 255, 255))
                labels.push_back(QRectF(QPointF(found.captured(2).toDouble(), found.captured(3).toDouble()),
                                        QPointF(found.captured(4).toDouble(), found.captured(5).toDouble()))
                                     .normalized());
        }
        ASSERT_EQ(markers.size(), 3u) << body.toStdString();
        ASSERT_EQ(labels.size(), 3u);
        for (const QRectF& label : labels) {
            const auto inside = std::count_if(markers.begin(), markers.end(), [&](double x) { return x > label.left() + 0.5 && x < label.right() - 0.5; });
            EXPECT_EQ(inside, 0) << "label box " << label.left() << " … " << label.right();
            const bool beside = std::any_of(markers.begin(), markers.end(),
                                            [&](double x) { return std::abs(x - label.left()) < 3 || std::abs(x - label.right()) < 3; });
            EXPECT_TRUE(beside) << "label box " << label.left() << " … " << label.right();
        }
    }
}

// The block kernel's cost beside the exact one: a hatched bar labelled with computed ÷ allowed cells for
// every variant with a mask, its counts in the CSV; on a grid the stacked terms sweep image sizes.
TEST(FlopsLegend, BlockKernelCostStandsBesideTheExactCost) {
    LabSettings settings;
    settings.variant = "custom";
    settings.params = {{"expr", "neighborhood(3)"}};
    settings.grid = "16,16";
    settings.n = 256;
    settings.d = 16;
    FlopsView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(900, 600);
    for (const std::int64_t block : {64, 16}) {
        settings.blockCost = block;
        view.setSettings(settings);
        view.show();
        ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
        const auto bar = std::find_if(view.bars().begin(), view.bars().end(), [](const auto& b) { return b.variant == "custom"; });
        ASSERT_NE(bar, view.bars().end());
        ASSERT_TRUE(bar->block);
        const VariantInfo& custom = requireVariant("custom");
        const ProblemShape shape = problemShape(settings, custom);
        const BlockCounts counts = countBlocks(*buildPattern(custom, shape, prepareParams(custom, shape, settings.params)), block);
        EXPECT_EQ(bar->block->blocks.computedCells, counts.computedCells);
        const double ratio = static_cast<double>(counts.computedCells) / static_cast<double>(9 * 256);
        EXPECT_TRUE(paintedText(view).contains(withoutSpaces(QStringLiteral("block ×%1").arg(ratio, 0, 'f', 2)))) << block;
        const QString csv = view.csvData();
        EXPECT_TRUE(csv.contains(QStringLiteral("block_kernel_at_n,custom,256,computed_cells,%1,cells").arg(counts.computedCells))) << block;
        EXPECT_TRUE(csv.contains(QStringLiteral("block_kernel_at_n,custom,256,attention,%1,macs")
                                     .arg(QString::number(static_cast<double>(counts.computedCells) * 32.0, 'g', 17))));
        EXPECT_FALSE(csv.contains(QStringLiteral("block_kernel_at_n,linear,"))) << "no block kernel for linear attention";
    }
    EXPECT_TRUE(view.title().contains(QStringLiteral("16×16 image")));
    const auto grid = makeTokenGrid("16,16", "");
    ASSERT_EQ(view.sweep().size(), flopSweepSizes(1, 16, grid.get()).size());
    for (const auto& point : view.sweep()) EXPECT_DOUBLE_EQ(point.cost.attentionMacs, 9.0 * static_cast<double>(point.n) * 32.0);
}

// relu2 and mixed_chunk are costed in FLASH's own GAU layer (e = 2hd, s = 128, no FFN), with FLASH's
// trade drawn and written out: two GAU layers against one layer of full attention + FFN. The numbers at
// hd = 768, n = 512 are counted by hand.
TEST(FlopsLegend, FlashVariantsAreCostedInTheirGauLayer) {
    LabSettings settings;
    settings.variant = "relu2";
    settings.n = 512;
    settings.heads = 12;
    settings.d = 64;
    FlopsView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(900, 600);
    view.setSettings(settings);
    view.show();
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    const auto at512 = std::find_if(view.sweep().begin(), view.sweep().end(), [](const auto& point) { return point.n == 512; });
    ASSERT_NE(at512, view.sweep().end());
    EXPECT_EQ(at512->cost.layer, LayerKind::Gau);
    EXPECT_EQ(at512->cost.terms.count("ffn"), 0u);
    EXPECT_EQ(at512->cost.layerMacs, 2298478592.0);
    EXPECT_EQ(at512->standardLayerMacs, 4026531840.0);
    const QString csv = view.csvData();
    EXPECT_TRUE(csv.contains(QStringLiteral("layer,relu2,512,uv_proj,1207959552,macs\n"))) << csv.toStdString();
    EXPECT_TRUE(csv.contains(QStringLiteral("gau_comparison,relu2,512,two_gau_layers,4596957184,macs\n")));
    EXPECT_TRUE(csv.contains(QStringLiteral("gau_comparison,full,512,attention_ffn_layer,4026531840,macs\n")));
    EXPECT_FALSE(csv.contains(QStringLiteral(",ffn,")));
    const QString text = paintedText(view);
    for (const QString& label : {QStringLiteral("U, V projections 2n(hd)e"), QStringLiteral("Z projection n(hd)s"),
                                 QStringLiteral("weights × V nnz·e"), QStringLiteral("FLASH's trade"), QStringLiteral("equal cost")})
        EXPECT_TRUE(text.contains(withoutSpaces(label))) << label.toStdString();
    EXPECT_FALSE(text.contains(withoutSpaces(QStringLiteral("FFN 8n(hd)²"))));
    EXPECT_TRUE(view.title().contains(QStringLiteral("GAU layer")));

    // mixed_chunk's chunked core makes two GAU layers the cheaper side at long n; full keeps its standard layer.
    settings.variant = "mixed_chunk";
    view.setSettings(settings);
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    ASSERT_FALSE(view.sweep().empty());
    EXPECT_GT(2 * view.sweep().front().cost.layerMacs, view.sweep().front().standardLayerMacs);
    EXPECT_LT(2 * view.sweep().back().cost.layerMacs, view.sweep().back().standardLayerMacs);
    settings.variant = "full";
    view.setSettings(settings);
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    EXPECT_FALSE(view.csvData().contains(QStringLiteral("gau_comparison")));
    EXPECT_TRUE(paintedText(view).contains(withoutSpaces(QStringLiteral("FFN 8n(hd)²"))));
}

// BigBird compared at n = 4096, whose block kernels compute 20 to 280 times the allowed cells: every
// "block ×r" label keeps clear of the bar chart's right frame, and nothing the figure says is cut to "…"
// (the bar panel's title and axis label included), at the export size and at the window's.
TEST(FlopsLegend, BlockLabelsAndTitlesStayWholeInsideTheBarChart) {
    LabSettings settings;
    settings.variant = "bigbird";
    settings.compareVariants = {"bigbird", "strided"};
    settings.n = 4096;
    FlopsView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(640, 740);
    view.setSettings(settings);
    view.show();
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    for (const QSize size : {QSize(900, 600), QSize(640, 740)}) {
        SCOPED_TRACE(std::to_string(size.width()) + " x " + std::to_string(size.height()));
        testing::TextRecordingDevice device(size);
        {
            QPainter painter(&device);
            view.paintFigure(painter, QRectF(QPointF(0, 0), QSizeF(size)));
        }
        // The bar chart's frame: the rightmost tall rectangle drawn.
        QRectF frame;
        for (const auto& drawn : device.engine().rects())
            if (drawn.rect.height() > 150 && drawn.rect.width() > 60 && drawn.rect.right() > frame.right()) frame = drawn.rect;
        ASSERT_FALSE(frame.isEmpty());
        int labels = 0;
        for (const auto& text : device.texts()) {
            EXPECT_FALSE(text.text.endsWith(QChar(0x2026))) << text.text.toStdString();
            if (!text.text.startsWith(QStringLiteral("block ×"))) continue;
            ++labels;
            EXPECT_LE(text.rect.right(), frame.right() - 2) << text.text.toStdString() << " against the frame at " << frame.right();
        }
        EXPECT_GE(labels, 3);
    }
}

// A pattern compared in two token orders has a bar per panel, each costed on its panel's own order: a
// 5 × 5 neighbourhood on a 16 × 16 image computes other 16-blocks in raster order than in 4 × 4 tiles.
TEST(FlopsLegend, ComparedPanelsAreCostedInTheirOwnTokenOrders) {
    LabSettings settings;
    settings.grid = "16,16";
    settings.n = 256;
    settings.d = 16;
    settings.blockCost = 16;
    settings.compareVariants = {"custom", "custom"};
    settings.compareParams = {{{"expr", "neighborhood(5)"}}, {{"expr", "neighborhood(5)"}}};
    settings.panelOrders = {"", "tiles:4,4"};
    FlopsView view;
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(900, 600);
    view.setSettings(settings);
    view.show();
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    std::vector<FlopsView::CoreBar> custom;
    for (const auto& bar : view.bars())
        if (bar.variant == "custom") custom.push_back(bar);
    ASSERT_EQ(custom.size(), 2u);
    const VariantInfo& variant = requireVariant("custom");
    std::vector<std::int64_t> computed;
    for (std::size_t k = 0; k < custom.size(); ++k) {
        SCOPED_TRACE(k);
        EXPECT_EQ(custom[k].order, settings.panelOrders[k]);
        LabSettings own = settings;
        own.order = settings.panelOrders[k];
        const ProblemShape shape = problemShape(own, variant);
        const BlockCounts counts = countBlocks(*buildPattern(variant, shape, prepareParams(variant, shape, settings.compareParams[k])), 16);
        ASSERT_TRUE(custom[k].block);
        EXPECT_EQ(custom[k].block->blocks.computedCells, counts.computedCells);
        // NATTEN's window slides inside the image: every cell attends 25 cells, 2d MACs each.
        EXPECT_DOUBLE_EQ(custom[k].attentionMacs, 25.0 * 256 * 2 * 16);
        computed.push_back(counts.computedCells);
    }
    EXPECT_NE(computed[0], computed[1]) << "the two orders compute the same blocks: the test shows nothing";
    const QString csv = view.csvData();
    EXPECT_TRUE(csv.contains(QStringLiteral("block_kernel_at_n,\"custom order=tiles:4,4\",256,computed_cells,%1,cells").arg(computed[1])))
        << csv.toStdString();
    EXPECT_TRUE(paintedText(view).contains(withoutSpaces(QStringLiteral("custom (order tiles:4,4)"))));
}

} // namespace
} // namespace attnlab
