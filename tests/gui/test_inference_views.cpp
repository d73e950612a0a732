// The inference and roofline views: the KV cache they plot against `attnlab cost --decode` run as a
// separate process, the context where a model outgrows its budget against the closed form, the
// measured decoding steps and the roofline points' intensities against `cost`'s MACs and bytes_min.

#include "text_recorder.h"

#include "views/figures/figure_export.h"
#include "views/figures/inference_view.h"
#include "views/figures/roofline_view.h"
#include "views/plot/plot_axes.h"
#include "views/plot/variant_colors.h"

#include <gtest/gtest.h>

#include <QImage>
#include <QJsonDocument>
#include <QPainter>
#include <QJsonObject>
#include <QProcess>

#include <algorithm>
#include <cmath>
#include <map>
#include <string>

namespace attnlab {
namespace {

constexpr int kIdleTimeoutMs = 180000;

// `attnlab cost ... --json` for `choice` at the view's shape; an empty object when it fails.
QJsonObject costJson(const VariantChoice& choice, const LabSettings& settings, std::int64_t n, bool decode) {
    QStringList arguments = {QStringLiteral("cost"), QStringLiteral("--variant"), QString::fromStdString(choice.variant),
                             QStringLiteral("--n"), QString::number(n), QStringLiteral("--d"), QString::number(settings.d),
                             QStringLiteral("--heads"), QString::number(settings.heads), QStringLiteral("--kv-heads"),
                             QString::number(settings.kvHeads), QStringLiteral("--json")};
    if (decode) arguments << QStringLiteral("--decode");
    if (settings.causal) arguments << QStringLiteral("--causal");
    for (const auto& [key, value] : choice.params) arguments << QStringLiteral("--set") << QString::fromStdString(key + "=" + value);
    QProcess process;
    process.start(QStringLiteral(ATTNLAB_EXECUTABLE), arguments);
    if (!process.waitForFinished(60000) || process.exitCode() != 0) {
        ADD_FAILURE() << "cost failed: " << process.readAllStandardError().toStdString();
        return {};
    }
    return QJsonDocument::fromJson(process.readAllStandardOutput()).object();
}

LabSettings groupedSettings() {
    LabSettings settings;
    settings.heads = 8;
    settings.kvHeads = 2;
    settings.d = 64;
    settings.modelLayers = 4;
    settings.memoryBudget = std::int64_t{1} << 30;
    settings.timingMaxN = 512;
    return settings;
}

TEST(InferenceView, CacheCurvesMatchCostAndTheBudgetCrossingMatchesTheClosedForm) {
    InferenceView view;
    view.show();
    const LabSettings settings = groupedSettings();
    view.setSettings(settings);
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs)) << "the inference view stayed busy";
    EXPECT_EQ(view.budgetBytes(), static_cast<double>(settings.memoryBudget));
    ASSERT_EQ(view.curves().size(), 5u); // the reference set; the chosen variant (full) is among it
    for (const KvCacheCurve& curve : view.curves()) {
        SCOPED_TRACE(curve.choice.label);
        ASSERT_TRUE(curve.error.empty()) << curve.error;
        ASSERT_FALSE(curve.points.empty());
        for (const std::int64_t n : {std::int64_t{1024}, std::int64_t{16384}}) {
            const auto point = std::find_if(curve.points.begin(), curve.points.end(), [n](const KvCachePoint& p) { return p.n == n; });
            ASSERT_NE(point, curve.points.end()) << n;
            const QJsonObject cost = costJson(curve.choice.choice, settings, n, true);
            EXPECT_EQ(point->layerBytes, cost.value(QStringLiteral("kv_cache_bytes")).toDouble()) << "n=" << n;
            if (point->retainedKeys)
                EXPECT_EQ(static_cast<double>(*point->retainedKeys), cost.value(QStringLiteral("retained_keys")).toDouble()) << "n=" << n;
            else
                EXPECT_TRUE(cost.value(QStringLiteral("retained_keys")).isNull());
        }
    }
    // Full keeps every key: 4 layers × 2 key/value heads × (64 + 64) floats × 4 bytes = 4096 bytes per
    // token, so 2^30 bytes are exceeded first at n = 2^18 + 1. The window keeps at most 4096 keys
    // (16 MiB for the model) and linear a constant state: neither runs out.
    const auto curve = [&](const std::string& label) {
        return *std::find_if(view.curves().begin(), view.curves().end(), [&](const KvCacheCurve& c) { return c.choice.label == label; });
    };
    ASSERT_TRUE(curve("full").runsOutAt.has_value());
    EXPECT_EQ(*curve("full").runsOutAt, (std::int64_t{1} << 18) + 1);
    EXPECT_FALSE(curve("window 4096").runsOutAt.has_value());
    EXPECT_FALSE(curve("window + 4 sinks").runsOutAt.has_value());
    EXPECT_FALSE(curve("linear (elu)").runsOutAt.has_value());
    EXPECT_EQ(curve("window 4096").points.back().retainedKeys, std::optional<std::int64_t>(4096));
    EXPECT_EQ(curve("window + 4 sinks").points.back().retainedKeys, std::optional<std::int64_t>(4100));

    // One decoding step timed per curve at n = 256 and 512, each rate its cost-model MACs over its time.
    EXPECT_EQ(view.timings().size(), 10u);
    for (const DecodeTiming& timing : view.timings()) {
        ASSERT_TRUE(timing.valid()) << timing.error;
        EXPECT_NEAR(timing.gflops, 2.0 * timing.macs / timing.medianSeconds / 1e9, 1e-9 * timing.gflops);
    }
    const QString csv = view.csvData();
    EXPECT_TRUE(csv.startsWith(QStringLiteral("series,label,n,quantity,value,unit\n")));
    EXPECT_TRUE(csv.contains(QStringLiteral("runs_out,\"full\",262145,context_n,262145,tokens"))) << csv.left(400).toStdString();
}

// "never (≤ X)" must hold: the bound is rounded up, never below the bytes it bounds, and stays within
// its three significant digits of them.
TEST(InferenceView, ByteBoundsRoundUp) {
    const std::map<QString, double> units = {{QStringLiteral("B"), 1.0}, {QStringLiteral("KiB"), 1024.0},
                                             {QStringLiteral("MiB"), 1024.0 * 1024}, {QStringLiteral("GiB"), 1024.0 * 1024 * 1024}};
    for (const double bytes : {2099200.0, 2097152.0, 2.6e9, 999.5, 1536.0, 123456789.0}) {
        const QStringList parts = bytesBoundText(bytes).split(QLatin1Char(' '));
        ASSERT_EQ(parts.size(), 2) << bytesBoundText(bytes).toStdString();
        const double bound = parts[0].toDouble() * units.at(parts[1]);
        EXPECT_GE(bound, bytes) << bytesBoundText(bytes).toStdString();
        EXPECT_LE(bound, bytes * 1.01) << bytesBoundText(bytes).toStdString();
    }
    EXPECT_EQ(bytesBoundText(2099200.0), QStringLiteral("2.01 MiB"));
    EXPECT_EQ(bytesBoundText(2097152.0), QStringLiteral("2 MiB"));
}

TEST(InferenceView, ABudgetChangeMovesTheCrossingWithTheLayers) {
    InferenceView view;
    view.show();
    LabSettings settings = groupedSettings();
    settings.timingMaxN = 256;
    settings.modelLayers = 8; // twice the bytes per token: half the context
    view.setSettings(settings);
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    ASSERT_TRUE(view.curves().front().runsOutAt.has_value());
    EXPECT_EQ(*view.curves().front().runsOutAt, (std::int64_t{1} << 17) + 1);
}

// The grouped settings with a causal custom `expr` on `grid` (n its cells), shown and computed.
void showGridPattern(InferenceView& view, const char* grid, std::int64_t n, const char* expr) {
    view.show();
    LabSettings settings = groupedSettings();
    settings.timingMaxN = 256;
    settings.grid = grid;
    settings.n = n;
    settings.causal = true;
    settings.variant = "custom";
    settings.params = {{"expr", expr}};
    view.setSettings(settings);
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
}

// A pattern of the grid's primitives exists on the grid's cells: decoding generates them in the grid's order,
// so its cache curve has the contexts up to the grid's n (a 12 × 12 image, n = 144, off the powers of two the
// other curves take) and no other, and its legend says so instead of claiming it never outgrows the budget
// (4 layers: 4 × 144 KiB).
TEST(InferenceView, AGridPatternsCacheIsStatedUpToTheGridsN) {
    InferenceView view;
    ASSERT_NO_FATAL_FAILURE(showGridPattern(view, "12,12", 144, "neighborhood(7) & causal"));
    ASSERT_EQ(view.curves().size(), 6u);
    const KvCacheCurve& grid = view.curves().back();
    EXPECT_TRUE(grid.partial);
    std::vector<std::int64_t> contexts;
    for (const KvCachePoint& point : grid.points) {
        contexts.push_back(point.n);
        // A custom pattern has no rule of its own for its cache: a later query may use any key, so it keeps
        // every one generated (docs/inference.md), each h_kv = 2 heads × (64 + 64) floats.
        EXPECT_EQ(point.retainedKeys, std::optional<std::int64_t>(point.n));
        EXPECT_EQ(point.layerBytes, static_cast<double>(point.n) * 2 * 128 * 4);
    }
    EXPECT_EQ(contexts, (std::vector<std::int64_t>{16, 32, 64, 128, 144}));
    EXPECT_FALSE(grid.runsOutAt.has_value());
    qsizetype never = 0;
    for (const KvCacheCurve& curve : view.curves())
        if (&curve != &grid) {
            EXPECT_FALSE(curve.partial) << curve.choice.label;
            never += curve.runsOutAt ? 0 : 1;
        }
    // Whole at the default size, and on two lines in a narrow window's tab (the lines painted one after the other).
    for (const QSize size : {QSize(900, 600), QSize(520, 600)}) {
        QString painted;
        for (const auto& text : testing::paintedTexts(view, size)) painted += text.text + QLatin1Char(' ');
        EXPECT_TRUE(painted.contains(QStringLiteral("custom (expr=neighborhood(7) & causal): ≤ 576 KiB at n = 16 … 144 only")))
            << size.width() << ": " << painted.toStdString();
        EXPECT_EQ(painted.count(QStringLiteral("never (")), never) << "the grid pattern is claimed never to run out";
    }
}

// A grid smaller than the smallest context the curves take has one point, its own n, and says so (4 layers of
// 9 KiB).
TEST(InferenceView, ASmallGridsCacheIsStatedAtItsNOnly) {
    InferenceView view;
    ASSERT_NO_FATAL_FAILURE(showGridPattern(view, "3,3", 9, "neighborhood(3) & causal"));
    const KvCacheCurve& grid = view.curves().back();
    ASSERT_EQ(grid.points.size(), 1u);
    EXPECT_EQ(grid.points.front().n, 9);
    QString painted;
    for (const auto& text : testing::paintedTexts(view, QSize(900, 600))) painted += text.text + QLatin1Char(' ');
    EXPECT_TRUE(painted.contains(QStringLiteral("neighborhood(3) & causal): 36 KiB, at n = 9 only"))) << painted.toStdString();
}

// A decoding frame's "t = …" marker sits at the top of the cache panel, where the budget line and its
// label are when the budget is the panel's largest value: the marker's label moves off the budget's.
TEST(InferenceView, TheDecodingMarkerKeepsOffTheBudgetLabel) {
    InferenceView view;
    view.show();
    LabSettings settings;
    settings.variant = "longformer";
    settings.params = {{"window", "16"}};
    settings.n = 64;
    settings.causal = true;
    settings.timingMaxN = 256;
    view.setSettings(settings);
    FrameMark mark;
    mark.decodeStep = 36;
    view.setFrameMark(mark);
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    const auto texts = testing::paintedTexts(view, QSize(900, 600));
    const auto found = [&](const QString& start) {
        const auto it = std::find_if(texts.begin(), texts.end(), [&](const auto& text) { return text.text.startsWith(start); });
        return it == texts.end() ? QRectF() : it->rect;
    };
    const QRectF marker = found(QStringLiteral("t = 36")), budget = found(QStringLiteral("memory budget"));
    ASSERT_FALSE(marker.isEmpty());
    ASSERT_FALSE(budget.isEmpty());
    EXPECT_FALSE(marker.adjusted(1, 1, -1, -1).intersects(budget.adjusted(1, 1, -1, -1)))
        << "t = 36 at (" << marker.x() << ", " << marker.y() << "), the budget label at (" << budget.x() << ", "
        << budget.y() << ")";

    // The strip of kept keys of each choice is in the colour its curves have (variant_colors.h): the
    // longformer's last held key, at the strip's right end, in the longformer curve's shade.
    std::vector<std::string> ids;
    for (const KvCacheCurve& curve : view.curves()) ids.push_back(curve.choice.choice.variant);
    ASSERT_EQ(ids.back(), "longformer");
    const QRectF strip = found(QStringLiteral("longformer (window=16): 9 keys"));
    ASSERT_FALSE(strip.isEmpty());
    QImage image(900, 600, QImage::Format_RGB32);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        view.paintFigure(painter, QRectF(0, 0, 900, 600));
    }
    const QColor held = image.pixelColor(static_cast<int>(image.width() - 12), static_cast<int>(strip.center().y()));
    EXPECT_EQ(held.rgb(), variantColors(ids).back().rgb()) << held.name().toStdString();
}

// GPT-2 small with a float16 cache against full and a longformer whose cache outgrows 24 GiB only at
// hundreds of billions of tokens: the cache axis stays on deployable contexts (at most 2^24) and the
// legend says where the longformer runs out; every tick reads in K/M/G units (never "6.554e+04M");
// nothing of the four panels is elided and the triad's dashed line is named.
TEST(InferenceView, TheFigureKeepsItsAxesReadableAndItsTextWhole) {
    InferenceView view;
    view.show();
    LabSettings settings;
    settings.heads = 12;
    settings.kvHeads = 12;
    settings.d = 64;
    settings.modelLayers = 12;
    settings.kvDtype = "f16";
    settings.n = 1024;
    settings.memoryBudget = std::int64_t{24} << 30;
    settings.timingMaxN = 512;
    settings.compareVariants = {"full", "longformer"};
    settings.compareParams = {{}, {}};
    view.setSettings(settings);
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    ASSERT_TRUE(view.peak().has_value());
    const KvCacheCurve& longformer = view.curves().back();
    ASSERT_EQ(longformer.choice.label, "longformer");
    ASSERT_TRUE(longformer.runsOutAt.has_value());
    EXPECT_GT(*longformer.runsOutAt, std::int64_t{1} << 24);
    for (const KvCacheCurve& curve : view.curves()) EXPECT_LE(curve.points.back().n, std::int64_t{1} << 24) << curve.choice.label;
    bool triad = false;
    for (const auto& painted : testing::paintedTexts(view, QSize(900, 600))) {
        EXPECT_FALSE(painted.text.contains(QStringLiteral("e+"))) << painted.text.toStdString();
        EXPECT_FALSE(painted.text.endsWith(QChar(0x2026))) << "elided: " << painted.text.toStdString();
        triad = triad || painted.text.startsWith(QStringLiteral("STREAM triad on "));
    }
    EXPECT_TRUE(triad) << "the triad's line has no name";
    EXPECT_EQ(bytesText(0x1p43), QStringLiteral("8 TiB"));
    EXPECT_EQ(bytesText(0x1p53), QStringLiteral("8 PiB"));
    EXPECT_EQ(bytesText(1000.0 * (1 << 20)), QStringLiteral("0.977 GiB"));
}

// A decoding frame of the default comparison (five choices) shortens the panels, its strips of kept keys
// going under them: an axis name too long for them (the cache's with its precision, which the title
// states, or the time to the first token) takes its short name instead of being cut; nothing is cut.
TEST(InferenceView, ADecodingFrameKeepsItsAxisNamesWhole) {
    InferenceView view;
    view.show();
    LabSettings settings;
    settings.timingMaxN = 512;
    view.setSettings(settings);
    FrameMark mark;
    mark.decodeStep = 64;
    view.setFrameMark(mark);
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    QStringList shortNames;
    for (const auto& painted : testing::paintedTexts(view, QSize(900, 600))) {
        EXPECT_FALSE(painted.text.endsWith(QChar(0x2026))) << "elided: " << painted.text.toStdString();
        if (painted.text == QStringLiteral("KV cache") || painted.text == QStringLiteral("first token")) shortNames << painted.text;
    }
    EXPECT_FALSE(shortNames.isEmpty()) << "no axis needed its short name: the frame's panels were not short";
}

TEST(RooflineView, PointsSitAtCostIntensitiesAndDecodingIsMemoryBound) {
    RooflineView view;
    view.show();
    LabSettings settings = groupedSettings();
    settings.n = 1024;
    settings.causal = true;
    settings.compareVariants = {"full", "longformer"};
    settings.compareParams = {{}, {{"window", "64"}}};
    view.setSettings(settings);
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs)) << "the roofline view stayed busy";
    ASSERT_TRUE(view.peak().has_value());
    EXPECT_GT(view.peak()->fmaGflops, 0.0);
    EXPECT_GT(view.peak()->bandwidthGBs, 0.0);
    ASSERT_EQ(view.points().size(), 4u);
    for (std::size_t k = 0; k < view.points().size(); ++k) {
        const RooflineMeasurement& point = view.points()[k];
        SCOPED_TRACE(point.label + (point.decode ? " decode" : " prefill"));
        ASSERT_TRUE(point.valid()) << point.error;
        const VariantChoice choice{settings.compareVariants[k / 2], settings.compareParams[k / 2]};
        const QJsonObject cost = costJson(choice, settings, settings.n, point.decode);
        EXPECT_EQ(point.macs, cost.value(QStringLiteral("attention_macs")).toDouble());
        EXPECT_EQ(point.bytesMin, cost.value(QStringLiteral("bytes_min")).toDouble());
        EXPECT_NEAR(point.roof.intensity, 2.0 * point.macs / point.bytesMin, 1e-12 * point.roof.intensity);
        EXPECT_NEAR(point.roof.roofGflops,
                    std::min(view.peak()->fmaGflops, point.roof.intensity * view.peak()->bandwidthGBs), 1e-9 * point.roof.roofGflops);
    }
    // Full attention's decoding step reads each cached key and value (2·64 floats, 512 bytes) once for
    // 2·64 multiply-adds in each of h / h_kv = 4 query heads: about 2 flops per byte, left of any CPU's
    // ridge; its prefill reuses each key for every later query, about 200 flops per byte.
    const RooflineMeasurement& prefill = view.points()[0];
    const RooflineMeasurement& decode = view.points()[1];
    EXPECT_LT(decode.roof.intensity, 2.5);
    EXPECT_TRUE(decode.roof.memoryBound);
    EXPECT_GT(prefill.roof.intensity, 50.0 * decode.roof.intensity);
    EXPECT_TRUE(view.csvData().contains(QStringLiteral("decode,\"full\",")));
}

} // namespace
} // namespace attnlab
