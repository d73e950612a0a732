// The main window as a user drives it: the registry-built parameter panel (every parameter of every
// variant), edits reaching the views, sessions (round trip, broken files), QSettings persistence across
// windows, compare mode from the panel, the Presets menu (figure and model presets) and the lab tab's
// note on a platform without OpenGL. QSettings live in a temporary directory for the whole program.

#include "views/plot/colormap.h"
#include "views/figures/figure_export.h"
#include "views/figures/flops_view.h"
#include "views/shell/main_window.h"
#include "views/shell/model_presets.h"
#include "views/shell/parameter_panel.h"
#include "views/figures/pattern_view.h"
#include "views/shell/session_file.h"

#include "core/analysis/settings_check.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QCheckBox>
#include <QComboBox>
#include <QFile>
#include <QLabel>
#include <QLineEdit>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QPainter>
#include <QSettings>
#include <QSpinBox>
#include <QStandardPaths>
#include <QTemporaryDir>
#include <QTest>

#include <climits>
#include <cstdlib>
#include <memory>
#include <set>
#include <string>

namespace attnlab {
namespace {

constexpr int kIdleTimeoutMs = 60000;

QString text(const std::string& value) { return QString::fromStdString(value); }

void writeFile(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

// Chooses `id` in a variant combo box the way a user does (the item, then its activation).
void chooseVariant(QComboBox* combo, const std::string& id) {
    const int index = combo->findData(text(id), Qt::UserRole);
    ASSERT_GE(index, 0) << id << " is not offered";
    combo->setCurrentIndex(index);
    emit combo->activated(index);
}

QCheckBox* compareToggle(const ParameterPanel& panel) {
    for (QCheckBox* box : panel.findChildren<QCheckBox*>())
        if (box->text().contains(QStringLiteral("side by side"))) return box;
    return nullptr;
}

QComboBox* modelPresetChooser(const ParameterPanel& panel) {
    for (QComboBox* combo : panel.findChildren<QComboBox*>())
        if (combo->count() > 0 && combo->itemText(0).startsWith(QStringLiteral("Model shape"))) return combo;
    return nullptr;
}

QAction* presetAction(const MainWindow& window, const QString& name) {
    for (QAction* menu : window.menuBar()->actions()) {
        if (!menu->menu() || !menu->text().contains(QStringLiteral("Presets"))) continue;
        for (QAction* action : menu->menu()->actions())
            if (action->text() == name) return action;
    }
    return nullptr;
}

QImage paint(const FigureView& view) {
    QImage image(view.size(), QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    view.paintFigure(painter, QRectF(QPointF(0, 0), QSizeF(view.size())));
    return image;
}

// Every field of LabSettings set away from its default.
LabSettings unusualSettings() {
    LabSettings settings;
    settings.variant = "longformer";
    settings.params = {{"window", "8"}, {"globals", "0,3"}};
    settings.n = 96;
    settings.d = 32;
    settings.heads = 4;
    settings.causal = true;
    settings.head = 2;
    settings.source = InputSource::RandomGaussian;
    settings.inputSeed = (std::uint64_t{1} << 40) + 5;
    settings.qPath = "/data/q.npy";
    settings.kPath = "/data/k.npy";
    settings.vPath = "/data/v.npy";
    settings.compareVariants = {"longformer", "bigbird", "strided"};
    settings.compareParams = {{{"window", "8"}, {"globals", "0,3"}}, {{"random", "2"}}};
    settings.layers = 5;
    settings.showWeights = true;
    settings.showMaskOutline = false;
    settings.flopsAsMacs = false;
    return settings;
}

class MainWindowTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(dir.isValid());
        QSettings().clear();
    }

    std::unique_ptr<MainWindow> openWindow(bool restoreState = false) {
        auto window = std::make_unique<MainWindow>(restoreState);
        window->show();
        EXPECT_TRUE(QTest::qWaitForWindowExposed(window.get()));
        return window;
    }

    QString path(const QString& name) const { return dir.filePath(name); }

    QTemporaryDir dir;
};

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
            case ParamType::String:
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
    EXPECT_EQ(window->labSettings().compareVariants, (std::vector<std::string>{"strided", "fixed"}));
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

TEST_F(MainWindowTest, FigurePresetsApplyAndDrawValidFigures) {
    const auto window = openWindow();
    ASSERT_EQ(figurePresets().size(), 6u);
    for (const FigurePreset& preset : figurePresets()) {
        SCOPED_TRACE(preset.name.toStdString());
        QAction* action = presetAction(*window, preset.name);
        ASSERT_NE(action, nullptr) << "not in the Presets menu";
        action->trigger();
        ASSERT_TRUE(window->waitUntilIdle(kIdleTimeoutMs));
        EXPECT_EQ(window->labSettings(), preset.settings);
        EXPECT_EQ(window->currentViewName(), preset.view);
        EXPECT_EQ(settingsProblem(preset.settings), "");
        EXPECT_TRUE(window->parameterPanel()->message().isEmpty());
        FigureView* view = window->currentView();
        ASSERT_NE(view, nullptr);
        const QImage image = paint(*view);
        if (auto* pattern = qobject_cast<PatternView*>(view)) {
            EXPECT_TRUE(pattern->errorText().isEmpty()) << pattern->errorText().toStdString();
            const int panels = std::max<int>(1, static_cast<int>(preset.settings.compareVariants.size()));
            ASSERT_EQ(pattern->panelCount(), panels);
            // Every panel shows a pattern: some cells in the pattern's colours, some masked.
            for (int p = 0; p < panels; ++p) {
                const QRect plot = pattern->plotRect(QRectF(view->rect()), p).toRect().adjusted(2, 2, -2, -2);
                int coloured = 0, background = 0;
                for (int y = plot.top(); y < plot.bottom(); y += 2)
                    for (int x = plot.left(); x < plot.right(); x += 2) {
                        const QRgb pixel = image.pixel(x, y);
                        if (pixel == emptyCellColor()) ++background;
                        else if (qGray(pixel) < 200) ++coloured;
                    }
                EXPECT_GT(coloured, 20) << "panel " << p << " is empty";
                if (!preset.settings.showWeights && preset.settings.compareVariants.empty()) {
                    EXPECT_GT(background, 20) << "panel " << p << " has no masked cell";
                }
            }
        } else if (auto* flops = qobject_cast<FlopsView*>(view)) {
            EXPECT_FALSE(flops->sweep().empty());
            EXPECT_FALSE(flops->bars().empty());
            EXPECT_TRUE(flops->title().contains(QStringLiteral("h=12, d=64"))) << flops->title().toStdString();
        }
        const QString file = path(QStringLiteral("preset.png"));
        exportFigure(*view, file, ExportOptions{});
        EXPECT_FALSE(QImage(file).isNull());
    }
}

TEST_F(MainWindowTest, FigurePresetsDrawTheFiguresTheirNamesPromise) {
    const auto find = [](const char* start) -> const FigurePreset* {
        for (const FigurePreset& preset : figurePresets())
            if (preset.name.startsWith(QLatin1String(start))) return &preset;
        return nullptr;
    };
    const auto panelVariants = [](const FigurePreset& preset) {
        std::vector<std::string> ids;
        for (const auto& choice : chosenVariants(preset.settings)) ids.push_back(choice.variant);
        return ids;
    };
    const FigurePreset* sparse = find("Sparse Transformer");
    ASSERT_NE(sparse, nullptr);
    EXPECT_EQ(panelVariants(*sparse), (std::vector<std::string>{"strided", "fixed"}));

    const FigurePreset* longformer = find("Longformer");
    ASSERT_NE(longformer, nullptr);
    const auto longformerPanels = chosenVariants(longformer->settings);
    ASSERT_EQ(longformerPanels.size(), 4u);
    EXPECT_EQ(longformerPanels[0].variant, "full");
    EXPECT_EQ(longformerPanels[1].variant, "longformer");
    EXPECT_FALSE(longformerPanels[1].params.count("dilation") || longformerPanels[1].params.count("globals"));
    EXPECT_GT(std::stoi(longformerPanels[2].params.at("dilation")), 1);
    EXPECT_FALSE(longformerPanels[3].params.at("globals").empty());

    const FigurePreset* bigbird = find("BigBird");
    ASSERT_NE(bigbird, nullptr);
    const auto bigbirdPanels = chosenVariants(bigbird->settings);
    ASSERT_EQ(bigbirdPanels.size(), 4u);
    const auto parts = [](const VariantChoice& choice) {
        return std::tuple{std::stoi(choice.params.at("random")) > 0, std::stoi(choice.params.at("window")) > 0,
                          std::stoi(choice.params.at("globals")) > 0};
    };
    EXPECT_EQ(parts(bigbirdPanels[0]), std::tuple(true, false, false));
    EXPECT_EQ(parts(bigbirdPanels[1]), std::tuple(false, true, false));
    EXPECT_EQ(parts(bigbirdPanels[2]), std::tuple(false, false, true));
    EXPECT_EQ(parts(bigbirdPanels[3]), std::tuple(true, true, true));

    const FigurePreset* flash = find("FLASH");
    ASSERT_NE(flash, nullptr);
    EXPECT_EQ(panelVariants(*flash), (std::vector<std::string>{"relu2", "linear", "mixed_chunk"}));

    const FigurePreset* xl = find("Transformer-XL");
    ASSERT_NE(xl, nullptr);
    EXPECT_EQ(xl->settings.variant, "xl");
    EXPECT_GT(std::stoi(xl->settings.params.at("memory")), 0);
    EXPECT_LT(std::stoi(xl->settings.params.at("segment")), xl->settings.n) << "one segment shows no memory";

    const FigurePreset* bert = find("BERT-base");
    ASSERT_NE(bert, nullptr);
    EXPECT_EQ(bert->view, QStringLiteral("flops"));
    EXPECT_EQ(bert->settings.heads, 12);
    EXPECT_EQ(bert->settings.d, 64);
    EXPECT_EQ(bert->settings.n, 512);
}

TEST_F(MainWindowTest, ModelPresetsSetTheKnownHeadShapesAndContext) {
    struct Known {
        const char* name;
        int heads;
        std::int64_t d, n;
    };
    const std::vector<Known> known = {{"BERT-base", 12, 64, 512}, {"GPT-2 small", 12, 64, 1024}, {"LLaMA-7B", 32, 128, 2048}};
    const auto window = openWindow();
    QComboBox* chooser = modelPresetChooser(*window->parameterPanel());
    ASSERT_NE(chooser, nullptr);
    ASSERT_EQ(modelPresets().size(), known.size());
    for (const Known& model : known) {
        SCOPED_TRACE(model.name);
        const auto preset = std::find_if(modelPresets().begin(), modelPresets().end(),
                                         [&](const ModelPreset& p) { return p.name.startsWith(QLatin1String(model.name)); });
        ASSERT_NE(preset, modelPresets().end());
        // From the Presets menu: the shape changes, the variant and its parameters stay.
        LabSettings before;
        before.variant = "longformer";
        before.params = {{"window", "16"}};
        window->applySettings(before);
        QAction* action = presetAction(*window, preset->name);
        ASSERT_NE(action, nullptr);
        action->trigger();
        EXPECT_EQ(window->labSettings().heads, model.heads);
        EXPECT_EQ(window->labSettings().d, model.d);
        EXPECT_EQ(window->labSettings().n, model.n);
        EXPECT_EQ(window->labSettings().variant, "longformer");
        EXPECT_EQ(window->labSettings().params, before.params);
        // From the panel's chooser.
        window->applySettings(before);
        const int index = chooser->findText(preset->name);
        ASSERT_GT(index, 0);
        chooser->setCurrentIndex(index);
        emit chooser->activated(index);
        EXPECT_EQ(window->labSettings().heads, model.heads);
        EXPECT_EQ(window->labSettings().d, model.d);
        EXPECT_EQ(window->labSettings().n, model.n);
        EXPECT_EQ(window->parameterPanel()->lengthEditor()->value(), model.n);
    }
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
} // namespace attnlab

int main(int argc, char** argv) {
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    // Settings of this program only, in a directory removed at exit.
    QTemporaryDir settingsDir;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    QCoreApplication::setOrganizationName(QStringLiteral("attnlab-tests"));
    QCoreApplication::setApplicationName(QStringLiteral("test_main_window"));
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}
