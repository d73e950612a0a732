#pragma once

#include "views/lab_settings.h"

#include "core/tensor.h"
#include "core/variant.h"

#include <QString>

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

// Head `head` of a [h, rows, cols] tensor as a one-head tensor.
Tensor3 headSlice(const Tensor3& tensor, int head);

} // namespace attnlab
