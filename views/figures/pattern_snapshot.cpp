#include "views/figures/pattern_snapshot.h"
#include "views/i18n/language.h"

#include "views/plot/colormap.h"
#include "views/jobs/job_runner.h"
#include "views/figures/view_inputs.h"

#include "core/errors.h"
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

QImage weightsImageOf(const std::vector<float>& weights, std::int64_t n, float maxWeight) {
    QImage image(static_cast<int>(n), static_cast<int>(n), QImage::Format_RGB32);
    for (std::int64_t i = 0; i < n; ++i) {
        auto* line = reinterpret_cast<QRgb*>(image.scanLine(static_cast<int>(i)));
        for (std::int64_t j = 0; j < n; ++j) {
            // An exact zero is outside the pattern: drawn as background, like a masked cell.
            const float w = weights[i * n + j];
            line[j] = w == 0.0f ? emptyCellColor() : viridis(maxWeight > 0 ? std::sqrt(w / maxWeight) : 0.0);
        }
    }
    return image;
}

void computeWeights(PatternPanel& panel, const VariantInfo& variant, const ProblemInputs& inputs, const ParamSet& params,
                    int head, const CancelCheck& cancelled) {
    const Tensor3 q = headSlice(inputs.q, head), k = headSlice(inputs.k, head), v = headSlice(inputs.v, head);
    RunOptions options;
    options.causal = inputs.shape.causal;
    options.params = params;
    options.threads = JobRunner::kernelThreads();
    options.wantWeights = true;
    options.cancelled = cancelled;
    const bool needsKeys = !variant.needsKeys || variant.needsKeys(params);
    RunResult result = variant.run(AttentionInputs{&q, needsKeys ? &k : nullptr, &v}, options);
    if (result.cancelled || !result.weights) return;
    auto weights = std::make_shared<std::vector<float>>(std::move(result.weights->values));
    panel.maxWeight = weights->empty() ? 0.0f : *std::max_element(weights->begin(), weights->end());
    panel.weightsImage = weightsImageOf(*weights, inputs.shape.n, panel.maxWeight);
    panel.weights = std::move(weights);
}

PatternPanel buildPanel(const LabSettings& settings, const VariantChoice& choice, const std::optional<ProblemInputs>& inputs,
                              const CancelCheck& cancelled) {
    PatternPanel panel;
    panel.choice = choice;
    panel.name = QString::fromStdString(choice.variant);
    try {
        const VariantInfo& variant = requireVariant(choice.variant);
        panel.name = coreText(variant.displayName);
        panel.hasMask = variant.hasMask;
        ViewPattern built = buildViewPattern(settings, choice, inputs ? &*inputs : nullptr);
        const ProblemShape& shape = built.shape;
        const ParamSet& params = built.params;
        panel.n = shape.n;
        panel.pattern = std::move(built.pattern);
        panel.nnz = panel.pattern->nnz();
        panel.coreMacs = sumTerms(variant.cost(shape, params));
        const VariantInfo& full = requireVariant("full");
        ProblemShape fullShape = shape;
        fullShape.causal = false;
        panel.fullMacs = sumTerms(full.cost(fullShape, prepareParams(full, fullShape, {})));
        if (!settings.showWeights) return panel;
        if (shape.n > kMaxPatternWeightsN)
            panel.weightsNote = QCoreApplication::translate("attnlab::PatternView", "weights need an n × n matrix: shown for n ≤ %1").arg(kMaxPatternWeightsN);
        else if (inputs)
            computeWeights(panel, variant, *inputs, params, settings.head, cancelled);
    } catch (const std::exception& error) {
        panel.error = QString::fromStdString(error.what());
        panel.pattern.reset();
    }
    return panel;
}

bool needsInputs(const LabSettings& settings) {
    for (const auto& choice : chosenVariants(settings)) {
        const VariantInfo* variant = findVariant(choice.variant);
        if (variant && variant->dataDependentPattern) return true;
    }
    return settings.source == InputSource::NpyFiles || (settings.showWeights && settings.n <= kMaxPatternWeightsN);
}

} // namespace

PatternSnapshot buildPatternSnapshot(const LabSettings& settings, const CancelCheck& cancelled) {
    PatternSnapshot snapshot;
    snapshot.settings = settings;
    snapshot.n = settings.n;
    std::optional<ProblemInputs> inputs;
    QString inputError;
    if (needsInputs(settings)) {
        try {
            inputs = loadInputs(settings, requireVariant(chosenVariants(settings).front().variant));
            snapshot.n = inputs->shape.n;
            snapshot.note = inputs->note;
        } catch (const std::exception& error) {
            inputError = QString::fromStdString(error.what());
        }
    }
    for (const auto& choice : chosenVariants(settings)) {
        if (cancelled()) break;
        PatternPanel panel = buildPanel(settings, choice, inputs, cancelled);
        if (!inputError.isEmpty() && panel.error.isEmpty() && settings.source == InputSource::NpyFiles) panel.error = inputError;
        snapshot.panels.push_back(std::move(panel));
    }
    return snapshot;
}

PatternTile buildPatternTile(const Pattern& pattern, const PlaneRegion& region, int width, int height, bool withVeil) {
    const DensityImage density = regionDensity(pattern, region, QSize(width, height));
    PatternTile tile{region, width, height, densityColorImage(density), QImage()};
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
