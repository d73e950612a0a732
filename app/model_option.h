#pragma once

// --model NAME for cost, bench and figure: a known model's shape (core/analysis/model_shapes.h) as the
// defaults of the shape options, which still override it when given.

#include "app/cli_args.h"

#include "core/analysis/model_shapes.h"

#include <optional>

namespace attnlab {

// The model --model names; nothing without the option. Throws InputError for an unknown name (and for
// "list": callers print modelShapesListing() first, see listsModels).
const ModelShape* modelOption(const CliArgs& cli);

// True when the arguments ask for --model list (the caller prints the models and exits 0).
bool listsModels(const std::vector<std::string>& args);

// The model's own attention when --variant is not given: full attention, or for a sliding window of w keys
// longformer with window 2(w − 1) (itself and the w − 1 keys before it).
std::pair<std::string, ParamOverrides> modelAttention(const ModelShape& model);

} // namespace attnlab
