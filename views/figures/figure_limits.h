#pragma once

#include "core/analysis/lab_settings.h"

#include <QString>

namespace attnlab {

// The budgets of the jobs the view named `view` ("pattern", "reach", …) will start for `settings`,
// checked before any starts, so that a job over a budget ends a command with one line and exit 2 (and an
// animation before its first frame) rather than a figure drawing the refusal: each chosen variant's
// pattern (pattern and reach views) and, with weights, its run on one head; exact attention (accuracy
// view). Throws InputError.
void requireFigureLimits(const QString& view, const LabSettings& settings);

} // namespace attnlab
