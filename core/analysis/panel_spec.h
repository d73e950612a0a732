#pragma once

#include "core/analysis/lab_settings.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

// One compare panel as written on the command line and in the app's per-panel field:
//   "VARIANT [KEY=VALUE]... [| TITLE]"
// e.g. "longformer window=8 dilation=2 | (c) dilated sliding window". Whitespace separates the items;
// the title is everything after the first '|', trimmed.
struct PanelSpec {
    VariantChoice choice;
    std::string title; // empty: the panel shows the variant's name
};

// Throws InputError (one line, without a command prefix) for an unknown variant, a key the variant does
// not have, a key given twice or an item that is not KEY=VALUE. Values are checked later, against the
// shape (settingsProblem).
PanelSpec parsePanelSpec(const std::string& text);

// "longformer window=8 dilation=2": the variant and its overrides in key order (no title).
std::string formatPanelParams(const VariantChoice& choice);

// Non-empty when the settings came from a preset that keeps its parameters whatever n is and n is no
// longer the n they were chosen for: one line saying so.
std::string presetLengthNote(const LabSettings& settings);

// Whitespace-separated tokens of `text` (token labels of the pattern and weights views).
std::vector<std::string> splitTokens(const std::string& text);

// The labels of n positions taken from `text`: its tokens when there are exactly n, else none (the axes
// and the CSV then show indices).
std::vector<std::string> axisTokens(const std::string& text, std::int64_t n);

} // namespace attnlab
