#pragma once

#include "core/registry.h"

#include <QString>

#include <optional>
#include <vector>

namespace attnlab {

// The component legend of Longformer and BigBird as their papers' figures name the parts, with the
// parameters that shape them in the papers' notation, at index k − 1 for component k: "sliding window
// (w = 8)", "dilated sliding window (w = 8, δ = 2)", "global (g = 2)", "random (r = 3)"; a window of
// radius ⌊w/2⌋ = 0 is the diagonal alone, "self". nullopt for the other variants, whose legends name
// their components and terms (componentTexts).
std::optional<std::vector<QString>> paperComponentTexts(const ResolvedVariant& resolved);

} // namespace attnlab
