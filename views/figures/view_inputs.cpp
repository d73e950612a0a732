#include "views/figures/view_inputs.h"

#include "views/i18n/language.h"

#include "core/cost/job_limits.h"
#include "core/errors.h"
#include "core/io/input_files.h"
#include "core/jobs/memory_budget.h"
#include "core/random/input_generator.h"
#include "core/registry.h"

#include <QCoreApplication>
#include <algorithm>

namespace attnlab {

QString causalFormProblem(const VariantInfo& variant, bool causal) {
    if (hasCausalForm(variant, causal)) return {};
    const QString name = coreText(variant.displayName);
    if (causal)
        return QCoreApplication::translate("ViewInputs",
                                           "%1 is bidirectional only: it has no causal form, so it is not drawn for causal attention")
            .arg(name);
    return QCoreApplication::translate("ViewInputs",
                                       "%1 is causal only: it has no bidirectional form, so it is not drawn without causal")
        .arg(name);
}

QString compareCausalProblem(const LabSettings& settings, const VariantInfo& variant) {
    return leftOutOfComparison(settings, variant) ? causalFormProblem(variant, settings.causal) : QString();
}

ProblemInputs loadInputs(const LabSettings& settings, const VariantInfo& variant) {
    ProblemInputs inputs;
    inputs.shape = problemShape(settings, variant);
    if (settings.source == InputSource::NpyFiles) {
        InputFiles files = readInputFiles(settings.qPath, settings.kPath, settings.vPath);
        inputs.shape.heads = files.q.heads;
        inputs.shape.setLength(files.q.rows);
        inputs.shape.d = files.q.cols;
        inputs.shape.dv = files.v.empty() ? files.q.cols : files.v.cols;
        if (files.v.empty()) files.v = files.q;
        if (!files.hasKeys) files.k = files.q;
        inputs.shape.kvHeads = files.k.heads;
        inputs.q = std::move(files.q);
        inputs.k = std::move(files.k);
        inputs.v = std::move(files.v);
        inputs.note = QCoreApplication::translate("attnlab::FigureView", "shape from the NPY files: h=%1, n=%2, d=%3")
                          .arg(inputs.shape.heads).arg(inputs.shape.n).arg(inputs.shape.d);
        return inputs;
    }
    const double values = static_cast<double>(inputs.shape.n) *
                          static_cast<double>(inputs.shape.heads * inputs.shape.d +
                                              inputs.shape.keyValueHeads() * (inputs.shape.d + inputs.shape.dv));
    requireMemory(values * sizeof(float), "the generated Q, K, V");
    const auto kind = settings.source == InputSource::RandomGaussian ? GeneratedKind::Gaussian : GeneratedKind::LocalSimilarity;
    GeneratedInputs generated = generateInputs(kind, inputs.shape.heads, inputs.shape.n, inputs.shape.d, inputs.shape.dv,
                                               settings.inputSeed, inputs.shape.keyValueHeads());
    inputs.q = std::move(generated.q);
    inputs.k = std::move(generated.k);
    inputs.v = std::move(generated.v);
    return inputs;
}

std::vector<const VariantInfo*> chosenVariantInfos(const std::vector<VariantChoice>& choices) {
    std::vector<const VariantInfo*> variants;
    for (const VariantChoice& choice : choices) variants.push_back(findVariant(choice.variant));
    return variants;
}

ResolvedVariant resolveViewVariant(const LabSettings& settings, const VariantInfo& variant, const ParamOverrides& overrides,
                                   const ProblemInputs* inputs) {
    const ProblemShape asked = problemShape(settings, variant);
    ProblemShape shape = inputs ? inputs->shape : asked;
    shape.causal = asked.causal;
    if (asked.grid && asked.grid->cells() == shape.n) shape.grid = asked.grid; // a panel's own order
    if (settings.head < 0 || settings.head >= shape.heads)
        throw InputError("head " + std::to_string(settings.head) + " is out of range [0, " + std::to_string(shape.heads - 1) + "]");
    return resolveVariant(variant, shape, overrides);
}

ViewPattern buildViewPattern(const ResolvedVariant& resolved, int head, const ProblemInputs* inputs, bool withComponents) {
    const VariantInfo& variant = *resolved.variant;
    requirePatternBuildLimits(variant, resolved.shape, resolved.params);
    AttentionInputs data;
    if (variant.dataDependentPattern) {
        if (!inputs) throw InputError("the pattern of '" + variant.id + "' depends on the data, which is missing");
        data = AttentionInputs{&inputs->q, &inputs->k, &inputs->v};
    }
    const AttentionInputs* dataUsed = variant.dataDependentPattern ? &data : nullptr;
    ViewPattern result;
    if (withComponents)
        result.components = buildComponents(variant, resolved.shape, resolved.params, dataUsed, head);
    else
        result.pattern = buildPattern(variant, resolved.shape, resolved.params, dataUsed, head);
    return result;
}

Tensor3 headSlice(const Tensor3& tensor, int head) {
    Tensor3 slice(1, tensor.rows, tensor.cols);
    std::copy(tensor.head(head), tensor.head(head) + tensor.headStride(), slice.values.begin());
    return slice;
}

} // namespace attnlab
