#pragma once

// Building blocks shared by the variant files: parameter declarations, the patterns' cost terms and
// the per-head pattern list. Nothing here is specific to one variant.

#include "core/errors.h"
#include "core/kernels/masked_attention.h"
#include "core/variant.h"

#include <cmath>
#include <cstdint>
#include <optional>
#include <string>

namespace attnlab {

inline std::int64_t ceilSqrt(std::int64_t n) {
    auto r = static_cast<std::int64_t>(std::sqrt(static_cast<double>(n)));
    while (r * r < n) ++r;
    while (r > 0 && (r - 1) * (r - 1) >= n) --r;
    return r;
}

using IntegerDefault = std::function<std::int64_t(const ShapeContext&, const ParamSet&)>;

ParamSpec integerParam(std::string key, std::string description, std::string defaultText, IntegerDefault value,
                       std::int64_t minValue, std::string rangeText);
ParamSpec seedParam();
ParamSpec choiceParam(std::string key, std::string description, std::vector<std::string> choices,
                      std::string defaultChoice);
ParamSpec boolParam(std::string key, std::string description, bool defaultValue);

// Allowed pairs per head of the all-pairs pattern (n² or n(n+1)/2 when causal), over the query rows of
// the shape (m·n, or Σ of n − m + 1 … n when causal).
double fullPairs(const ProblemShape& shape);

// Bytes of the row-range kernel's scratch: a row of weights and an accumulator per thread (2 assumed).
double rowKernelWorkspace(const ProblemShape& shape, double longestRow);

// The rows a plan splits along their keys (PassSpec::splitRows): how many, and one past the last
// position they see.
struct SplitRowsExtent {
    std::int64_t rows = 0;
    std::int64_t seen = 0;
};
// Bytes of the block kernel's partial results of split rows, for every head (0 when they are not split).
double splitRowsWorkspace(const ProblemShape& shape, const SplitRowsExtent& split);

// The pattern "W may be non-zero": all pairs, or j ≤ i when causal (variants with no mask).
std::unique_ptr<Pattern> allPairsPattern(std::int64_t n, bool causal);

// The block plan of allPairsPattern, kept between runs (full's tiled kernel, relu2).
std::shared_ptr<const BlockPlan> allPairsPlan(std::int64_t n, bool causal);

} // namespace attnlab

namespace attnlab {

using PatternFunction = std::function<std::unique_ptr<Pattern>(const PatternRequest&)>;
using PlanFunction = std::function<std::shared_ptr<const BlockPlan>(const PatternRequest&)>;

// The run entry point of a softmax variant whose allowed set is its own pattern entry point:
// s_ij = q_i·k_j / sqrt(d) over the pattern, one pattern shared by all heads. The fast path runs
// `plan` (VariantInfo::plan) when given, else the generic plan of the pattern built for the call;
// the reference path always reads the pattern.
std::function<RunResult(const AttentionInputs&, const RunOptions&)> softmaxOverPattern(PatternFunction pattern,
                                                                                       PlanFunction plan = {});

// runPlannedAttention on `plan`, then any row that came out non-finite computed again in double over
// the query rows of `pattern` for the request (redoNonFiniteRows, core/kernels/masked_attention.h).
RunResult runPlannedOverPattern(const AttentionInputs& inputs, std::shared_ptr<const BlockPlan> plan,
                                const PatternFunction& pattern, const PatternRequest& request,
                                const MaskedScoring& scoring, const RunOptions& options);

// The last shape.queryRows() rows of `pattern` for the request, as the one pattern of every head.
HeadPatterns queryRowsPattern(const PatternFunction& pattern, const PatternRequest& request);

// A plan entry point that builds the generic plan of `pattern` once per (kind, n, causal, parameters,
// grid and order) and keeps it (core/kernels/block_plan.h: cachedPlan); on a grid, the tile plan
// instead when it computes fewer cells (core/kernels/grid_plan.h).
PlanFunction cachedGenericPlan(std::string kind, PatternFunction pattern);

} // namespace attnlab

namespace attnlab {

// Number of j in [lo, hi] with j ≡ residue (mod period); 0 when lo > hi.
std::int64_t countCongruent(std::int64_t lo, std::int64_t hi, std::int64_t residue, std::int64_t period);

// Cost entry point of a softmax pattern variant: the masked core over the pattern's nnz, workspace of
// the row kernel sized by the longest row and the partial results of the rows its plan splits: those
// `planSplit` names, or, without it or where it answers nullopt, the generic plan's heavy rows.
using PlanSplitFunction = std::function<std::optional<SplitRowsExtent>(const ProblemShape&, const ParamSet&)>;
// For variants whose own plans split no rows.
inline std::optional<SplitRowsExtent> splitsNoRows(const ProblemShape&, const ParamSet&) { return SplitRowsExtent{}; }
std::function<CoreCost(const ProblemShape&, const ParamSet&)> softmaxPatternCost(PatternFunction pattern,
                                                                                 PlanSplitFunction planSplit = {});

} // namespace attnlab

namespace attnlab {

// Its block plan, kept between runs (chunk, and mixed_chunk's local part).
std::shared_ptr<const BlockPlan> blockLocalPlan(std::int64_t n, std::int64_t c, bool causal);

} // namespace attnlab

namespace attnlab {

using ExpressionFunction = std::function<std::string(const PatternRequest&)>;
using ComponentsFunction = std::function<std::unique_ptr<PatternComponents>(const PatternRequest&)>;

// "t1 | t2 | …", each term followed by "& causal" when causal (so the expression gives the same pattern
// whether or not `custom` is run causally). Throws InputError when longer than the language allows.
std::string termsExpression(const std::vector<std::string>& terms, bool causal);

// Components of a pattern variant that prints an expression: its own pattern, labelled by the printed
// expression's top-level terms (one evaluation path with the `custom` variant).
ComponentsFunction componentsFromExpression(PatternFunction pattern, ExpressionFunction print);

// Every allowed cell is component 1 (full attention and the variants without a mask).
ComponentsFunction oneComponent(PatternFunction pattern);

} // namespace attnlab
