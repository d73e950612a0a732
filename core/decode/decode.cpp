#include "core/decode/decode.h"

#include "core/decode/decode_step.h"
#include "core/errors.h"

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

const DecodeInfo& decodeInfoOf(const VariantInfo& variant) {
    static const DecodeInfo softmaxPatternDefault;
    return variant.decode ? *variant.decode : softmaxPatternDefault;
}

std::unique_ptr<Pattern> causalPattern(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params,
                                       const AttentionInputs* inputs) {
    PatternRequest request;
    request.shape = shape;
    request.shape.causal = true;
    request.shape.queries = 0; // the whole n × n pattern, whose row n − 1 is the step's
    request.params = &params;
    request.inputs = inputs;
    return variant.pattern(request);
}

} // namespace

std::shared_ptr<const DecodeInfo> decodeKeeping(RetainedKeysFunction retainedKeys) {
    auto info = std::make_shared<DecodeInfo>();
    info->retainedKeys = std::move(retainedKeys);
    return info;
}

void requireDecoding(const VariantInfo& variant) {
    if (variant.causalSupport == CausalSupport::BidirectionalOnly)
        throw InputError("variant '" + variant.id + "' has no causal form, so it cannot generate one token at a time (--decode)");
}

DecodeCost decodeCache(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params, KvDtype kvDtype) {
    requireDecoding(variant);
    const DecodeInfo& info = decodeInfoOf(variant);
    DecodeCost cost;
    cost.kvDtype = kvDtype;
    cost.retainedKeys = info.retainedKeys ? info.retainedKeys(shape, params) : std::optional<std::int64_t>(shape.n);
    cost.stateFloats = info.stateFloats ? info.stateFloats(shape, params) : 0.0;
    const double keyValueBytes = static_cast<double>(shape.d + shape.dv) * kvDtypeBytes(kvDtype);
    const double perHead = (cost.retainedKeys ? static_cast<double>(*cost.retainedKeys) * keyValueBytes : 0.0) + 4.0 * cost.stateFloats;
    cost.kvCacheBytes = shape.keyValueHeads() * perHead;
    return cost;
}

DecodeCost decodeCost(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params, KvDtype kvDtype) {
    DecodeCost cost = decodeCache(variant, shape, params, kvDtype);
    const DecodeInfo& info = decodeInfoOf(variant);
    if (info.cost)
        cost.core = info.cost(shape, params);
    else
        cost.core = maskedCoreCost(shape, static_cast<double>(causalPattern(variant, shape, params, nullptr)->rowCount(shape.n - 1)));
    if (cost.retainedKeys) {
        const auto scores = cost.core.terms.find("scores");
        const double rowKeys = scores == cost.core.terms.end() ? 0.0 : scores->second / (static_cast<double>(shape.d) * shape.heads);
        cost.keysRead = std::min(static_cast<double>(*cost.retainedKeys), rowKeys);
    }
    cost.kvReadBytes = cost.keysRead * shape.keyValueHeads() * static_cast<double>(shape.d + shape.dv) * kvDtypeBytes(kvDtype);
    return cost;
}

bool decodeReadsEveryQuery(const VariantInfo& variant, const ParamSet& params) {
    const DecodeInfo& info = decodeInfoOf(variant);
    return info.everyQuery && info.everyQuery(params);
}

std::unique_ptr<DecodeStep> prepareDecodeStep(const VariantInfo& variant, const AttentionInputs& context,
                                              const ParamSet& params, const DecodeOptions& options) {
    requireDecoding(variant);
    const DecodeInfo& info = decodeInfoOf(variant);
    if (info.prepare) return info.prepare(context, params, options);
    MaskedRowSpec spec;
    ProblemShape shape = context.shape(true);
    shape.grid = options.grid;
    shape.setCausalContext(shape.n);
    spec.patterns = sharedPattern(causalPattern(variant, shape, params, &context));
    spec.scoring.scale = 1.0 / std::sqrt(static_cast<double>(context.q->cols));
    return makeMaskedRowStep(context, std::move(spec), options);
}

} // namespace attnlab
