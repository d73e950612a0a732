#pragma once

#include "core/variant.h"

#include <string>
#include <vector>

namespace attnlab {

// The one list of attention variants. The command line, the GUI, the cost model and the tests all
// read it; a variant is one file under core/variants/ plus its entry in registry.cpp.
const std::vector<VariantInfo>& allVariants();

// nullptr when the id is unknown.
const VariantInfo* findVariant(const std::string& id);

// Like findVariant but throws InputError listing the known ids.
const VariantInfo& requireVariant(const std::string& id);

// The one-line refusal of `causal` for a variant that has no such form (e.g. xl without --causal,
// linformer with it), or empty when the variant supports it.
std::string causalSupportProblem(const VariantInfo& variant, bool causal);
// The one-line refusal of shape.queries (queries that are not the whole sequence) for a variant that
// does not take them or a count outside [1, n], or empty.
std::string queryRowsProblem(const VariantInfo& variant, const ProblemShape& shape);
// Whether the variant has a form for that causal choice (causalSupportProblem is empty).
bool hasCausalForm(const VariantInfo& variant, bool causal);

// Resolves parameters and checks the causal flag and cross-parameter rules for one problem.
// Throws InputError with a one-line message.
ParamSet prepareParams(const VariantInfo& variant, const ProblemShape& shape, const ParamOverrides& overrides);

// A variant resolved for one problem: its registry entry, the shape and the parameters prepareParams
// resolved for that shape. Built once where a request enters (a view's panel, a sweep point, a command)
// and passed down, so nothing below looks the id up or resolves the parameters again.
struct ResolvedVariant {
    const VariantInfo* variant = nullptr; // never null in a value resolveVariant returned
    ProblemShape shape;
    ParamSet params;
};

// prepareParams for `shape`, kept with the variant and the shape. Throws InputError.
ResolvedVariant resolveVariant(const VariantInfo& variant, const ProblemShape& shape, const ParamOverrides& overrides);

// Builds the pattern of `variant` for `shape` (inputs only for data-dependent patterns): its last
// shape.queryRows() rows (core/patterns/query_rows.h), all n when shape.queries is unset.
std::unique_ptr<Pattern> buildPattern(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params,
                                      const AttentionInputs* inputs = nullptr, int head = 0);

// The same pattern with each allowed cell labelled by its component.
std::unique_ptr<PatternComponents> buildComponents(const VariantInfo& variant, const ProblemShape& shape,
                                                   const ParamSet& params, const AttentionInputs* inputs = nullptr,
                                                   int head = 0);

} // namespace attnlab
