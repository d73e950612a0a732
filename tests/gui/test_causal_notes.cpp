// Compare mode never switches a variant's causal flag silently: the timing and FLOP views leave out a
// compared variant that has no form for the causal choice asked (linformer has no causal form, xl no
// bidirectional one) and say so with the pattern view's sentence, in the UI language; `attnlab figure`
// draws the same.
#include "figure_command_fixture.h"
#include "text_recorder.h"

#include "views/figures/figure_export.h"
#include "views/figures/flops_view.h"
#include "views/figures/timing_view.h"
#include "views/figures/view_inputs.h"
#include "views/i18n/language.h"

#include "core/cost/cost_model.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QRegularExpression>

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab {
namespace {

constexpr int kIdleTimeoutMs = 60000;
const char* const kNoCausalForm = "%1 is bidirectional only: it has no causal form, so it is not drawn for causal attention";
const char* const kNoBidirectionalForm = "%1 is causal only: it has no bidirectional form, so it is not drawn without causal";

LabSettings comparison(std::vector<std::string> variants, bool causal) {
    LabSettings settings;
    settings.variant = variants.front();
    settings.compareVariants = std::move(variants);
    settings.causal = causal;
    settings.n = 1024;
    settings.timingMaxN = 128;
    return settings;
}

// The figure's painted text as one string without white space, so a note wrapped over several lines
// (at spaces in English, between any two characters in Chinese) reads as one.
QString paintedText(const FigureView& view) {
    QString text;
    for (const auto& painted : testing::paintedTexts(view, QSize(900, 600))) text += painted.text;
    return text.remove(QRegularExpression(QStringLiteral("\\s")));
}

// The note as the figure paints it in the installed language, without white space (see paintedText).
QString sentence(const char* source, const QString& name) {
    return QCoreApplication::translate("ViewInputs", source).arg(name).remove(QRegularExpression(QStringLiteral("\\s")));
}

template <class View>
void show(View& view, const LabSettings& settings) {
    view.setAttribute(Qt::WA_DontShowOnScreen);
    view.resize(900, 600);
    view.setSettings(settings);
    view.show();
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
}

class LanguageRestore : public ::testing::Test {
protected:
    void TearDown() override { installLanguage(QStringLiteral("en")); }
};

using TimingCausalNotes = LanguageRestore;
using FlopsCausalNotes = LanguageRestore;

TEST_F(TimingCausalNotes, ACausalComparisonMeasuresNoBidirectionalOnlyVariant) {
    TimingView view;
    show(view, comparison({"full", "linformer"}, true));
    EXPECT_EQ(view.progressTotal(), 2) << "full at n = 64 and 128 only";
    ASSERT_FALSE(view.points().empty());
    for (const auto& point : view.points()) {
        EXPECT_EQ(point.seriesIndex, 0) << point.series;
        EXPECT_TRUE(point.shape.causal);
    }
    EXPECT_FALSE(view.csvData().contains(QStringLiteral("linformer"))) << view.csvData().toStdString();
    const QString note = sentence(kNoCausalForm, QStringLiteral("Linformer"));
    EXPECT_EQ(view.leftOutNotes(), QStringList{QCoreApplication::translate("ViewInputs", kNoCausalForm).arg(QStringLiteral("Linformer"))});
    EXPECT_TRUE(paintedText(view).contains(note)) << paintedText(view).toStdString();

    ASSERT_TRUE(installLanguage(QStringLiteral("zh_CN")));
    const QString chinese = sentence(kNoCausalForm, QStringLiteral("Linformer"));
    EXPECT_NE(chinese, note) << "the note is translated";
    EXPECT_TRUE(paintedText(view).contains(chinese)) << paintedText(view).toStdString();
}

TEST_F(TimingCausalNotes, ABidirectionalComparisonLeavesOutCausalOnlyXl) {
    TimingView view;
    show(view, comparison({"xl", "full"}, false));
    EXPECT_EQ(view.progressTotal(), 2);
    for (const auto& point : view.points()) {
        EXPECT_EQ(point.series, "full");
        EXPECT_FALSE(point.shape.causal);
    }
    EXPECT_TRUE(paintedText(view).contains(sentence(kNoBidirectionalForm, QStringLiteral("Transformer-XL"))))
        << paintedText(view).toStdString();
}

// Layer mode measures the first variant only: left out, nothing is measured and the plot says why.
TEST_F(TimingCausalNotes, LayerModeOfALeftOutVariantMeasuresNothing) {
    TimingView view;
    LabSettings settings = comparison({"linformer", "full"}, true);
    settings.timingMode = TimingMode::Layer;
    show(view, settings);
    EXPECT_EQ(view.progressTotal(), 0);
    EXPECT_TRUE(view.points().empty());
    EXPECT_TRUE(paintedText(view).contains(sentence(kNoCausalForm, QStringLiteral("Linformer"))));
}

TEST_F(FlopsCausalNotes, EveryBarIsCausalAndLinformerIsNamedInsteadOfDrawn) {
    FlopsView view;
    const LabSettings settings = comparison({"full", "linformer"}, true);
    show(view, settings);
    EXPECT_EQ(view.leftOut(), std::vector<std::string>{"linformer"});
    for (const auto& bar : view.bars()) EXPECT_NE(bar.variant, "linformer");
    const auto full = std::find_if(view.bars().begin(), view.bars().end(), [](const auto& bar) { return bar.variant == "full"; });
    ASSERT_NE(full, view.bars().end());
    // Causal full attention: n(n+1)/2 scores and as many weights × V products of length d per head.
    const double n = static_cast<double>(settings.n);
    EXPECT_DOUBLE_EQ(full->attentionMacs, settings.heads * n * (n + 1) * static_cast<double>(settings.d));
    EXPECT_FALSE(view.sweep().empty()) << "full's layer is drawn";
    const QString note = sentence(kNoCausalForm, QStringLiteral("Linformer"));
    EXPECT_TRUE(paintedText(view).contains(note)) << paintedText(view).toStdString();
    EXPECT_FALSE(view.csvData().contains(QStringLiteral("linformer"))) << view.csvData().toStdString();

    ASSERT_TRUE(installLanguage(QStringLiteral("zh_CN")));
    const QString chinese = sentence(kNoCausalForm, QStringLiteral("Linformer"));
    EXPECT_NE(chinese, note);
    EXPECT_TRUE(paintedText(view).contains(chinese)) << paintedText(view).toStdString();
}

// The stacked panel shows the first compared variant's layer: left out, it says why instead.
TEST_F(FlopsCausalNotes, ALeftOutFirstVariantHasNoLayerStack) {
    FlopsView view;
    show(view, comparison({"linformer", "full"}, true));
    EXPECT_TRUE(view.sweep().empty());
    const QString text = paintedText(view);
    EXPECT_GE(text.count(sentence(kNoCausalForm, QStringLiteral("Linformer"))), 2) << "in the stack and below the bars";
}

// One variant alone is drawn in the form it has, and the bars follow it: bidirectional figures name xl.
TEST_F(FlopsCausalNotes, BarsOfOneVariantFollowItsForm) {
    FlopsView view;
    LabSettings settings;
    settings.variant = "linformer";
    settings.causal = true; // the panel keeps the flag; linformer is drawn bidirectional, as it can be
    show(view, settings);
    EXPECT_EQ(view.leftOut(), std::vector<std::string>{"xl"});
    EXPECT_FALSE(view.sweep().empty());
    EXPECT_TRUE(paintedText(view).contains(QStringLiteral("causal=no")));
    EXPECT_TRUE(paintedText(view).contains(sentence(kNoBidirectionalForm, QStringLiteral("Transformer-XL"))));
}

TEST_F(FigureCommandTest, FigureLeavesOutTheSameVariantsAsTheApp) {
    const QString flops = path(QStringLiteral("flops.csv"));
    ProcessRun result = run({QStringLiteral("figure"), QStringLiteral("flops"), QStringLiteral("--compare"), QStringLiteral("full,linformer"),
                             QStringLiteral("--causal"), QStringLiteral("-o"), flops});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    const QString csv = QString::fromUtf8(readAll(flops));
    EXPECT_TRUE(csv.contains(QStringLiteral("core_at_n,full,")));
    EXPECT_FALSE(csv.contains(QStringLiteral("linformer")));

    const QString svg = path(QStringLiteral("timing.svg"));
    result = run({QStringLiteral("figure"), QStringLiteral("timing"), QStringLiteral("--compare"), QStringLiteral("full,linformer"),
                  QStringLiteral("--causal"), QStringLiteral("--timing-max-n"), QStringLiteral("128"), QStringLiteral("-o"), svg});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    EXPECT_TRUE(QString::fromUtf8(readAll(svg)).contains(QStringLiteral("bidirectional only")));
}

} // namespace
} // namespace attnlab
