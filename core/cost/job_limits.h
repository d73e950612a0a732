#pragma once

#include "core/decode/kv_cache.h"
#include "core/variant.h"

#include <optional>
#include <string>

namespace attnlab {

// The multiply-adds one job may plan (the attention core's cost-model MACs): the value given to
// setJobWorkLimit (the command line's --max-macs), else ATTNLAB_MAX_MACS, else kDefaultMaxMacs (about
// a minute of this kind of machine's peak; the dense reference path is several times slower).
// Bounds what the memory budget cannot: lsh with a huge `rounds`, impl=dense at n = 10^6.
constexpr double kDefaultMaxMacs = 1e13;
double jobWorkLimit();
void setJobWorkLimit(std::optional<double> macs);

// Throws InputError when `macs` exceeds the work limit, saying the limit and how to raise it.
void requireWork(double macs, const std::string& what);

// Every limit of one run of `variant` at `shape`, checked before anything is allocated: memory
// (inputs, out, weights if asked, the kernel's workspace) against the job budget, and the core's
// MACs against the work limit. Shared by run, bench and the GUI's jobs.
void requireRunLimits(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params, bool withWeights);

// Limits of one decoding step of `variant` at context n (bench --decode, the Inference view): the generated
// float32 context (K and V, and Q's new row or every row where the step reads them all), the cache the step
// keeps in `kvDtype` (the retained keys and values, rows padded to whole vectors), its state and workspace
// (lsh: its rotations) against the job budget, the step's multiply-adds against the work limit.
void requireDecodeLimits(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params,
                         KvDtype kvDtype = KvDtype::F32);

// Limits of building the variant's pattern at `shape` (a figure's panel): its work (lsh hashing) and, for
// a data-dependent pattern, the kernel's workspace (lsh: rotations and buckets, which grow with rounds).
void requirePatternBuildLimits(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params);

// Limits of `pattern`: the dense n × n mask (and its copy while writing) and requirePatternBuildLimits.
void requirePatternLimits(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params);

} // namespace attnlab
