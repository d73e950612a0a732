#include "views/figures/figure_limits.h"

#include "core/cost/job_limits.h"
#include "core/errors.h"
#include "core/registry.h"

namespace attnlab {

void requireFigureLimits(const QString& view, const LabSettings& settings) {
    if (view ==
        QStringLiteral("accuracy")) { // every panel compares with exact attention at the settings' shape
        const VariantInfo& full = requireVariant("full");
        const ProblemShape shape = problemShape(settings, full);
        requireRunLimits(full, shape, prepareParams(full, shape, {}), settings.accuracyOnWeights);
    }
    if (view != QStringLiteral("pattern") && view != QStringLiteral("reach")) return;
    for (const VariantChoice& choice : chosenVariants(settings)) {
        const VariantInfo& variant = requireVariant(choice.variant);
        if (leftOutOfComparison(settings, variant)) continue;
        ProblemShape shape = problemShape(settings, variant);
        ParamSet params;
        try {
            params = prepareParams(variant, shape, choice.params);
        } catch (const InputError&) {
            continue; // the panel names the problem
        }
        requirePatternBuildLimits(variant, shape, params);
        if (view != QStringLiteral("pattern") || !settings.showWeights) continue;
        shape.heads = shape.kvHeads = 1;
        requireRunLimits(variant, shape, params, true);
    }
}

} // namespace attnlab
