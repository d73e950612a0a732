#include "core/cost/job_limits.h"

#include "core/cost/cost_model.h"
#include "core/decode/decode.h"
#include "core/errors.h"
#include "core/jobs/memory_budget.h"

#include <cstdio>
#include <cstdlib>

namespace attnlab {

namespace {

std::optional<double> g_workOverride;

std::string describeJob(const VariantInfo& variant, const ProblemShape& shape) {
    return "variant '" + variant.id + "' at h=" + std::to_string(shape.heads) + ", n=" + std::to_string(shape.n) +
           ", d=" + std::to_string(shape.d);
}

double coreMacs(const CoreCost& cost) {
    double macs = 0;
    for (const auto& [name, value] : cost.terms) macs += value;
    return macs;
}

} // namespace

void setJobWorkLimit(std::optional<double> macs) { g_workOverride = macs; }

double jobWorkLimit() {
    if (g_workOverride) return *g_workOverride;
    if (const char* env = std::getenv("ATTNLAB_MAX_MACS")) {
        char* end = nullptr;
        const double macs = std::strtod(env, &end);
        if (end == env || *end != '\0' || !(macs > 0))
            throw InputError(std::string("ATTNLAB_MAX_MACS = '") + env + "' is not a positive number (e.g. 1e14)");
        return macs;
    }
    return kDefaultMaxMacs;
}

void requireWork(double macs, const std::string& what) {
    const double limit = jobWorkLimit();
    if (macs <= limit) return;
    char text[160];
    std::snprintf(text, sizeof text, " needs %.3g multiply-adds, over the work limit of %.3g", macs, limit);
    throw InputError(what + text + " (raise it with --max-macs N or ATTNLAB_MAX_MACS, e.g. 1e15)");
}

void requireRunLimits(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params, bool withWeights) {
    const CoreCost cost = variant.cost(shape, params);
    const std::string what = describeJob(variant, shape) + (withWeights ? " with weights" : "");
    requireWork(coreMacs(cost), what);
    requireMemory(runIoBytes(shape, withWeights) + cost.workspaceBytes, what);
}

void requireDecodeLimits(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params, KvDtype kvDtype) {
    const DecodeCost step = decodeCost(variant, shape, params, kvDtype);
    const std::string what = "a decoding step of " + describeJob(variant, shape) + " with a " + kvDtypeName(kvDtype) + " cache";
    requireWork(coreMacs(step.core), what);
    const double n = static_cast<double>(shape.n), d = static_cast<double>(shape.d), dv = static_cast<double>(shape.dv);
    const int kvHeads = shape.keyValueHeads();
    const bool everyQuery = decodeReadsEveryQuery(variant, params);
    const double context = 4.0 * (kvHeads * n * (d + dv) + shape.heads * d * (everyQuery ? n : 1.0) + shape.heads * dv);
    const std::int64_t cached = step.retainedKeys ? *step.retainedKeys : 0;
    const int keyHeads = everyQuery ? shape.heads : kvHeads; // lsh's shared_qk caches a key per query head
    const double cache = KvRows::storageBytes(kvDtype, keyHeads, cached, shape.d) + KvRows::storageBytes(kvDtype, kvHeads, cached, shape.dv);
    requireMemory(context + cache + 2.0 * 4.0 * kvHeads * step.stateFloats + step.core.workspaceBytes, what);
}

void requirePatternBuildLimits(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params) {
    const CoreCost cost = variant.cost(shape, params);
    const std::string what = "the pattern of " + describeJob(variant, shape);
    requireWork(coreMacs(cost), what);
    if (variant.dataDependentPattern) requireMemory(cost.workspaceBytes, what);
}

void requirePatternLimits(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params) {
    const double n = static_cast<double>(shape.n);
    requireMemory(2.0 * n * n, "the " + std::to_string(shape.n) + " x " + std::to_string(shape.n) + " pattern");
    requirePatternBuildLimits(variant, shape, params);
}

} // namespace attnlab
