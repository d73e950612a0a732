#include "core/cost/cost_model.h"

#include "core/decode/decode.h"
#include "core/errors.h"

#include <algorithm>

namespace attnlab {

namespace {
double width(const ProblemShape& shape) { return static_cast<double>(shape.heads) * static_cast<double>(shape.d); }

// The new tokens' projections only: the earlier positions' keys and values are already cached.
double tokens(const ProblemShape& shape) { return static_cast<double>(shape.queryRows()); }
} // namespace

double qkvProjectionMacs(const ProblemShape& shape) {
    const double projectedHeads = shape.heads + 2.0 * shape.keyValueHeads();
    return tokens(shape) * width(shape) * projectedHeads * static_cast<double>(shape.d);
}
double outputProjectionMacs(const ProblemShape& shape) { return tokens(shape) * width(shape) * width(shape); }
double ffnMacs(const ProblemShape& shape, const FeedForward& ffn) {
    const double hidden = ffn.width > 0 ? static_cast<double>(ffn.width) : 4.0 * width(shape);
    return (ffn.gated ? 3.0 : 2.0) * tokens(shape) * width(shape) * hidden;
}


double runIoBytes(const ProblemShape& shape, bool withWeights) {
    const double n = static_cast<double>(shape.n), m = tokens(shape), h = shape.heads, hkv = shape.keyValueHeads();
    const double d = static_cast<double>(shape.d), dv = static_cast<double>(shape.dv);
    double bytes = 4.0 * (m * h * (d + dv) + n * hkv * (d + dv));
    if (withWeights) bytes += 4.0 * h * m * n;
    return bytes;
}

LayerCost layerCost(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params, const FeedForward& ffn) {
    LayerCost cost;
    cost.variant = variant.id;
    cost.shape = shape;
    const CoreCost core = variant.cost(shape, params);
    cost.terms = core.terms;
    for (const auto& [name, macs] : core.terms) cost.attentionMacs += macs;
    cost.terms["qkv_proj"] = qkvProjectionMacs(shape);
    cost.terms["out_proj"] = outputProjectionMacs(shape);
    cost.terms["ffn"] = ffnMacs(shape, ffn);
    cost.exps = core.exps;
    cost.layerMacs = cost.attentionMacs + cost.terms["qkv_proj"] + cost.terms["out_proj"] + cost.terms["ffn"];
    cost.peakBytes = runIoBytes(shape, false) + core.workspaceBytes;
    cost.bytesMin = runIoBytes(shape, false) + core.extraMinBytes;
    return cost;
}

bool hasGauLayer(const VariantInfo& variant) { return variant.id == "relu2" || variant.id == "mixed_chunk"; }

ProblemShape gauCoreShape(std::int64_t n, std::int64_t width, bool causal) {
    ProblemShape shape;
    shape.heads = 1;
    shape.n = n;
    shape.d = kGauHeadSize;
    shape.dv = 2 * width;
    shape.causal = causal;
    return shape;
}

ProblemShape gauCoreShape(const ProblemShape& layer) {
    return gauCoreShape(layer.n, static_cast<std::int64_t>(width(layer)), layer.causal);
}

LayerCost gauLayerCost(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params) {
    if (!hasGauLayer(variant))
        throw InputError("a GAU layer's attention is relu2 or mixed_chunk (FLASH's), not " + variant.id);
    const ProblemShape core = gauCoreShape(shape);
    const double n = static_cast<double>(shape.n), hd = width(shape), e = static_cast<double>(core.dv);
    const CoreCost coreCost = variant.cost(core, params);
    LayerCost cost;
    cost.variant = variant.id;
    cost.shape = shape;
    cost.layer = LayerKind::Gau;
    cost.terms = coreCost.terms;
    for (const auto& [name, macs] : coreCost.terms) cost.attentionMacs += macs;
    cost.terms["uv_proj"] = 2.0 * n * hd * e;
    cost.terms["z_proj"] = n * hd * static_cast<double>(kGauHeadSize);
    cost.terms["out_proj"] = n * e * hd;
    cost.exps = coreCost.exps;
    cost.layerMacs = cost.attentionMacs + cost.terms["uv_proj"] + cost.terms["z_proj"] + cost.terms["out_proj"];
    cost.peakBytes = runIoBytes(core, false) + coreCost.workspaceBytes;
    cost.bytesMin = runIoBytes(core, false) + coreCost.extraMinBytes;
    return cost;
}

double decodeBytesMin(const ProblemShape& shape, const DecodeCost& step) {
    const double tokenBytes = 4.0 * static_cast<double>(shape.d + shape.dv), kvHeads = shape.keyValueHeads();
    return (shape.heads + kvHeads) * tokenBytes + step.kvReadBytes + kvHeads * 4.0 * step.stateFloats;
}

LayerCost decodeLayerCost(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params, KvDtype kvDtype,
                          const FeedForward& ffn) {
    const DecodeCost step = decodeCost(variant, shape, params, kvDtype);
    LayerCost cost;
    cost.variant = variant.id;
    cost.shape = shape;
    cost.decode = true;
    cost.terms = step.core.terms;
    for (const auto& [name, macs] : step.core.terms) cost.attentionMacs += macs;
    ProblemShape token = shape;
    token.n = 1;
    cost.terms["qkv_proj"] = qkvProjectionMacs(token);
    cost.terms["out_proj"] = outputProjectionMacs(token);
    cost.terms["ffn"] = ffnMacs(token, ffn);
    cost.exps = step.core.exps;
    cost.layerMacs = cost.attentionMacs + cost.terms["qkv_proj"] + cost.terms["out_proj"] + cost.terms["ffn"];
    cost.retainedKeys = step.retainedKeys;
    cost.kvDtype = kvDtype;
    cost.kvCacheBytes = step.kvCacheBytes;
    cost.kvReadBytes = step.kvReadBytes;
    const double tokenBytes = 4.0 * static_cast<double>(shape.d + shape.dv);
    cost.peakBytes = step.kvCacheBytes + shape.heads * tokenBytes;
    cost.bytesMin = decodeBytesMin(shape, step);
    return cost;
}

} // namespace attnlab
