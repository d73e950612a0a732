// The window's manners: the wheel changes a field only when it has focus, every busy state names its
// task, the Help menu (essentials, shortcuts, About) and the Language menu.
#include "views/figures/flops_view.h"
#include "views/i18n/language.h"
#include "views/jobs/job_board.h"
#include "views/shell/main_window.h"
#include "views/shell/parameter_panel.h"
#include "views/shell/session_file.h"
#include "views/shell/wheel_guard.h"

#include "core/analysis/settings_check.h"


#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QComboBox>
#include <QDialog>
#include <QLabel>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QRegularExpression>
#include <QSettings>
#include <QSpinBox>
#include <QStatusBar>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>
#include <QTextBrowser>
#include <QWheelEvent>

namespace attnlab {
namespace {

constexpr int kIdleTimeoutMs = 120000;

// One notch of the wheel over the middle of `widget`, delivered as Qt delivers it (through the
// application's event filters). Up: +120.
void wheel(QWidget* widget, int notches) {
    const QPointF centre(widget->width() / 2.0, widget->height() / 2.0);
    QWheelEvent event(centre, widget->mapToGlobal(centre), QPoint(), QPoint(0, 120 * notches), Qt::NoButton, Qt::NoModifier,
                      Qt::NoScrollPhase, false);
    QApplication::sendEvent(widget, &event);
}

class Polish : public ::testing::Test {
protected:
    void SetUp() override {
        QSettings().clear();
        window = std::make_unique<MainWindow>(false);
        window->show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(window.get()));
        window->activateWindow();
        ASSERT_TRUE(QTest::qWaitForWindowActive(window.get()));
    }

    QMenu* menu(const char* objectName) const { return window->menuBar()->findChild<QMenu*>(QString::fromLatin1(objectName)); }

    std::unique_ptr<MainWindow> window;
};

TEST_F(Polish, TheWheelChangesASpinBoxOnlyWhenItHasFocus) {
    QSpinBox* length = window->parameterPanel()->lengthEditor();
    ASSERT_TRUE(wheelGuarded(length));
    window->setFocus();
    const int before = length->value();
    wheel(length, 1);
    EXPECT_EQ(length->value(), before) << "an unfocused spin box took the wheel";
    EXPECT_EQ(window->labSettings().n, before);
    length->setFocus();
    ASSERT_TRUE(length->hasFocus());
    wheel(length, 1);
    EXPECT_EQ(length->value(), before + 1) << "a focused spin box ignores the wheel";
    EXPECT_EQ(window->labSettings().n, before + 1);
}

TEST_F(Polish, TheWheelChangesAComboBoxOnlyWhenItHasFocus) {
    QComboBox* variant = window->parameterPanel()->variantChooser();
    window->setFocus();
    const std::string before = window->labSettings().variant;
    const int index = variant->currentIndex();
    wheel(variant, -1);
    EXPECT_EQ(variant->currentIndex(), index);
    EXPECT_EQ(window->labSettings().variant, before);
    variant->setFocus();
    wheel(variant, -1);
    EXPECT_NE(variant->currentIndex(), index) << "a focused combo box ignores the wheel";
}

TEST_F(Polish, EveryBusyViewNamesItsTaskInTheStatusBar) {
    const QLabel* working = window->findChild<QLabel*>(QStringLiteral("jobsRunning"));
    ASSERT_NE(working, nullptr);
    LabSettings settings = window->labSettings();
    settings.timingMaxN = 256;
    for (FigureView* view : window->views()) {
        settings.inputSeed += 1; // new inputs: every view has work to do
        window->applySettings(settings);
        window->selectView(view->viewName());
        if (view->busy()) {
            EXPECT_FALSE(JobBoard::instance().runningText().isEmpty()) << view->viewName().toStdString();
            EXPECT_FALSE(working->text().isEmpty()) << view->viewName().toStdString() << " is busy with no task named";
        }
        ASSERT_TRUE(window->waitUntilIdle(kIdleTimeoutMs));
        EXPECT_TRUE(working->text().isEmpty()) << working->text().toStdString();
    }
}

TEST_F(Polish, HelpMenuShowsTheEssentialsTheShortcutsAndTheVersion) {
    QMenu* help = menu("helpMenu");
    ASSERT_NE(help, nullptr);
    const QList<QAction*> actions = help->actions();
    const auto trigger = [&](int index, const char* dialogName) -> QWidget* {
        actions[index]->trigger();
        return window->findChild<QWidget*>(QString::fromLatin1(dialogName));
    };
    ASSERT_GE(actions.size(), 4);
    EXPECT_EQ(actions[0]->shortcut(), QKeySequence(QKeySequence::HelpContents));
    QWidget* guide = trigger(0, "helpDialog");
    ASSERT_NE(guide, nullptr);
    const QString guideText = guide->findChild<QTextBrowser*>()->toPlainText();
    for (const char* topic : {"Parameter panel", "Pattern", "Receptive field", "Timing", "Export", "attnlab --help"})
        EXPECT_TRUE(guideText.contains(QString::fromLatin1(topic))) << topic;
    QWidget* keys = trigger(1, "shortcutsDialog");
    ASSERT_NE(keys, nullptr);
    const QString keysText = keys->findChild<QTextBrowser*>()->toPlainText();
    // Every menu action with a shortcut is listed with it.
    for (const QAction* menuAction : window->menuBar()->actions()) {
        for (const QAction* action : menuAction->menu()->findChildren<QAction*>()) {
            if (action->shortcut().isEmpty()) continue;
            EXPECT_TRUE(keysText.contains(action->shortcut().toString(QKeySequence::NativeText))) << action->text().toStdString();
        }
    }
    QWidget* about = trigger(3, "aboutDialog");
    ASSERT_NE(about, nullptr);
    EXPECT_TRUE(QRegularExpression(QStringLiteral("AttnLab \\d+\\.\\d+\\.\\d+")).match(qobject_cast<QMessageBox*>(about)->text()).hasMatch());
}

TEST_F(Polish, TheLanguageMenuStoresTheChoiceAndSaysItAppliesAfterARestart) {
    QMenu* languages = window->findChild<QMenu*>(QStringLiteral("languageMenu"));
    ASSERT_NE(languages, nullptr);
    QAction* chinese = languages->findChild<QAction*>(QStringLiteral("language_zh_CN"));
    QAction* english = languages->findChild<QAction*>(QStringLiteral("language_en"));
    ASSERT_NE(chinese, nullptr);
    ASSERT_NE(english, nullptr);
    EXPECT_EQ(chinese->text(), QStringLiteral("简体中文"));
    EXPECT_TRUE(english->isChecked());
    chinese->trigger();
    EXPECT_EQ(storedLanguage(), QStringLiteral("zh_CN"));
    EXPECT_EQ(startupLanguage(QString(), true), QStringLiteral("zh_CN"));
    EXPECT_EQ(startupLanguage(QStringLiteral("en"), true), QStringLiteral("en")) << "--lang wins over the stored choice";
    EXPECT_NE(window->findChild<QMessageBox*>(QStringLiteral("languageRestart")), nullptr);
    EXPECT_EQ(currentLanguage(), QStringLiteral("en")) << "the running window keeps its language";
}

// The pattern view's queries m: a control of the Display group, at most n (a shorter n takes it down),
// kept in sessions.
TEST_F(Polish, TheQueriesControlSetsTheLastRowsAndSessionsKeepIt) {
    auto* queries = window->parameterPanel()->findChild<QSpinBox*>(QStringLiteral("queries"));
    ASSERT_NE(queries, nullptr);
    EXPECT_EQ(queries->value(), 0);
    EXPECT_EQ(queries->maximum(), window->labSettings().n);
    queries->setValue(16);
    EXPECT_EQ(window->labSettings().queries, 16);
    const LabSettings restored = settingsFromJson(settingsToJson(window->labSettings()));
    EXPECT_EQ(restored.queries, 16);
    window->parameterPanel()->lengthEditor()->setValue(10);
    EXPECT_EQ(window->labSettings().n, 10);
    EXPECT_EQ(window->labSettings().queries, 10);
    EXPECT_EQ(queries->value(), 10);
    EXPECT_EQ(queries->maximum(), 10);
}

// A problem with the settings is said once, whole, in the status bar's note: not also as a message cut off
// where the note begins (a custom pattern's grid primitive without a grid, "custom parameter 'expr': …").
TEST_F(Polish, ASettingsProblemIsSaidOnceAndWholeInTheStatusBar) {
    LabSettings settings;
    settings.variant = "custom";
    settings.params = {{"expr", "neighborhood(3)"}};
    window->applySettings(settings);
    ASSERT_TRUE(window->waitUntilIdle(kIdleTimeoutMs));
    const QString problem = QString::fromStdString(settingsProblem(settings));
    ASSERT_TRUE(problem.startsWith(QStringLiteral("custom"))) << problem.toStdString();
    EXPECT_NE(window->statusBar()->currentMessage(), problem) << "said twice";
    const QLabel* note = nullptr;
    for (const QLabel* label : window->statusBar()->findChildren<QLabel*>())
        if (label->isVisible() && label->text() == problem) note = label;
    ASSERT_NE(note, nullptr) << "the note is not shown";
    EXPECT_GE(note->contentsRect().width(), QFontMetrics(note->font()).horizontalAdvance(problem)) << "the note is cut";
    if (const QString message = window->statusBar()->currentMessage(); !message.isEmpty()) {
        EXPECT_LE(QFontMetrics(window->statusBar()->font()).horizontalAdvance(message), note->x()) << message.toStdString();
    }
}

// The FLOP view's layer for relu2 and mixed_chunk: FLASH's GAU layer by default, the standard layer with its
// FFN once the Display group's "FLOP layer" says so (as a user picks it, from the keyboard), kept in
// sessions; a variant without a GAU layer leaves the choice disabled.
TEST_F(Polish, TheFlopLayerChoiceCostsFlashVariantsInTheStandardLayer) {
    LabSettings settings;
    settings.variant = "relu2";
    settings.n = 512;
    settings.heads = 12;
    window->applySettings(settings);
    ASSERT_TRUE(window->selectView(QStringLiteral("flops")));
    ASSERT_TRUE(window->waitUntilIdle(kIdleTimeoutMs));
    auto* view = qobject_cast<FlopsView*>(window->view(QStringLiteral("flops")));
    ASSERT_NE(view, nullptr);
    auto layerAt512 = [view]() -> std::optional<LayerCost> {
        for (const auto& point : view->sweep())
            if (point.n == 512) return point.cost;
        return std::nullopt;
    };
    auto* layer = window->parameterPanel()->findChild<QComboBox*>(QStringLiteral("flopLayer"));
    ASSERT_NE(layer, nullptr);
    EXPECT_TRUE(layer->isEnabled());
    EXPECT_EQ(layer->currentIndex(), 0);
    ASSERT_TRUE(layerAt512().has_value());
    EXPECT_EQ(layerAt512()->layer, LayerKind::Gau);
    EXPECT_TRUE(view->title().contains(QStringLiteral("GAU layer")));

    layer->setFocus();
    QTest::keyClick(layer, Qt::Key_Down);
    EXPECT_TRUE(window->labSettings().flopsStandardLayer);
    ASSERT_TRUE(window->waitUntilIdle(kIdleTimeoutMs));
    ASSERT_TRUE(layerAt512().has_value());
    EXPECT_EQ(layerAt512()->layer, LayerKind::Standard);
    EXPECT_EQ(layerAt512()->terms.count("ffn"), 1u);
    // The FFN 4hd of hd = 768 at n = 512: 2 · n · (hd) · 4hd multiply-adds.
    EXPECT_EQ(layerAt512()->terms.at("ffn"), 2.0 * 512 * 768 * 4 * 768);
    EXPECT_FALSE(view->title().contains(QStringLiteral("GAU layer")));
    EXPECT_FALSE(view->csvData().contains(QStringLiteral("gau_comparison")));
    EXPECT_TRUE(settingsFromJson(settingsToJson(window->labSettings())).flopsStandardLayer);

    settings.variant = "full";
    window->applySettings(settings);
    EXPECT_FALSE(layer->isEnabled());
}

} // namespace
} // namespace attnlab
