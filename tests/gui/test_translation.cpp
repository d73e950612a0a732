// The Chinese UI: with zh_CN installed, no visible string of the main window (widgets, menus, actions,
// tooltips, combo items) nor of any figure's painted text is left in English. Allowed: identifiers
// (variant ids, parameter keys and choices), proper names, units and formulas. A failure lists every
// untranslated string; `cmake --build build/dev --target update_translations` adds new strings to
// assets/translations/attnlab_zh_CN.ts for translation.
#include "text_recorder.h"

#include "views/i18n/language.h"
#include "views/shell/main_window.h"
#include "views/shell/parameter_panel.h"

#include "core/analysis/inference.h"
#include "core/analysis/panel_spec.h"
#include "core/kernels/gemm.h"
#include "core/analysis/timing_sweep.h"
#include "core/registry.h"

#include "gui_test_main.h"

#include <gtest/gtest.h>

#include <QAbstractButton>
#include <QApplication>
#include <QComboBox>
#include <QDockWidget>
#include <QGroupBox>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QProgressBar>
#include <QRegularExpression>
#include <QSettings>
#include <QStandardPaths>
#include <QTabWidget>
#include <QTemporaryDir>
#include <QTest>
#include <QToolBar>

#include <map>
#include <set>
#include <string>

namespace attnlab {
namespace {

constexpr int kIdleTimeoutMs = 120000;

// Words that stay as they are in Chinese: identifiers the command line and sessions use, proper names,
// units and symbols of formulas.
const std::set<QString>& allowedWords() {
    static const std::set<QString> words = [] {
        std::set<QString> allowed = {
            // proper names and products
            "AttnLab", "attnlab", "Longformer", "BigBird", "Performer", "Linformer", "Reformer", "Transformer", "XL",
            "Sparse", "FLASH", "Quad", "GAU", "LSH", "FAVOR", "Dear", "ImGui", "Qt", "OpenGL", "NumPy", "NPY", "CSV", "PNG",
            "SVG", "PDF", "JSON", "BERT", "base", "GPT", "small", "LLaMA", "Okabe", "Ito", "Shen", "Beltagy", "Dai", "Zaheer", "et", "al", "Frobenius",
            "BertViz", "Gaussian", "Child", "English", "offscreen", "npy", "vs", "CPU", "float32", "Mistral", "StreamingLLM", "STREAM",
            "NATTEN", "Swin", "Hassani", "Hua", "Xiao", "Devlin", "Liu", "Zhang", "Ho", "OpenBLAS", "Eigen", "Roofline",
            // token orders as `--order` and the Order field take them
            "raster", "tiles", "morton",
            // primitives of the mask expression language (the composer's buttons insert them as typed)
            "all", "causal", "diag",
            // quantities, units and formula symbols
            "FFN", "QKV", "MAC", "MACs", "FLOP", "FLOPs", "GFLOP", "GEMM", "nnz", "softmax", "relu", "elu", "cos", "exp",
            "log", "max", "min", "viridis", "hd", "dv", "QK", "EK", "FV", "q_i", "k_j", "out_full", "W_full", "logits", "KV", "FMA", "GB", "flop", "byte", "bytes_min", "h_kv", "d_v", "µs", "ms", "KiB", "MiB", "GiB", "out", "full", "hops", "id",
            // number formats and the STREAM benchmark's loop
            "float16", "bfloat16", "f16", "bf16", "f32", "triad",
            "Ctrl", "Shift", "Alt", "Esc", "Del", "PgUp", "PgDown", "Home", "End", "Tab", "F1", "F5", "Enter", "Return",
            "Backspace", "Space", "Ins", "Up", "Down", "Left", "Right",
        };
        allowed.insert(QLatin1String(kPanelTitleKey)); // a compare panel's key beside the parameters'
        allowed.insert(QString::fromStdString(openBlasCoreName())); // the kernel set OpenBLAS names (Haswell, ...)
        for (const auto& variant : allVariants()) {
            allowed.insert(QString::fromStdString(variant.id));
            for (const auto& spec : variant.params) {
                allowed.insert(QString::fromStdString(spec.key));
                for (const auto& choice : spec.choices) allowed.insert(QString::fromStdString(choice));
            }
        }
        return allowed;
    }();
    return words;
}

// The English words of `text`: runs of two or more Latin letters (with digits and underscores, as in
// shared_qk or float32) not allowed above and not a function name in a formula (ceil(n), band(8)); one
// letter is a symbol: n, d, h, Q, K, V, W, M, i, j, ….
QStringList englishWords(const QString& text) {
    static const QRegularExpression word(QStringLiteral("[A-Za-z][A-Za-z0-9_]*\\b(?!\\()"));
    static const QRegularExpression letter(QStringLiteral("[A-Za-z]"));
    // Hyphenated proper names and the repository's document paths (docs/inference.md) are names as a whole.
    static const QRegularExpression names(QStringLiteral("\\bPrefix-LM\\b|\\bSTREAM-triad\\b|\\bdocs/[a-z_]+\\.md\\b"));
    // A word cut by eliding (shared_qk=fals…) is part of an allowed identifier or of a word judged in
    // the full text elsewhere: the cut piece is left out.
    static const QRegularExpression elided(QStringLiteral("[A-Za-z0-9_]+…$"));
    QStringList found;
    for (auto match = word.globalMatch(QString(text).remove(names).remove(elided)); match.hasNext();) {
        const QString candidate = match.next().captured();
        if (candidate.count(letter) < 2) continue;
        if (!allowedWords().count(candidate) && !allowedWords().count(candidate.toLower())) found << candidate;
    }
    return found;
}

// Collects the visible strings that still hold English, once each, with where they were found.
class EnglishFinder {
public:
    void check(const QString& where, const QString& text) {
        if (text.isEmpty() || englishWords(text).isEmpty()) return;
        m_found.insert(QStringLiteral("%1: \"%2\"").arg(where, text));
    }
    void checkWidget(const QWidget* widget) {
        const QString name = QString::fromLatin1(widget->metaObject()->className());
        check(name + QStringLiteral(" tooltip"), widget->toolTip());
        if (const auto* label = qobject_cast<const QLabel*>(widget)) check(name, label->text());
        if (const auto* button = qobject_cast<const QAbstractButton*>(widget)) check(name, button->text());
        if (const auto* group = qobject_cast<const QGroupBox*>(widget)) check(name, group->title());
        if (const auto* edit = qobject_cast<const QLineEdit*>(widget)) check(name + QStringLiteral(" placeholder"), edit->placeholderText());
        if (const auto* dock = qobject_cast<const QDockWidget*>(widget)) check(name, dock->windowTitle());
        if (const auto* bar = qobject_cast<const QToolBar*>(widget)) check(name, bar->windowTitle());
        if (const auto* progress = qobject_cast<const QProgressBar*>(widget)) check(name, progress->format());
        if (const auto* combo = qobject_cast<const QComboBox*>(widget))
            for (int k = 0; k < combo->count(); ++k) {
                check(name, combo->itemText(k));
                check(name + QStringLiteral(" item tooltip"), combo->itemData(k, Qt::ToolTipRole).toString());
            }
        if (const auto* tabs = qobject_cast<const QTabWidget*>(widget))
            for (int k = 0; k < tabs->count(); ++k) check(name, tabs->tabText(k));
    }
    void checkMenu(const QMenu* menu) {
        check(QStringLiteral("menu"), menu->title());
        for (const QAction* action : menu->actions()) {
            check(QStringLiteral("action"), action->text());
            check(QStringLiteral("action tooltip"), action->toolTip() == QString(action->text()).remove('&') ? QString() : action->toolTip());
            if (action->menu()) checkMenu(action->menu());
        }
    }
    std::string report() const {
        std::string lines;
        for (const QString& line : m_found) lines += "  " + line.toStdString() + "\n";
        return lines;
    }
    bool empty() const { return m_found.empty(); }

private:
    std::set<QString> m_found;
};

TEST(Translation, TheChineseTranslationIsInstalled) {
    EXPECT_EQ(currentLanguage(), QStringLiteral("zh_CN"));
    EXPECT_EQ(matchUiLanguage(QStringLiteral("zh_CN.UTF-8")), QStringLiteral("zh_CN"));
    EXPECT_EQ(matchUiLanguage(QStringLiteral("en_GB")), QStringLiteral("en"));
    EXPECT_TRUE(matchUiLanguage(QStringLiteral("fr_FR")).isEmpty());
    EXPECT_TRUE(matchUiLanguage(QStringLiteral("de")).isEmpty());
    for (const char* traditional : {"zh_TW", "zh_HK.UTF-8", "zh-Hant", "zh_MO"})
        EXPECT_TRUE(matchUiLanguage(QString::fromLatin1(traditional)).isEmpty()) << traditional << " is not Simplified Chinese";
    EXPECT_EQ(matchUiLanguage(QStringLiteral("C")), QStringLiteral("en")) << "the untranslated texts";
    EXPECT_EQ(startupLanguage(QStringLiteral("zh"), true), QStringLiteral("zh_CN"));
}

// The registry's texts, grouped by the variant that shows them: a failure names, for each variant, exactly
// the strings assets/translations/attnlab_zh_CN.ts must translate (context CoreText).
TEST(Translation, EveryCoreTextHasAChineseTranslation) {
    std::map<std::string, std::set<std::string>> missing; // by variant id; "" for texts of no variant
    const auto need = [&missing](const std::string& owner, const std::string& text) {
        if (!englishWords(coreText(text)).isEmpty()) missing[owner].insert(text);
    };
    for (const auto& variant : allVariants()) {
        for (const std::string* text : {&variant.displayName, &variant.family, &variant.summary}) need(variant.id, *text);
        for (const auto& spec : variant.params)
            for (const std::string* text : {&spec.description, &spec.defaultText, &spec.rangeText}) need(variant.id, *text);
        for (const auto& sweep : variant.accuracySweeps)
            for (const std::string* text : {&sweep.label, &sweep.axis, &sweep.note}) need(variant.id, *text);
        for (const std::string& name : variant.componentNames) need(variant.id, name);
    }
    for (const auto& part : kLayerParts) need("", part.label);
    for (const auto& choice : inferenceChoices(LabSettings{})) need("", choice.label);
    std::string report;
    for (const auto& [owner, texts] : missing) {
        report += owner.empty() ? "other core texts:\n" : "variant '" + owner + "':\n";
        for (const std::string& text : texts) report += "  \"" + text + "\"\n";
    }
    EXPECT_TRUE(missing.empty())
        << "assets/translations/attnlab_zh_CN.ts has no Chinese for these core texts (context CoreText). Run "
           "`cmake --build build/dev --target update_translations`, which adds them marked unfinished, then translate "
           "each one:\n"
        << report;
}

class ChineseWindow : public ::testing::Test {
protected:
    void SetUp() override { QSettings().clear(); }
};

TEST_F(ChineseWindow, NoWidgetMenuOrActionIsLeftInEnglish) {
    MainWindow window(false);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    EnglishFinder finder;
    finder.check(QStringLiteral("window title"), window.windowTitle());
    for (const QWidget* widget : window.findChildren<QWidget*>()) finder.checkWidget(widget);
    for (const QAction* action : window.menuBar()->actions())
        if (action->menu()) finder.checkMenu(action->menu());
    // Every variant's parameter editors (names are keys; tooltips and notes are text).
    for (const auto& variant : allVariants()) {
        LabSettings settings = window.labSettings();
        settings.variant = variant.id;
        settings.params.clear();
        window.applySettings(settings);
        for (const QWidget* widget : window.parameterPanel()->findChildren<QWidget*>()) finder.checkWidget(widget);
    }
    EXPECT_TRUE(finder.empty()) << "visible strings left in English:\n" << finder.report();
}

// The problem's grid as the figures name it (titles, captions, the grid view's hover): in Chinese too.
TEST(Translation, AGridIsNamedInChinese) {
    LabSettings settings;
    settings.grid = "128,128";
    settings.n = 16384;
    EXPECT_EQ(FigureView::gridText(settings), QStringLiteral("128×128 图像，光栅顺序"));
    settings.grid = "8,16,16";
    settings.order = "tiles:2,4,4";
    settings.n = 2048;
    EXPECT_EQ(FigureView::gridText(settings), QStringLiteral("8×16×16 视频，分片 2×4×4 顺序"));
    settings.order = "morton";
    EnglishFinder finder;
    finder.check(QStringLiteral("grid"), FigureView::gridText(settings));
    finder.check(QStringLiteral("caption"), FigureView::settingsCaption(settings));
    EXPECT_TRUE(finder.empty()) << finder.report();
}

TEST_F(ChineseWindow, EveryFigurePaintsChineseText) {
    MainWindow window(false);
    window.resize(1280, 820);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    LabSettings settings = window.labSettings();
    settings.timingMaxN = 256; // a short sweep: the text is the same at every length
    EnglishFinder finder;
    // Each view single and compared, mask and weights, so every painted entry point is reached.
    for (const bool compare : {false, true}) {
        settings.compareVariants = compare ? std::vector<std::string>{"longformer", "bigbird"} : std::vector<std::string>{};
        settings.compareParams.clear();
        settings.variant = "longformer";
        settings.showWeights = compare;
        window.applySettings(settings);
        for (FigureView* view : window.views()) {
            window.selectView(view->viewName());
            ASSERT_TRUE(window.waitUntilIdle(kIdleTimeoutMs)) << view->viewName().toStdString();
            for (const auto& painted : testing::paintedTexts(*view, view->size())) {
                finder.check(view->viewName(), painted.text);
                // "%1 vs %2" once read "误差 随 随机特征数 m 变化"
                EXPECT_FALSE(painted.text.contains(QStringLiteral("随 随"))) << painted.text.toStdString();
            }
            finder.check(view->viewName() + QStringLiteral(" title"), view->title());
        }
    }
    settings.timingMode = TimingMode::Layer;
    window.applySettings(settings);
    window.selectView(QStringLiteral("timing"));
    ASSERT_TRUE(window.waitUntilIdle(kIdleTimeoutMs));
    for (const auto& painted : testing::paintedTexts(*window.view(QStringLiteral("timing")), QSize(900, 600)))
        finder.check(QStringLiteral("timing (layer)"), painted.text);
    // FLASH's GAU layer in the FLOP view, and the component legends of a factorised pattern.
    settings.compareVariants.clear();
    settings.variant = "mixed_chunk";
    window.applySettings(settings);
    window.selectView(QStringLiteral("flops"));
    ASSERT_TRUE(window.waitUntilIdle(kIdleTimeoutMs));
    for (const auto& painted : testing::paintedTexts(*window.view(QStringLiteral("flops")), QSize(900, 600)))
        finder.check(QStringLiteral("flops (GAU layer)"), painted.text);
    for (const char* variant : {"strided", "fixed", "bigbird"}) {
        settings.variant = variant;
        settings.showComponents = true;
        window.applySettings(settings);
        window.selectView(QStringLiteral("pattern"));
        ASSERT_TRUE(window.waitUntilIdle(kIdleTimeoutMs));
        for (const auto& painted : testing::paintedTexts(*window.view(QStringLiteral("pattern")), QSize(900, 600)))
            finder.check(QStringLiteral("pattern (components of %1)").arg(QString::fromLatin1(variant)), painted.text);
    }
    EXPECT_TRUE(finder.empty()) << "painted strings left in English:\n" << finder.report();
}

} // namespace
} // namespace attnlab

int main(int argc, char** argv) {
    return attnlab::guitest::runGuiTests(argc, argv, "test_translation", [] {
        if (attnlab::installLanguage(QStringLiteral("zh_CN"))) return true;
        std::fprintf(stderr, "the zh_CN translation is not embedded (:/i18n/attnlab_zh_CN.qm)\n");
        return false;
    });
}
