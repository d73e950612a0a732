#pragma once

#include "core/analysis/lab_settings.h"

#include "core/param_schema.h"
#include "core/patterns/pattern.h"
#include "core/patterns/pattern_components.h"
#include "core/tensor.h"
#include "core/registry.h"
#include "core/variant.h"

#include <QString>

#include <memory>
#include <vector>

namespace attnlab {

// The Q, K, V every per-input view works on: generated from the settings (source, seed, heads, n, d)
// or read from the NPY files, whose shape then replaces the settings' h, n, d.
struct ProblemInputs {
    Tensor3 q, k, v;     // [h, n, d], [h, n, d], [h, n, dv]; K is a copy of Q when the files have none
    ProblemShape shape;  // problemShape(settings, variant) with the files' sizes
    QString note;        // e.g. "shape from the NPY files: …"; empty for generated inputs
};

// Throws InputError when the files cannot be read.
ProblemInputs loadInputs(const LabSettings& settings, const VariantInfo& variant);

// Each choice's registry entry, looked up once per snapshot; null for an unknown id (its panel then
// reports requireVariant's error, which names the known ids).
std::vector<const VariantInfo*> chosenVariantInfos(const std::vector<VariantChoice>& choices);

// One variant as every view shows it, resolved once per panel: the inputs' shape (the files' sizes when
// they are the source, else the settings') under the variant's causal rule, and the parameters of
// `overrides` for that shape. Throws InputError, also for a settings.head outside the shape's heads.
ResolvedVariant resolveViewVariant(const LabSettings& settings, const VariantInfo& variant, const ParamOverrides& overrides,
                                   const ProblemInputs* inputs);

// The pattern of head `head` of a resolved variant; data-dependent patterns (lsh) are built from `inputs`.
// Throws InputError. With `withComponents` the pattern comes labelled by its components (`components`
// set, `pattern` null).
struct ViewPattern {
    std::unique_ptr<Pattern> pattern;
    std::unique_ptr<PatternComponents> components;
};
ViewPattern buildViewPattern(const ResolvedVariant& resolved, int head, const ProblemInputs* inputs, bool withComponents = false);

// The sentence a figure shows where it leaves out a variant that has no form for the causal choice
// asked (linformer with causal on, xl with it off); empty when the variant has that form.
QString causalFormProblem(const VariantInfo& variant, bool causal);

// In compare mode, that sentence for a variant left out of the comparison (leftOutOfComparison), shown
// instead of its panel or curve; empty otherwise. One variant alone is drawn as it can be (the parameter
// panel forces its causal flag).
QString compareCausalProblem(const LabSettings& settings, const VariantInfo& variant);

// Head `head` of a [h, rows, cols] tensor as a one-head tensor.
Tensor3 headSlice(const Tensor3& tensor, int head);

} // namespace attnlab
