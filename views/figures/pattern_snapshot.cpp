#include "views/figures/pattern_snapshot.h"
#include "views/i18n/language.h"

#include "views/figures/paper_components.h"
#include "views/figures/view_inputs.h"
#include "views/jobs/job_runner.h"
#include "views/plot/colormap.h"
#include "views/plot/component_image.h"

#include "core/cost/job_limits.h"
#include "core/errors.h"
#include "core/patterns/pattern_expression.h"
#include "core/registry.h"

#include <QCoreApplication>

#include <algorithm>
#include <cmath>
#include <exception>
#include <optional>
#include <string>
#include <utility>

namespace attnlab {

namespace {

double sumTerms(const CoreCost& cost) {
    double total = 0;
    for (const auto& [name, macs] : cost.terms) total += macs;
    return total;
}

QImage weightsImageOf(const FloatStorage& weights, std::int64_t n, float minWeight, float maxWeight) {
    QImage image(static_cast<int>(n), static_cast<int>(n), QImage::Format_RGB32);
    const bool signedWeights = minWeight < 0;
    const double largest = std::max(std::abs(minWeight), std::abs(maxWeight));
    for (std::int64_t i = 0; i < n; ++i) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(static_cast<int>(i)));
        for (std::int64_t j = 0; j < n; ++j) {
            // An exact zero is outside the pattern: drawn as background, like a masked cell.
            const float w = weights[i * n + j];
            const double magnitude = largest > 0 ? std::sqrt(std::abs(w) / largest) : 0.0;
            line[j] = w == 0.0f     ? emptyCellColor()
                      : signedWeights ? divergingColor(w < 0 ? -magnitude : magnitude)
                                      : viridis(magnitude);
        }
    }
    return image;
}

void computeWeights(PatternPanel& panel, const ResolvedVariant& resolved, const ProblemInputs& inputs, int head,
                    const CancelCheck& cancelled) {
    const VariantInfo& variant = *resolved.variant;
    const ParamSet& params = resolved.params;
    ProblemShape oneHead = inputs.shape;
    oneHead.heads = 1;
    oneHead.kvHeads = 1;
    requireRunLimits(variant, oneHead, params, true);
    const Tensor3 q = headSlice(inputs.q, head), k = headSlice(inputs.k, head), v = headSlice(inputs.v, head);
    RunOptions options;
    options.causal = inputs.shape.causal;
    options.grid = inputs.shape.grid;
    options.params = params;
    options.threads = JobRunner::kernelThreads();
    options.wantWeights = true;
    options.cancelled = cancelled;
    const bool needsKeys = !variant.needsKeys || variant.needsKeys(params);
    RunResult result = variant.run(AttentionInputs{&q, needsKeys ? &k : nullptr, &v}, options);
    if (result.cancelled || !result.weights) return;
    auto weights = std::make_shared<FloatStorage>(std::move(result.weights->values));
    if (!weights->empty()) {
        const auto [lowest, highest] = std::minmax_element(weights->begin(), weights->end());
        panel.minWeight = *lowest;
        panel.maxWeight = *highest;
    }
    panel.weightsImage = weightsImageOf(*weights, inputs.shape.n, panel.minWeight, panel.maxWeight);
    panel.weights = std::move(weights);
}

// The pattern's nnz: counted with its blocks when there are blocks, which read every row's ranges already.
std::int64_t allowedCells(const Pattern& pattern, const PatternBlocks* blocks) {
    return blocks ? blocks->counts.allowedCells : pattern.nnz();
}

PatternPanel buildPanel(const LabSettings& settings, const VariantChoice& choice, const VariantInfo* known,
                        const std::optional<ProblemInputs>& inputs, const CancelCheck& cancelled) {
    PatternPanel panel;
    panel.choice = choice;
    panel.name = QString::fromStdString(choice.variant);
    try {
        const VariantInfo& variant = known ? *known : requireVariant(choice.variant); // throws, naming the known ids
        panel.name = coreText(variant.displayName);
        panel.hasMask = variant.hasMask;
        panel.error = compareCausalProblem(settings, variant);
        if (!panel.error.isEmpty()) return panel;
        const bool withComponents = settings.showComponents && !settings.showWeights;
        const ResolvedVariant resolved = resolveViewVariant(choiceSettings(settings, choice), variant, choice.params, inputs ? &*inputs : nullptr);
        ViewPattern built = buildViewPattern(resolved, settings.head, inputs ? &*inputs : nullptr, withComponents);
        const ProblemShape& shape = resolved.shape;
        panel.n = shape.n;
        panel.grid = shape.grid;
        if (built.components) {
            std::shared_ptr<const PatternComponents> components = std::move(built.components);
            panel.pattern = std::shared_ptr<const Pattern>(components, &components->pattern());
            panel.legend = componentLegendOf(*components, componentTexts(resolved));
            panel.components = std::move(components);
        } else {
            panel.pattern = std::move(built.pattern);
        }
        if (settings.blockView > 0) panel.blocks = buildPatternBlocks(*panel.pattern, settings.blockView);
        panel.nnz = allowedCells(*panel.pattern, panel.blocks.get());
        // With --queries the costs are those of the m query rows framed (the cost command's count).
        ProblemShape costShape = shape;
        if (settings.queries > 0 && settings.queries < shape.n) costShape.queries = settings.queries;
        const CoreCost cost = variant.cost(costShape, resolved.params);
        panel.coreMacs = sumTerms(cost);
        if (const auto relpos = cost.terms.find("relpos"); relpos != cost.terms.end()) panel.relativePositionMacs = relpos->second;
        const VariantInfo& full = requireVariant("full");
        const ProblemShape& fullShape = costShape;
        panel.causal = costShape.causal;
        panel.fullMacs = sumTerms(full.cost(fullShape, prepareParams(full, fullShape, {})));
        if (!settings.showWeights) return panel;
        if (shape.n > kMaxPatternWeightsN)
            panel.weightsNote = QCoreApplication::translate("attnlab::PatternView", "weights need an n × n matrix: shown for n ≤ %1").arg(kMaxPatternWeightsN);
        else if (inputs)
            computeWeights(panel, resolved, *inputs, settings.head, cancelled);
    } catch (const std::exception& error) {
        panel.error = QString::fromStdString(error.what());
        panel.pattern.reset();
        panel.components.reset();
    }
    return panel;
}

// The Sparse Transformer's factorisation: one panel per component of `whole` (A(1), A(2), ...), each
// drawn in its component's colour.
void appendSplitPanels(const PatternPanel& whole, std::int64_t blockView, std::vector<PatternPanel>& panels) {
    if (!whole.components) {
        panels.push_back(whole);
        return;
    }
    for (const auto& entry : whole.legend) {
        PatternPanel part;
        part.choice = whole.choice;
        part.hasMask = whole.hasMask;
        part.n = whole.n;
        part.grid = whole.grid;
        part.fullMacs = whole.fullMacs;
        part.causal = whole.causal;
        part.pattern = std::make_shared<ComponentPattern>(whole.components, entry.component, ComponentPattern::Cells::Own);
        if (blockView > 0) part.blocks = buildPatternBlocks(*part.pattern, blockView);
        part.nnz = allowedCells(*part.pattern, part.blocks.get());
        part.colour = entry.colour;
        part.legend = {entry};
        // A component's text is "name — expression" when it has both: the title names the head, the line
        // under it the variant and the expression, so neither is cut off in a narrow panel.
        const qsizetype dash = entry.text.indexOf(QStringLiteral(" — "));
        const QString name = dash < 0 ? entry.text : entry.text.left(dash);
        part.name = entry.component == kAddedDiagonal ? entry.text
                                                      : QCoreApplication::translate("PatternView", "A(%1): %2").arg(entry.component).arg(name);
        part.detail = dash < 0 ? whole.name : whole.name + QStringLiteral(" · ") + entry.text.mid(dash + 3);
        panels.push_back(std::move(part));
    }
}

bool needsInputs(const LabSettings& settings, const std::vector<const VariantInfo*>& variants) {
    for (const VariantInfo* variant : variants)
        if (variant && variant->dataDependentPattern) return true;
    return settings.source == InputSource::NpyFiles || (settings.showWeights && settings.n <= kMaxPatternWeightsN);
}

} // namespace

PatternSnapshot buildPatternSnapshot(const LabSettings& settings, const CancelCheck& cancelled) {
    PatternSnapshot snapshot;
    snapshot.settings = settings;
    snapshot.n = settings.n;
    std::optional<ProblemInputs> inputs;
    QString inputError;
    const std::vector<VariantChoice> choices = chosenVariants(settings);
    const std::vector<const VariantInfo*> variants = chosenVariantInfos(choices);
    if (needsInputs(settings, variants)) {
        try {
            inputs = loadInputs(settings, variants.front() ? *variants.front() : requireVariant(choices.front().variant));
            snapshot.n = inputs->shape.n;
            snapshot.note = inputs->note;
        } catch (const std::exception& error) {
            inputError = QString::fromStdString(error.what());
        }
    }
    LabSettings panelSettings = settings;
    panelSettings.showComponents = settings.showComponents || settings.splitComponents;
    for (std::size_t index = 0; index < choices.size(); ++index) {
        if (cancelled()) break;
        PatternPanel panel = buildPanel(panelSettings, choices[index], variants[index], inputs, cancelled);
        if (index < settings.panelTitles.size() && !settings.panelTitles[index].empty())
            panel.title = QString::fromStdString(settings.panelTitles[index]);
        if (!inputError.isEmpty() && panel.error.isEmpty() && settings.source == InputSource::NpyFiles) panel.error = inputError;
        if (settings.splitComponents && !settings.showWeights)
            appendSplitPanels(panel, settings.blockView, snapshot.panels);
        else
            snapshot.panels.push_back(std::move(panel));
    }
    snapshot.grid = settingsGrid(settings);
    if (snapshot.grid && snapshot.grid->cells() == snapshot.n) {
        snapshot.query = gridQueryOf(settings, *snapshot.grid);
        for (PatternPanel& panel : snapshot.panels)
            if (panel.pattern) panel.picture = std::make_shared<const GridPicture>(panelGridPicture(panel, *snapshot.grid, snapshot.query));
    } else {
        snapshot.grid.reset();
    }
    return snapshot;
}

std::vector<ComponentLegendEntry> componentLegendOf(const PatternComponents& components, const std::vector<QString>& texts) {
    std::vector<ComponentLegendEntry> legend;
    for (const std::uint8_t k : occurringComponents(components)) {
        QString text = k == kAddedDiagonal
                           ? QCoreApplication::translate("PatternView", "diagonal added to an empty row")
                       : k <= texts.size() ? texts[k - 1u]
                                           : QCoreApplication::translate("PatternView", "component %1").arg(k);
        legend.push_back({k, componentColor(k), text});
    }
    return legend;
}

GridPicture panelGridPicture(const PatternPanel& panel, const TokenGrid& grid, std::int64_t query) {
    const TokenGrid& own = panel.grid ? *panel.grid : grid;
    return buildGridPicture(*panel.pattern, panel.components.get(), panel.colour, own, panel.ownPosition(grid, query));
}

std::vector<QString> componentTexts(const ResolvedVariant& resolved) {
    const VariantInfo& variant = *resolved.variant;
    const ParamSet& params = resolved.params;
    std::vector<QString> texts;
    if (variant.id == "custom") {
        for (const auto& term : expressionTermTexts(params.text("expr"))) texts.push_back(QString::fromStdString(term));
        return texts;
    }
    if (auto paper = paperComponentTexts(resolved)) return *paper;
    std::vector<std::string> terms;
    if (variant.printExpr) {
        PatternRequest request;
        request.shape = resolved.shape;
        request.params = &params;
        terms = expressionTermTexts(variant.printExpr(request));
    }
    const std::size_t count = std::max(terms.size(), variant.componentNames.size());
    for (std::size_t k = 0; k < count; ++k) {
        const bool named = k < variant.componentNames.size(), printed = k < terms.size();
        const QString name = named ? coreText(variant.componentNames[k]) : QString();
        const QString term = QString::fromStdString(printed ? terms[k] : std::string());
        texts.push_back(named && printed ? QStringLiteral("%1 — %2").arg(name, term) : named ? name : term);
    }
    return texts;
}

PatternTile buildPatternTile(const PatternPanel& panel, const PlaneRegion& region, std::int64_t block, bool withVeil) {
    const DensityImage density = regionDensity(*panel.pattern, region, block, JobRunner::kernelThreads());
    const int width = density.width, height = density.height;
    const PlaneRegion drawn = blocksRegion(region, density, block);
    // Component images bin the same whole blocks as the density image, so both show the same cells.
    if (panel.components && !withVeil)
        return {region, drawn, block, width, height, componentColorImage(*panel.components, drawn, width, height), QImage()};
    if (panel.colour && !withVeil)
        return {region, drawn, block, width, height, singleColorImage(*panel.pattern, drawn, width, height, *panel.colour), QImage()};
    PatternTile tile{region, drawn, block, width, height, densityColorImage(density), QImage()};
    if (!withVeil) return tile;
    tile.veil = QImage(width, height, QImage::Format_ARGB32_Premultiplied);
    for (int y = 0; y < height; ++y) {
        auto* veilLine = reinterpret_cast<QRgb*>(tile.veil.scanLine(y));
        for (int x = 0; x < width; ++x) {
            const float value = density.density[static_cast<std::size_t>(y) * width + x];
            veilLine[x] = qPremultiply(qRgba(255, 255, 255, static_cast<int>(std::lround((1.0f - value) * 190))));
        }
    }
    return tile;
}

} // namespace attnlab
