// The pattern composer as a user drives it in the main window: typing is checked on every edit, a bad
// expression is shown inline with the name at fault marked while the last good pattern stays on screen,
// building blocks insert primitives, "Edit as expression" turns a built-in into the same custom
// pattern, and sessions keep the expression.
#include "main_window_fixture.h"

#include "views/shell/expression_composer.h"

#include <QFontMetricsF>
#include <QImage>
#include <QPushButton>
#include <QToolButton>

namespace attnlab::mainwindowtest {
namespace {

ExpressionComposer* composerOf(const MainWindow& window) {
    return qobject_cast<ExpressionComposer*>(window.parameterPanel()->parameterEditor(QStringLiteral("expr")));
}

// Types `text` over the whole field, key by key, as a user retyping the expression.
void replaceText(QLineEdit* edit, const QString& text) {
    edit->setFocus();
    edit->selectAll();
    QTest::keyClicks(edit, text);
}

std::string shownExpression(const MainWindow& window) { return window.labSettings().params.count("expr") ? window.labSettings().params.at("expr") : ""; }

// The nnz of the pattern the view shows in panel 0, through its statistics.
std::int64_t shownNnz(MainWindow& window) {
    EXPECT_TRUE(window.waitUntilIdle(kIdleTimeoutMs));
    auto* view = qobject_cast<PatternView*>(window.currentView());
    EXPECT_NE(view, nullptr);
    return view ? view->nnzOf(0) : -1;
}

std::int64_t referenceNnz(const std::string& expression, std::int64_t n, bool causal) {
    const VariantInfo& variant = requireVariant("custom");
    LabSettings settings;
    settings.n = n;
    settings.causal = causal;
    const ProblemShape shape = problemShape(settings, variant);
    return buildPattern(variant, shape, prepareParams(variant, shape, {{"expr", expression}}))->nnz();
}

class ComposerTest : public MainWindowTest {
protected:
    std::unique_ptr<MainWindow> openCustom() {
        auto window = openWindow();
        LabSettings settings;
        settings.variant = "custom";
        settings.n = 64;
        window->applySettings(settings);
        EXPECT_TRUE(window->waitUntilIdle(kIdleTimeoutMs));
        return window;
    }
};

TEST_F(ComposerTest, EveryValidEditIsAppliedAsTyped) {
    const auto window = openCustom();
    ExpressionComposer* composer = composerOf(*window);
    ASSERT_NE(composer, nullptr);
    QLineEdit* edit = composer->editor();
    replaceText(edit, QStringLiteral("band(2)"));
    EXPECT_EQ(shownExpression(*window), "band(2)");
    EXPECT_TRUE(composer->errorText().isEmpty());
    QTest::keyClicks(edit, QStringLiteral(" | sink(3)"));
    EXPECT_EQ(shownExpression(*window), "band(2) | sink(3)");
    EXPECT_EQ(shownNnz(*window), referenceNnz("band(2) | sink(3)", 64, false));
}

TEST_F(ComposerTest, BadExpressionIsMarkedInlineAndTheLastGoodPatternStays) {
    const auto window = openCustom();
    ExpressionComposer* composer = composerOf(*window);
    ASSERT_NE(composer, nullptr);
    QLineEdit* edit = composer->editor();
    replaceText(edit, QStringLiteral("band(4) & blok(8)"));
    // From "band(4) &" on the text is wrong; the last good text was "band(4) " (spaces are allowed).
    EXPECT_EQ(shownExpression(*window), "band(4) ");
    const QString error = composer->errorText();
    EXPECT_TRUE(error.contains(QStringLiteral("unknown")) && error.contains(QStringLiteral("position 11")))
        << error.toStdString();
    // The marker line puts its caret under character 11, the 'b' of "blok".
    const QStringList marker = composer->markerText().split('\n');
    ASSERT_EQ(marker.size(), 2);
    EXPECT_EQ(marker[0], QStringLiteral("band(4) & blok(8)"));
    EXPECT_EQ(marker[1].indexOf('^'), 10);
    EXPECT_EQ(shownNnz(*window), referenceNnz("band(4) ", 64, false)) << "the last good pattern is kept";
    auto* view = qobject_cast<PatternView*>(window->currentView());
    ASSERT_NE(view, nullptr);
    EXPECT_TRUE(view->errorText().isEmpty());
    // For the documentation: the window as it looks now, when a folder is named.
    if (const char* folder = std::getenv("ATTNLAB_TEST_SCREENSHOTS"))
        window->grab().save(QString::fromLocal8Bit(folder) + QStringLiteral("/composer_error.png"));
    // Fixing the name applies the expression and clears the message.
    edit->setCursorPosition(13);
    QTest::keyClicks(edit, QStringLiteral("c"));
    EXPECT_EQ(composer->expression(), QStringLiteral("band(4) & block(8)"));
    EXPECT_EQ(shownExpression(*window), "band(4) & block(8)");
    EXPECT_TRUE(composer->errorText().isEmpty());
    EXPECT_EQ(shownNnz(*window), referenceNnz("band(4) & block(8)", 64, false));
}

// A mistake's message says what the figures show meanwhile: the expression still in effect, named, or
// nothing when no expression given to the composer has parsed.
TEST_F(ComposerTest, AMistakeSaysWhatTheFiguresShowMeanwhile) {
    const auto window = openCustom();
    ExpressionComposer* composer = composerOf(*window);
    ASSERT_NE(composer, nullptr);
    QLineEdit* edit = composer->editor();
    replaceText(edit, QStringLiteral("band(4) | sink(2) & blok(8)"));
    const QString kept = composer->errorText();
    EXPECT_TRUE(kept.contains(QStringLiteral("band(4) | sink(2) ")) && kept.contains(QStringLiteral("not applied"))) << kept.toStdString();
    EXPECT_EQ(shownExpression(*window), "band(4) | sink(2) ");

    // An expression that parses but cannot be drawn (a grid primitive without a grid) shows nothing either.
    LabSettings gridless = window->labSettings();
    gridless.params = {{"expr", "neighborhood(3)"}};
    window->applySettings(gridless);
    composer = composerOf(*window);
    ASSERT_NE(composer, nullptr);
    composer->editor()->setFocus();
    composer->editor()->end(false);
    QTest::keyClicks(composer->editor(), QStringLiteral(" |"));
    EXPECT_TRUE(composer->errorText().contains(QStringLiteral("nothing is drawn"))) << composer->errorText().toStdString();

    ExpressionComposer alone;
    alone.show();
    alone.setExpression(QStringLiteral("band(4) & blok(8)"));
    const QString nothing = alone.errorText();
    EXPECT_TRUE(nothing.contains(QStringLiteral("nothing is drawn"))) << nothing.toStdString();
    EXPECT_FALSE(nothing.contains(QStringLiteral("last valid"))) << nothing.toStdString();
}

// The marker's carets and the wavy underline cover the whole name at fault, not its first letter: the
// red pixels inside the field (its 2-pixel border aside) span about the width of "blok".
TEST_F(ComposerTest, TheUnderlineCoversTheWholeNameAtFault) {
    const auto window = openCustom();
    ExpressionComposer* composer = composerOf(*window);
    ASSERT_NE(composer, nullptr);
    QLineEdit* edit = composer->editor();
    replaceText(edit, QStringLiteral("band(4) & blok(8)"));
    const QStringList marker = composer->markerText().split('\n');
    ASSERT_EQ(marker.size(), 2);
    EXPECT_EQ(marker[1], QString(10, QLatin1Char(' ')) + QStringLiteral("^^^^"));
    const QImage image = edit->grab().toImage();
    int left = image.width(), right = -1;
    for (int x = 3; x < image.width() - 3; ++x)
        for (int y = 3; y < image.height() - 3; ++y) {
            const QColor c = image.pixelColor(x, y);
            if (c.red() > 120 && c.red() - c.green() > 70 && c.red() - c.blue() > 60) {
                left = std::min(left, x);
                right = std::max(right, x);
            }
        }
    ASSERT_GE(right, left) << "no underline drawn";
    const double word = QFontMetricsF(edit->font()).horizontalAdvance(QStringLiteral("blok"));
    EXPECT_GE(right - left + 1, 0.75 * word) << "the underline spans " << right - left + 1 << " px of the " << word << " px of 'blok'";
    EXPECT_LE(right - left + 1, 1.25 * word + 4);
}

TEST_F(ComposerTest, BuildingBlocksInsertPrimitivesJoinedByUnion) {
    const auto window = openCustom();
    ExpressionComposer* composer = composerOf(*window);
    ASSERT_NE(composer, nullptr);
    composer->editor()->clear();
    for (const char* block : {"block_band(8)", "block_global(0)", "block_&", "block_causal"}) {
        auto* button = composer->findChild<QToolButton*>(QString::fromLatin1(block));
        ASSERT_NE(button, nullptr) << block;
        QTest::mouseClick(button, Qt::LeftButton);
    }
    EXPECT_EQ(composer->expression(), QStringLiteral("band(8) | global(0) & causal"));
    EXPECT_EQ(shownExpression(*window), "band(8) | global(0) & causal");
    for (const QString& block : ExpressionComposer::buildingBlocks())
        EXPECT_TRUE(checkExpression(block).ok() || block.size() == 1) << block.toStdString();
}

TEST_F(ComposerTest, EditAsExpressionKeepsTheBuiltInPattern) {
    auto window = openWindow();
    for (const char* id : {"strided", "fixed", "longformer", "xl"}) {
        SCOPED_TRACE(id);
        LabSettings settings;
        settings.variant = id;
        settings.n = 96;
        settings.causal = std::string(id) == "xl";
        window->applySettings(settings);
        const std::int64_t before = shownNnz(*window);
        QPushButton* button = window->parameterPanel()->editAsExpressionButton();
        ASSERT_TRUE(button->isVisible());
        QTest::mouseClick(button, Qt::LeftButton);
        EXPECT_EQ(window->labSettings().variant, "custom");
        const VariantInfo& variant = requireVariant(id);
        PatternRequest request;
        request.shape = problemShape(settings, variant);
        const ParamSet params = prepareParams(variant, request.shape, {});
        request.params = &params;
        EXPECT_EQ(shownExpression(*window), variant.printExpr(request));
        EXPECT_EQ(shownNnz(*window), before);
        ASSERT_NE(composerOf(*window), nullptr);
        EXPECT_EQ(composerOf(*window)->expression().toStdString(), variant.printExpr(request));
    }
    LabSettings bigbird;
    bigbird.variant = "bigbird";
    window->applySettings(bigbird);
    EXPECT_FALSE(window->parameterPanel()->editAsExpressionButton()->isVisible()) << "bigbird prints no expression";
}

TEST_F(ComposerTest, SessionsKeepTheExpressionAndTheComponentDisplay) {
    LabSettings settings;
    settings.variant = "custom";
    settings.params = {{"expr", "(band(8) | sink(4)) & !diag | docs(10, 20)"}};
    settings.showComponents = true;
    settings.splitComponents = true;
    const QString file = path(QStringLiteral("expression.json"));
    saveSession(file, Session{settings, QStringLiteral("pattern")});
    EXPECT_EQ(loadSession(file).settings, settings);
}

} // namespace
} // namespace attnlab::mainwindowtest
