#pragma once

#include "core/analysis/lab_settings.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

// One compare panel as written on the command line and in the app's per-panel field:
//   "VARIANT [KEY=VALUE]... [order=ORDER] [title=TEXT]"
// where order= gives the panel its own token order on the grid (the text --order takes).
// e.g. "longformer window=8 dilation=2 title=(c) dilated sliding window". Whitespace separates the items;
// the value of a string parameter (custom's expression) runs up to the next " KEY=" item, so it may hold
// spaces and '|'; "title=" takes the rest of the text, trimmed. Expressions never contain '=', so the split
// is unambiguous. The former "| TITLE" form is refused: '|' belongs to expressions.
struct PanelSpec {
    VariantChoice choice;
    std::string title; // empty: the panel shows the variant's name
};

// Throws InputError (one line, without a command prefix) for an unknown variant, a key the variant does
// not have, a key given twice, an item that is not KEY=VALUE, an empty title or a '|' outside a string
// value. Values are checked later, against the shape (settingsProblem).
PanelSpec parsePanelSpec(const std::string& text);

// "longformer window=8 dilation=2": the variant and its overrides in key order, then its order= (no title).
std::string formatPanelParams(const VariantChoice& choice);

// The key that gives a panel its title ("title"); no variant has a parameter of that name.
inline constexpr const char* kPanelTitleKey = "title";
// The key that gives a panel its own token order ("order"); no variant has a parameter of that name.
inline constexpr const char* kPanelOrderKey = "order";

// Non-empty when the settings came from a preset that keeps its parameters whatever n is and n is no
// longer the n they were chosen for: one line saying so.
std::string presetLengthNote(const LabSettings& settings);

// Whitespace-separated tokens of `text` (token labels of the pattern and weights views).
std::vector<std::string> splitTokens(const std::string& text);

// The labels of n positions taken from `text`: its tokens when there are exactly n, else none (the axes
// and the CSV then show indices).
std::vector<std::string> axisTokens(const std::string& text, std::int64_t n);

} // namespace attnlab
