// The Presets menu as a user drives it: figure presets apply their settings and draw the figures their
// names promise; model presets set the known head shapes and context lengths.
#include "main_window_fixture.h"

#include "gui/csv_table.h"

namespace attnlab::mainwindowtest {
namespace {

TEST_F(MainWindowTest, FigurePresetsApplyAndDrawValidFigures) {
    const auto window = openWindow();
    ASSERT_EQ(figurePresets().size(), 21u);
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
            // Factorised heads: one panel per component (two in every such preset) of each compared variant,
            // else one per compared variant.
            const int variants = std::max<int>(1, static_cast<int>(preset.settings.compareVariants.size()));
            const int panels = preset.settings.splitComponents ? 2 * variants : variants;
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
    EXPECT_EQ(panelVariants(*sparse), (std::vector<std::string>{"full", "strided", "fixed"}));
    EXPECT_EQ(sparse->settings.panelTitles, (std::vector<std::string>{"(a) full", "(b) strided", "(c) fixed"}));
    EXPECT_TRUE(sparse->atLength) << "stride and block follow sqrt(n)";

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
        int heads, kvHeads;
        std::int64_t d, layers, n;
        const char* cache; // the precision the model's weights ship in
    };
    const std::vector<Known> known = {{"BERT-base", 12, 12, 64, 12, 512, "f32"},
                                      {"GPT-2 small", 12, 12, 64, 12, 1024, "f32"},
                                      {"LLaMA-2-7B", 32, 32, 128, 32, 4096, "f16"},
                                      {"LLaMA-2-70B", 64, 8, 128, 80, 4096, "f16"},
                                      {"Mistral-7B", 32, 8, 128, 32, 8192, "bf16"},
                                      {"LLaMA-3-8B", 32, 8, 128, 32, 8192, "bf16"}};
    const auto window = openWindow();
    QComboBox* chooser = modelPresetChooser(*window->parameterPanel());
    ASSERT_NE(chooser, nullptr);
    const std::vector<ModelPreset> presets = modelPresets();
    ASSERT_EQ(presets.size(), known.size());
    for (const Known& model : known) {
        SCOPED_TRACE(model.name);
        const auto preset = std::find_if(presets.begin(), presets.end(),
                                         [&](const ModelPreset& p) { return p.name.startsWith(QLatin1String(model.name) + QLatin1String(" (")); });
        ASSERT_NE(preset, presets.end());
        EXPECT_TRUE(preset->name.contains(QLatin1String(model.cache))) << preset->name.toStdString();
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
        EXPECT_EQ(problemShape(window->labSettings(), requireVariant("full")).keyValueHeads(), model.kvHeads);
        EXPECT_EQ(window->labSettings().modelLayers, model.layers);
        EXPECT_EQ(window->labSettings().kvDtype, model.cache);
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
        EXPECT_EQ(window->parameterPanel()->kvHeadsEditor()->value(), model.kvHeads == model.heads ? 0 : model.kvHeads);
    }
}

TEST_F(MainWindowTest, EachComparePanelHasItsOwnParameterEditor) {
    const auto window = openWindow();
    window->applySettings(findFigurePreset("longformer")->settings);
    ParameterPanel* panel = window->parameterPanel();
    QLineEdit* second = panel->compareParameterEditor(1);
    ASSERT_NE(second, nullptr);
    EXPECT_EQ(second->text(), QStringLiteral("window=8 title=(b) sliding window"));
    EXPECT_EQ(panel->compareParameterEditor(2)->text(), QStringLiteral("dilation=2 window=8 title=(c) dilated sliding window"));
    EXPECT_TRUE(panel->fixedByPreset(1, "window"));
    EXPECT_TRUE(panel->compareParameterEditor(2)->toolTip().contains(QLatin1String("longformer")));

    second->setText(QStringLiteral("window=4 title=(b) narrow"));
    emit second->editingFinished();
    const LabSettings edited = window->labSettings();
    ASSERT_EQ(edited.compareParams.size(), 4u);
    EXPECT_EQ(edited.compareParams[1], (ParamOverrides{{"window", "4"}}));
    EXPECT_EQ(edited.panelTitles[1], "(b) narrow");
    // The other panels keep theirs.
    EXPECT_EQ(edited.compareParams[2], (ParamOverrides{{"window", "8"}, {"dilation", "2"}}));
    EXPECT_EQ(edited.panelTitles[3], "(d) global + sliding window");
    EXPECT_FALSE(panel->fixedByPreset(1, "window"));
    EXPECT_TRUE(panel->fixedByPreset(2, "window"));
    for (const FigureView* view : window->views()) EXPECT_EQ(view->settings(), edited);

    // A key the panel's variant does not have is explained and changes nothing.
    second->setText(QStringLiteral("stride=4"));
    emit second->editingFinished();
    EXPECT_EQ(window->labSettings(), edited);
    EXPECT_TRUE(panel->message().contains(QLatin1String("has no parameter 'stride'"))) << panel->message().toStdString();
}

TEST_F(MainWindowTest, TheTokensFieldLabelsThePatternWhenThereAreNWords) {
    const auto window = openWindow();
    LabSettings settings;
    settings.n = 6;
    window->applySettings(settings);
    QLineEdit* tokens = window->parameterPanel()->tokensEditor();
    ASSERT_NE(tokens, nullptr);
    tokens->setText(QStringLiteral("The cat sat on the mat"));
    emit tokens->editingFinished();
    EXPECT_EQ(window->labSettings().tokens, "The cat sat on the mat");
    auto* pattern = qobject_cast<PatternView*>(window->view(QStringLiteral("pattern")));
    ASSERT_NE(pattern, nullptr);
    EXPECT_EQ(pattern->settings().tokens, "The cat sat on the mat");
    ASSERT_TRUE(window->waitUntilIdle(kIdleTimeoutMs));
    EXPECT_TRUE(pattern->tokenNote().isEmpty()) << pattern->tokenNote().toStdString();
    // The exported CSV, read back from the file: each query row carries its token.
    const auto exportedTokens = [&] {
        const QString file = path(QStringLiteral("tokens.csv"));
        exportFigure(*pattern, file, ExportOptions{});
        QFile csv(file);
        EXPECT_TRUE(csv.open(QIODevice::ReadOnly));
        QStringList column;
        for (const QStringList& row : guitest::readCsv(QString::fromUtf8(csv.readAll())).rows) column << row.value(3);
        return column;
    };
    EXPECT_EQ(exportedTokens(), QString::fromLatin1("The cat sat on the mat").split(QLatin1Char(' ')));
    window->parameterPanel()->lengthEditor()->setValue(7);
    ASSERT_TRUE(window->waitUntilIdle(kIdleTimeoutMs));
    EXPECT_EQ(pattern->tokenNote(), QStringLiteral("6 tokens for n = 7: token labels need exactly n tokens, indices shown"));
    EXPECT_EQ(exportedTokens(), QStringList(7, QString())) << "indices only, as on the axes";
}

TEST_F(MainWindowTest, ChangingNRescalesAScalingPresetAndExplainsAFixedOne) {
    const auto window = openWindow();
    ParameterPanel* panel = window->parameterPanel();
    window->applySettings(findFigurePreset("sparse-transformer")->settings);
    panel->lengthEditor()->setValue(256);
    EXPECT_EQ(window->labSettings().compareParams[1], (ParamOverrides{{"stride", "16"}}));
    EXPECT_TRUE(panel->message().isEmpty()) << panel->message().toStdString();

    window->applySettings(findFigurePreset("longformer")->settings);
    panel->lengthEditor()->setValue(1024);
    EXPECT_EQ(window->labSettings().compareParams[1], (ParamOverrides{{"window", "8"}}));
    EXPECT_TRUE(panel->message().contains(QLatin1String("does not scale with n"))) << panel->message().toStdString();
}

} // namespace
} // namespace attnlab::mainwindowtest
