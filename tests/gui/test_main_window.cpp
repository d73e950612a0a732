// The main window as a user drives it: the registry-built parameter panel (every parameter of every
// variant), edits reaching the views, sessions (round trip, broken files), QSettings persistence across
// windows, compare mode from the panel and the lab tab's note on a platform without OpenGL. The Presets
// menu is tested in test_presets.cpp.
#include "main_window_fixture.h"

#include "views/shell/expression_composer.h"

namespace attnlab::mainwindowtest {
namespace {

TEST_F(MainWindowTest, ParameterPanelShowsEveryParameterOfEveryVariant) {
    const auto window = openWindow();
    ParameterPanel* panel = window->parameterPanel();
    ASSERT_FALSE(allVariants().empty());
    for (const VariantInfo& variant : allVariants()) {
        SCOPED_TRACE(variant.id);
        chooseVariant(panel->variantChooser(), variant.id);
        QCoreApplication::processEvents(); // new editors are shown by a queued call
        ASSERT_EQ(panel->settings().variant, variant.id);
        ASSERT_EQ(window->labSettings().variant, variant.id);
        QStringList schemaKeys;
        for (const ParamSpec& spec : variant.params) schemaKeys << text(spec.key);
        EXPECT_EQ(panel->parameterKeys(), schemaKeys);

        const ProblemShape shape = problemShape(panel->settings(), variant);
        const ParamSet defaults = resolveParams(variant.id, variant.params, {}, shape.context());
        for (const ParamSpec& spec : variant.params) {
            SCOPED_TRACE(spec.key);
            QWidget* editor = panel->parameterEditor(text(spec.key));
            ASSERT_NE(editor, nullptr);
            EXPECT_TRUE(editor->isVisibleTo(window.get()));
            const ParamValue& value = defaults.values().at(spec.key);
            switch (spec.type) {
            case ParamType::Integer: {
                auto* spin = qobject_cast<QSpinBox*>(editor);
                ASSERT_NE(spin, nullptr);
                EXPECT_EQ(spin->value(), std::get<std::int64_t>(value));
                EXPECT_EQ(spin->minimum(), spec.minValue ? *spec.minValue : INT_MIN);
                if (spec.maxValue) {
                    EXPECT_EQ(spin->maximum(), *spec.maxValue);
                }
                break;
            }
            case ParamType::Boolean: {
                auto* check = qobject_cast<QCheckBox*>(editor);
                ASSERT_NE(check, nullptr);
                EXPECT_EQ(check->isChecked(), std::get<bool>(value));
                break;
            }
            case ParamType::Choice: {
                auto* combo = qobject_cast<QComboBox*>(editor);
                ASSERT_NE(combo, nullptr);
                QStringList offered;
                for (int k = 0; k < combo->count(); ++k) offered << combo->itemText(k);
                QStringList choices;
                for (const auto& choice : spec.choices) choices << text(choice);
                EXPECT_EQ(offered, choices);
                EXPECT_EQ(combo->currentText(), text(std::get<std::string>(value)));
                break;
            }
            case ParamType::String: {
                // An expression: the composer, showing the value.
                auto* composer = qobject_cast<ExpressionComposer*>(editor);
                ASSERT_NE(composer, nullptr);
                EXPECT_EQ(composer->expression(), text(std::get<std::string>(value)));
                break;
            }
            case ParamType::IndexList:
                ASSERT_NE(qobject_cast<QLineEdit*>(editor), nullptr);
                break;
            }
            const QString note = panel->parameterNote(text(spec.key));
            EXPECT_TRUE(note.contains(QStringLiteral("default ") + text(spec.defaultText))) << note.toStdString();
            if (!spec.rangeText.empty()) {
                EXPECT_TRUE(note.contains(QStringLiteral("range ") + text(spec.rangeText))) << note.toStdString();
            }
        }
        EXPECT_TRUE(panel->message().isEmpty()) << panel->message().toStdString();
    }
}

TEST_F(MainWindowTest, ParameterEditsReachEveryViewAndInvalidOnesAreExplained) {
    const auto window = openWindow();
    ParameterPanel* panel = window->parameterPanel();
    chooseVariant(panel->variantChooser(), "longformer");
    auto* windowEditor = qobject_cast<QSpinBox*>(panel->parameterEditor(QStringLiteral("window")));
    ASSERT_NE(windowEditor, nullptr);
    windowEditor->setValue(10);
    EXPECT_EQ(window->labSettings().params.at("window"), "10");
    for (const FigureView* view : window->views()) EXPECT_EQ(view->settings(), window->labSettings()) << view->viewName().toStdString();

    panel->lengthEditor()->setValue(300);
    EXPECT_EQ(window->labSettings().n, 300);

    chooseVariant(panel->variantChooser(), "fixed");
    EXPECT_TRUE(window->labSettings().params.empty()) << "overrides of the previous variant were kept";
    qobject_cast<QSpinBox*>(panel->parameterEditor(QStringLiteral("block")))->setValue(4);
    qobject_cast<QSpinBox*>(panel->parameterEditor(QStringLiteral("summary")))->setValue(9);
    EXPECT_EQ(window->labSettings().params.at("summary"), "9");
    EXPECT_TRUE(panel->message().contains(QStringLiteral("summary"))) << panel->message().toStdString();
    EXPECT_FALSE(panel->message().contains('\n'));
    ASSERT_TRUE(window->waitUntilIdle(kIdleTimeoutMs));
    auto* pattern = qobject_cast<PatternView*>(window->view(QStringLiteral("pattern")));
    ASSERT_NE(pattern, nullptr);
    EXPECT_FALSE(pattern->errorText().isEmpty()) << "the pattern view drew an invalid combination";

    qobject_cast<QSpinBox*>(panel->parameterEditor(QStringLiteral("summary")))->setValue(2);
    EXPECT_TRUE(panel->message().isEmpty()) << panel->message().toStdString();
    ASSERT_TRUE(window->waitUntilIdle(kIdleTimeoutMs));
    EXPECT_TRUE(pattern->errorText().isEmpty()) << pattern->errorText().toStdString();
}

// The Shape group's grid rows: a valid grid sets n to its cell count; a text that is not a grid is marked
// and named, and the settings keep the last valid grid; the grid, order and query survive a session.
TEST_F(MainWindowTest, GridRowsSetTheGridAndNameWhatIsWrong) {
    const auto window = openWindow();
    ParameterPanel* panel = window->parameterPanel();
    const auto enter = [](QLineEdit* edit, const QString& text) {
        edit->setText(text);
        emit edit->editingFinished();
    };
    enter(panel->gridEditor(), QStringLiteral("6,10"));
    EXPECT_EQ(window->labSettings().grid, "6,10");
    EXPECT_EQ(window->labSettings().n, 60);
    EXPECT_EQ(panel->lengthEditor()->value(), 60);
    EXPECT_TRUE(panel->gridError().isEmpty());
    enter(panel->orderEditor(), QStringLiteral("tiles:4,4"));
    EXPECT_TRUE(panel->gridError().contains(QStringLiteral("divide"))) << panel->gridError().toStdString();
    EXPECT_EQ(window->labSettings().order, "") << "an order that is not valid is not applied";
    enter(panel->orderEditor(), QStringLiteral("tiles:3,5"));
    EXPECT_TRUE(panel->gridError().isEmpty()) << panel->gridError().toStdString();
    EXPECT_EQ(window->labSettings().order, "tiles:3,5");
    enter(panel->gridEditor(), QStringLiteral("6,x"));
    EXPECT_FALSE(panel->gridError().isEmpty());
    EXPECT_EQ(window->labSettings().grid, "6,10");
    enter(panel->gridEditor(), QStringLiteral("6,10"));
    panel->gridQueryEditor()->setValue(17);
    EXPECT_EQ(window->labSettings().gridQuery, 17);
    ASSERT_TRUE(window->waitUntilIdle(kIdleTimeoutMs));
    auto* pattern = qobject_cast<PatternView*>(window->view(QStringLiteral("pattern")));
    ASSERT_NE(pattern, nullptr);
    EXPECT_EQ(pattern->gridQuery(), 17);

    const QString file = path(QStringLiteral("grid.attnlab.json"));
    window->saveSession(file);
    const auto fresh = openWindow();
    ASSERT_TRUE(fresh->openSession(file)) << fresh->lastError().toStdString();
    EXPECT_EQ(fresh->labSettings().grid, "6,10");
    EXPECT_EQ(fresh->labSettings().order, "tiles:3,5");
    EXPECT_EQ(fresh->labSettings().gridQuery, 17);
    EXPECT_EQ(fresh->parameterPanel()->gridQueryEditor()->value(), 17);
}

TEST_F(MainWindowTest, SessionRoundTripsIntoAFreshWindow) {
    const LabSettings settings = unusualSettings();
    const QString file = path(QStringLiteral("round.attnlab.json"));
    {
        const auto window = openWindow();
        window->applySettings(settings);
        ASSERT_TRUE(window->selectView(QStringLiteral("flops")));
        window->saveSession(file);
    }
    const auto fresh = openWindow();
    ASSERT_NE(fresh->labSettings(), settings);
    ASSERT_TRUE(fresh->openSession(file)) << fresh->lastError().toStdString();
    EXPECT_EQ(fresh->labSettings(), settings);
    EXPECT_EQ(fresh->currentViewName(), QStringLiteral("flops"));
    EXPECT_EQ(fresh->parameterPanel()->settings(), settings);
    EXPECT_EQ(fresh->parameterPanel()->lengthEditor()->value(), settings.n);
    EXPECT_EQ(fresh->parameterPanel()->kvHeadsEditor()->value(), settings.kvHeads);
    EXPECT_EQ(fresh->parameterPanel()->variantChooser()->currentData(Qt::UserRole).toString(), QStringLiteral("longformer"));
    for (const FigureView* view : fresh->views()) EXPECT_EQ(view->settings(), settings) << view->viewName().toStdString();

    // The lab's tab round-trips as well.
    ASSERT_TRUE(fresh->selectView(QStringLiteral("lab")));
    fresh->saveSession(file);
    const auto third = openWindow();
    ASSERT_TRUE(third->openSession(file));
    EXPECT_EQ(third->currentViewName(), QStringLiteral("lab"));
}

TEST_F(MainWindowTest, BrokenSessionsGiveAnErrorAndKeepTheCurrentSettings) {
    const QString valid = path(QStringLiteral("valid.attnlab.json"));
    saveSession(valid, Session{unusualSettings(), QStringLiteral("timing")});
    QFile validFile(valid);
    ASSERT_TRUE(validFile.open(QIODevice::ReadOnly));
    const QByteArray whole = validFile.readAll();

    const std::vector<std::pair<const char*, QByteArray>> broken = {
        {"garbage", "this is not JSON at all"},
        {"truncated", whole.left(whole.size() / 2)},
        {"empty", ""},
        {"array", "[1, 2, 3]"},
        {"other format", R"({"format": "something-else", "version": 1, "settings": {}})"},
        {"future version", R"({"format": "attnlab-session", "version": 99, "settings": {}})"},
        {"wrong type", R"({"format": "attnlab-session", "version": 1, "settings": {"n": "many"}})"},
        {"unknown variant", R"({"format": "attnlab-session", "version": 1, "settings": {"variant": "nonesuch"}})"},
        {"n out of range", R"({"format": "attnlab-session", "version": 1, "settings": {"n": 0}})"},
        {"head out of range", R"({"format": "attnlab-session", "version": 1, "settings": {"heads": 2, "head": 5}})"},
        {"one compared variant", R"({"format": "attnlab-session", "version": 1, "settings": {"compare": ["full"]}})"},
        {"bad parameter map", R"({"format": "attnlab-session", "version": 1, "settings": {"params": {"window": 8}}})"},
    };
    const auto window = openWindow();
    LabSettings current;
    current.variant = "strided";
    current.n = 77;
    window->applySettings(current);
    ASSERT_TRUE(window->selectView(QStringLiteral("reach")));
    for (const auto& [name, bytes] : broken) {
        SCOPED_TRACE(name);
        const QString file = path(QString::fromLatin1(name).replace(' ', '_') + QStringLiteral(".json"));
        writeFile(file, bytes);
        EXPECT_FALSE(window->openSession(file));
        EXPECT_FALSE(window->lastError().isEmpty());
        EXPECT_FALSE(window->lastError().contains('\n')) << window->lastError().toStdString();
        EXPECT_EQ(window->labSettings(), current);
        EXPECT_EQ(window->parameterPanel()->settings(), current);
        EXPECT_EQ(window->currentViewName(), QStringLiteral("reach"));
        // The error is shown without blocking the event loop.
        auto* box = window->findChild<QMessageBox*>(QStringLiteral("errorMessage"));
        ASSERT_NE(box, nullptr);
        EXPECT_TRUE(box->isVisible());
        EXPECT_EQ(box->text(), window->lastError());
        box->close();
        QCoreApplication::sendPostedEvents(nullptr, QEvent::DeferredDelete);
    }
    EXPECT_FALSE(window->openSession(path(QStringLiteral("does-not-exist.json"))));
    EXPECT_EQ(window->labSettings(), current);
    // The valid file still opens afterwards.
    EXPECT_TRUE(window->openSession(valid));
    EXPECT_EQ(window->labSettings(), unusualSettings());
    EXPECT_EQ(window->currentViewName(), QStringLiteral("timing"));
}

TEST_F(MainWindowTest, FirstRunOpensOnTheSparseTransformerFigure) {
    QSettings().clear();
    const auto window = openWindow(true);
    EXPECT_EQ(window->labSettings(), figurePresets().front().settings);
    EXPECT_EQ(window->labSettings().compareVariants, (std::vector<std::string>{"full", "strided", "fixed"}));
    EXPECT_EQ(window->currentViewName(), QStringLiteral("pattern"));
}

TEST_F(MainWindowTest, LastVariantAndParametersPersistAcrossWindows) {
    {
        const auto first = openWindow(true);
        ParameterPanel* panel = first->parameterPanel();
        chooseVariant(panel->variantChooser(), "bigbird");
        qobject_cast<QSpinBox*>(panel->parameterEditor(QStringLiteral("random")))->setValue(5);
        panel->lengthEditor()->setValue(300);
        ASSERT_TRUE(first->selectView(QStringLiteral("flops")));
        first->close();
    }
    {
        const auto second = openWindow(true);
        EXPECT_EQ(second->labSettings().variant, "bigbird");
        EXPECT_EQ(second->labSettings().params, (ParamOverrides{{"random", "5"}}));
        EXPECT_EQ(second->labSettings().n, 300);
        EXPECT_EQ(second->currentViewName(), QStringLiteral("flops"));
        EXPECT_EQ(second->parameterPanel()->variantChooser()->currentData(Qt::UserRole).toString(), QStringLiteral("bigbird"));
        EXPECT_EQ(qobject_cast<QSpinBox*>(second->parameterPanel()->parameterEditor(QStringLiteral("random")))->value(), 5);
        for (const FigureView* view : second->views()) EXPECT_EQ(view->settings().variant, "bigbird");
        second->applySettings(LabSettings{});
        second->close();
    }
    const auto third = openWindow(true);
    EXPECT_EQ(third->labSettings(), LabSettings{}) << "the last window's settings were not stored";
    // A window that does not restore ignores what is stored.
    third->applySettings(unusualSettings());
    third->close();
    const auto clean = openWindow(false);
    EXPECT_EQ(clean->labSettings(), LabSettings{});
}

TEST_F(MainWindowTest, TimingControlsSetTheSweepAndFollowASession) {
    const auto window = openWindow();
    auto* mode = window->parameterPanel()->findChild<QComboBox*>(QStringLiteral("timingMode"));
    auto* maxN = window->parameterPanel()->findChild<QComboBox*>(QStringLiteral("timingMaxN"));
    ASSERT_NE(mode, nullptr);
    ASSERT_NE(maxN, nullptr);
    const int layer = mode->findText(QStringLiteral("Layer"), Qt::MatchStartsWith);
    const int upTo1024 = maxN->findText(QStringLiteral("1024"));
    ASSERT_GE(layer, 0);
    ASSERT_GE(upTo1024, 0);
    mode->setCurrentIndex(layer);
    emit mode->activated(layer);
    maxN->setCurrentIndex(upTo1024);
    emit maxN->activated(upTo1024);
    EXPECT_EQ(window->labSettings().timingMode, TimingMode::Layer);
    EXPECT_EQ(window->labSettings().timingMaxN, 1024);
    EXPECT_EQ(window->view(QStringLiteral("timing"))->settings().timingMaxN, 1024);

    LabSettings fromSession = window->labSettings();
    fromSession.timingMode = TimingMode::Variants;
    fromSession.timingMaxN = 3000; // not a listed power of two: shown as it is
    window->applySettings(fromSession);
    EXPECT_EQ(mode->currentText().left(8), QStringLiteral("Variants"));
    EXPECT_EQ(maxN->currentText(), QStringLiteral("3000"));
}

TEST_F(MainWindowTest, CompareModeFromThePanelShowsTwoToFourPanels) {
    const auto window = openWindow();
    ParameterPanel* panel = window->parameterPanel();
    chooseVariant(panel->variantChooser(), "strided");
    panel->lengthEditor()->setValue(48);
    QCheckBox* toggle = compareToggle(*panel);
    ASSERT_NE(toggle, nullptr);
    toggle->setChecked(true);
    auto* pattern = qobject_cast<PatternView*>(window->view(QStringLiteral("pattern")));
    auto* flops = qobject_cast<FlopsView*>(window->view(QStringLiteral("flops")));
    ASSERT_NE(pattern, nullptr);
    ASSERT_NE(flops, nullptr);
    const std::vector<std::string> others = {"longformer", "bigbird", "chunk"};
    for (std::size_t count = 2; count <= 4; ++count) {
        SCOPED_TRACE(count);
        chooseVariant(panel->compareChooser(static_cast<int>(count) - 1), others[count - 2]);
        std::vector<std::string> expected = {"strided"};
        expected.insert(expected.end(), others.begin(), others.begin() + static_cast<std::ptrdiff_t>(count) - 1);
        EXPECT_EQ(window->labSettings().compareVariants, expected);
        ASSERT_TRUE(window->waitUntilIdle(kIdleTimeoutMs));
        EXPECT_EQ(pattern->panelCount(), static_cast<int>(count));
        EXPECT_TRUE(pattern->errorText().isEmpty()) << pattern->errorText().toStdString();
        // The FLOP view computes only while shown.
        ASSERT_TRUE(window->selectView(QStringLiteral("flops")));
        ASSERT_TRUE(window->waitUntilIdle(kIdleTimeoutMs));
        ASSERT_TRUE(window->selectView(QStringLiteral("pattern")));
        std::set<std::string> chosen;
        for (const auto& bar : flops->bars())
            if (bar.chosen) chosen.insert(bar.variant);
        EXPECT_EQ(chosen, std::set<std::string>(expected.begin(), expected.end()));
    }
    toggle->setChecked(false);
    EXPECT_TRUE(window->labSettings().compareVariants.empty());
    ASSERT_TRUE(window->waitUntilIdle(kIdleTimeoutMs));
    EXPECT_EQ(pattern->panelCount(), 1);
}

TEST_F(MainWindowTest, LabTabExplainsWhyItIsUnavailableWithoutOpenGl) {
    const auto window = openWindow();
    EXPECT_FALSE(window->selectView(QStringLiteral("nonesuch")));
    for (const QString& name : figureViewNames()) {
        ASSERT_TRUE(window->selectView(name));
        EXPECT_EQ(window->currentViewName(), name);
        ASSERT_NE(window->currentView(), nullptr);
        EXPECT_EQ(window->currentView()->viewName(), name);
    }
    ASSERT_TRUE(window->selectView(QStringLiteral("lab")));
    EXPECT_EQ(window->currentView(), nullptr);
    EXPECT_EQ(window->currentViewName(), QStringLiteral("lab"));
    if (QGuiApplication::platformName() == QLatin1String("offscreen")) {
        auto* note = window->findChild<QLabel*>(QStringLiteral("labUnavailable"));
        ASSERT_NE(note, nullptr);
        EXPECT_TRUE(note->isVisible());
        EXPECT_TRUE(note->text().contains(QStringLiteral("OpenGL")));
    }
}

} // namespace
} // namespace attnlab::mainwindowtest
