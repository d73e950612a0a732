#include "views/shell/model_presets.h"
#include "views/shell/grid_presets.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

struct Panel {
    std::string title;
    VariantChoice choice;
};

LabSettings comparison(const std::string& preset, std::int64_t n, bool causal, const std::vector<Panel>& panels) {
    LabSettings settings;
    settings.preset = preset;
    settings.n = n;
    settings.causal = causal;
    settings.variant = panels.front().choice.variant;
    settings.params = panels.front().choice.params;
    for (const auto& panel : panels) {
        settings.compareVariants.push_back(panel.choice.variant);
        settings.compareParams.push_back(panel.choice.params);
        settings.panelTitles.push_back(panel.title);
    }
    return settings;
}

// Child et al. (2019), fig. 3: stride l and block l near sqrt(n), as the paper chooses them. Coloured by
// component like the paper's two heads: the band A(1) and the strided columns A(2); the fixed pattern's
// own block and summary columns.
LabSettings sparseTransformer(std::int64_t n) {
    const std::string root = std::to_string(static_cast<std::int64_t>(std::ceil(std::sqrt(static_cast<double>(n)))));
    LabSettings settings = comparison("sparse-transformer", n, true,
                                      {{"(a) full", {"full", {}}},
                                       {"(b) strided", {"strided", {{"stride", root}}}},
                                       {"(c) fixed", {"fixed", {{"block", root}, {"summary", "2"}}}}});
    settings.showComponents = true;
    return settings;
}

// Beltagy et al. (2020), fig. 2: the window is a constant of the model, not a function of n. Coloured by
// component: the (dilated) window and the global rows and columns.
LabSettings longformer() {
    LabSettings settings = comparison("longformer", 64, false,
                                      {{"(a) full", {"full", {}}},
                                       {"(b) sliding window", {"longformer", {{"window", "8"}}}},
                                       {"(c) dilated sliding window", {"longformer", {{"window", "8"}, {"dilation", "2"}}}},
                                       {"(d) global + sliding window", {"longformer", {{"window", "8"}, {"globals", "0,1,32"}}}}});
    settings.showComponents = true;
    return settings;
}

// Zaheer et al. (2020), fig. 1.
LabSettings bigBird() {
    LabSettings settings = comparison("bigbird", 64, false,
                      {{"(a) random", {"bigbird", {{"window", "0"}, {"globals", "0"}, {"random", "3"}}}},
                       {"(b) sliding window", {"bigbird", {{"window", "6"}, {"globals", "0"}, {"random", "0"}}}},
                       {"(c) global", {"bigbird", {{"window", "0"}, {"globals", "2"}, {"random", "0"}}}},
                       {"(d) BigBird", {"bigbird", {{"window", "6"}, {"globals", "2"}, {"random", "3"}}}}});
    settings.showComponents = true; // each panel's cells in the colour of its part, as in the paper
    return settings;
}

// BigBird as its paper draws it beside BigBird as its implementation computes it, at n = 1024 with the
// block view on in blocks of 64: per token, a window of 192, 64 global tokens and 192 random keys per
// row; in block mode the same budget in blocks of 64 (a window of 3 blocks, 1 global block, 3 random
// blocks), whose every block is full or empty.
LabSettings bigBirdBlocks() {
    LabSettings settings =
        comparison("bigbird-blocks", 1024, false,
                   {{"(a) per token, as the paper draws it", {"bigbird", {{"window", "192"}, {"globals", "64"}, {"random", "192"}}}},
                    {"(b) blocks of 64, as its code computes it",
                     {"bigbird", {{"block", "64"}, {"window", "3"}, {"globals", "1"}, {"random", "3"}}}}});
    settings.showComponents = true;
    settings.blockView = 64;
    return settings;
}

LabSettings flash() {
    LabSettings settings = comparison("flash", 64, false,
                                      {{"(a) quadratic (relu²)", {"relu2", {}}},
                                       {"(b) linear", {"linear", {}}},
                                       {"(c) mixed chunk", {"mixed_chunk", {{"chunk", "16"}}}}});
    settings.showWeights = true;
    return settings;
}

LabSettings transformerXl() {
    LabSettings settings;
    settings.preset = "transformer-xl";
    settings.variant = "xl";
    settings.params = {{"segment", "16"}, {"memory", "16"}};
    settings.n = 64;
    settings.causal = true;
    settings.showComponents = true; // each segment's own keys apart from the memory of the previous one
    return settings;
}

// A custom pattern drawn by component, n = 64: each term of the expression in its own colour.
LabSettings expressionFigure(const std::string& preset, const std::string& expression, bool causal) {
    LabSettings settings;
    settings.preset = preset;
    settings.variant = "custom";
    settings.params = {{"expr", expression}};
    settings.n = 64;
    settings.causal = causal;
    settings.showComponents = true;
    return settings;
}

LabSettings bigBirdByComponent() {
    LabSettings settings;
    settings.preset = "bigbird-components";
    settings.variant = "bigbird";
    settings.params = {{"window", "6"}, {"globals", "2"}, {"random", "3"}};
    settings.n = 64;
    settings.showComponents = true;
    return settings;
}

LabSettings sparseTransformerHeads() {
    LabSettings settings;
    settings.preset = "sparse-transformer-heads";
    settings.variant = "strided";
    settings.params = {{"stride", "8"}};
    settings.n = 64;
    settings.causal = true;
    settings.showComponents = true;
    settings.splitComponents = true;
    return settings;
}

LabSettings bertLayerFlops(std::int64_t n) {
    LabSettings settings;
    settings.preset = "bert-flops";
    settings.heads = 12;
    settings.d = 64;
    settings.n = n;
    return settings;
}

// A preset whose parameters are constants of the model: they stay when n changes, and the views say so.
LabSettings keptOverN(LabSettings settings) {
    settings.presetN = settings.n;
    return settings;
}

} // namespace

std::vector<ModelPreset> modelPresets() {
    std::vector<ModelPreset> presets;
    const auto text = [](const char* source) { return QCoreApplication::translate("ModelPresets", source); };
    for (const ModelShape& shape : modelShapes()) {
        QStringList parts = {QStringLiteral("%1 × %2").arg(shape.heads).arg(shape.d)};
        if (shape.kvHeads != shape.heads) parts << text(QT_TRANSLATE_NOOP("ModelPresets", "%1 KV heads")).arg(shape.kvHeads);
        parts << text(QT_TRANSLATE_NOOP("ModelPresets", "%1 layers")).arg(shape.layers);
        if (shape.slidingWindow > 0) parts << text(QT_TRANSLATE_NOOP("ModelPresets", "window %1")).arg(shape.slidingWindow);
        parts << QStringLiteral("n = %1").arg(shape.contextLength);
        parts << text(QT_TRANSLATE_NOOP("ModelPresets", "%1 cache")).arg(QString::fromStdString(kvDtypeName(shape.kvDtype)));
        presets.push_back({QStringLiteral("%1 (%2)").arg(QString::fromStdString(shape.name), parts.join(text(QT_TRANSLATE_NOOP("ModelPresets", ", ")))),
                           &shape});
    }
    return presets;
}

QString presetText(const QString& name) { return QCoreApplication::translate("ModelPresets", name.toUtf8().constData()); }

LabSettings applyModelPreset(const LabSettings& settings, const ModelPreset& preset) { return withModelShape(settings, *preset.shape); }

const std::vector<FigurePreset>& figurePresets() {
    static const std::vector<FigurePreset> presets = [] {
        std::vector<FigurePreset> all = {
        {QStringLiteral("sparse-transformer"), QT_TRANSLATE_NOOP("ModelPresets", "Sparse Transformer (Child et al., 2019): full / strided / fixed"), QStringLiteral("pattern"),
         sparseTransformer(64), sparseTransformer},
        {QStringLiteral("longformer"), QT_TRANSLATE_NOOP("ModelPresets", "Longformer (Beltagy et al., 2020): full / sliding / dilated / global"), QStringLiteral("pattern"),
         keptOverN(longformer()), nullptr},
        {QStringLiteral("bigbird"), QT_TRANSLATE_NOOP("ModelPresets", "BigBird (Zaheer et al., 2020): random / sliding window / global / combined"), QStringLiteral("pattern"), keptOverN(bigBird()),
         nullptr},
        {QStringLiteral("bigbird-blocks"), QT_TRANSLATE_NOOP("ModelPresets", "BigBird (Zaheer et al., 2020) per token vs in blocks of 64, block view on"),
         QStringLiteral("pattern"), keptOverN(bigBirdBlocks()), nullptr},
        {QStringLiteral("flash"), QT_TRANSLATE_NOOP("ModelPresets", "FLASH (Hua et al., 2022): quad / linear / mixed chunk"), QStringLiteral("pattern"), keptOverN(flash()), nullptr},
        {QStringLiteral("transformer-xl"), QT_TRANSLATE_NOOP("ModelPresets", "Transformer-XL (Dai et al., 2019): segments with memory"), QStringLiteral("pattern"),
         keptOverN(transformerXl()), nullptr},
        {QStringLiteral("bert-flops"), QT_TRANSLATE_NOOP("ModelPresets", "BERT-base (Devlin et al., 2019) layer FLOP breakdown"), QStringLiteral("flops"), bertLayerFlops(512),
         bertLayerFlops},
        {QStringLiteral("streaming-llm"), QT_TRANSLATE_NOOP("ModelPresets", "StreamingLLM (Xiao et al., 2023): sliding window + attention sinks"), QStringLiteral("pattern"), keptOverN(expressionFigure("streaming-llm", "band(8) | sink(4)", true)), nullptr},
        {QStringLiteral("prefix-lm"), QT_TRANSLATE_NOOP("ModelPresets", "Prefix-LM: bidirectional prefix, causal continuation"), QStringLiteral("pattern"), keptOverN(expressionFigure("prefix-lm", "prefix(24) | causal", false)), nullptr},
        {QStringLiteral("document-masking"), QT_TRANSLATE_NOOP("ModelPresets", "Document masking: packed sequences"), QStringLiteral("pattern"), keptOverN(expressionFigure("document-masking", "docs(20, 12, 32)", true)), nullptr},
        {QStringLiteral("dilated-global"), QT_TRANSLATE_NOOP("ModelPresets", "Longformer (Beltagy et al., 2020): dilated window + global tokens"), QStringLiteral("pattern"), keptOverN(expressionFigure("dilated-global", "dilated(4, 2) | global(0, 32)", false)), nullptr},
        {QStringLiteral("bigbird-components"), QT_TRANSLATE_NOOP("ModelPresets", "BigBird (Zaheer et al., 2020) coloured by random / window / global"), QStringLiteral("pattern"), keptOverN(bigBirdByComponent()), nullptr},
        {QStringLiteral("sparse-transformer-heads"), QT_TRANSLATE_NOOP("ModelPresets", "Sparse Transformer (Child et al., 2019) factorised: A(1) band, A(2) strided columns"), QStringLiteral("pattern"), keptOverN(sparseTransformerHeads()), nullptr},
        };
        for (FigurePreset& preset : gridFigurePresets()) all.push_back(std::move(preset));
        return all;
    }();
    return presets;
}

const FigurePreset& firstRunPreset() { return figurePresets().front(); }

const FigurePreset* findFigurePreset(const std::string& id) {
    for (const FigurePreset& preset : figurePresets())
        if (preset.id.toStdString() == id) return &preset;
    return nullptr;
}

LabSettings presetSettingsAt(const FigurePreset& preset, std::int64_t n) {
    if (preset.atLength) return preset.atLength(n);
    LabSettings settings = preset.settings;
    settings.n = n;
    return settings;
}

} // namespace attnlab
