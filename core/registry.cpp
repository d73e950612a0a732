#include "core/registry.h"

#include "core/errors.h"
#include "core/patterns/query_rows.h"

#include <algorithm>

namespace attnlab {

// One factory per file in core/variants/, declared here beside the list it builds: adding a variant is
// its file, its declaration and its entry in the list below (display order). Nothing else keys on ids.
VariantInfo makeFullVariant();
VariantInfo makeStridedVariant();
VariantInfo makeFixedVariant();
VariantInfo makeLongformerVariant();
VariantInfo makeChunkVariant();
VariantInfo makeXlVariant();
VariantInfo makeLinearVariant();
VariantInfo makePerformerVariant();
VariantInfo makeLinformerVariant();
VariantInfo makeLshVariant();
VariantInfo makeRelu2Variant();
VariantInfo makeMixedChunkVariant();
VariantInfo makeBigBirdVariant();
VariantInfo makeCustomVariant();

const std::vector<VariantInfo>& allVariants() {
    static const std::vector<VariantInfo> variants = {
        makeFullVariant(),      makeStridedVariant(), makeFixedVariant(), makeLongformerVariant(),
        makeChunkVariant(),     makeXlVariant(),      makeLinearVariant(), makePerformerVariant(),
        makeLinformerVariant(), makeLshVariant(),     makeRelu2Variant(), makeMixedChunkVariant(),
        makeBigBirdVariant(),
        makeCustomVariant(),
    };
    return variants;
}

const VariantInfo* findVariant(const std::string& id) {
    for (const auto& variant : allVariants())
        if (variant.id == id) return &variant;
    return nullptr;
}

const VariantInfo& requireVariant(const std::string& id) {
    if (const VariantInfo* variant = findVariant(id)) return *variant;
    std::string ids;
    for (const auto& variant : allVariants()) ids += (ids.empty() ? "" : ", ") + variant.id;
    throw InputError("unknown variant '" + id + "' (known: " + ids + ")");
}

std::string causalSupportName(CausalSupport support) {
    switch (support) {
    case CausalSupport::Both: return "both";
    case CausalSupport::CausalOnly: return "causal_only";
    case CausalSupport::BidirectionalOnly: return "bidirectional_only";
    }
    return "both";
}

ProblemShape AttentionInputs::shape(bool causal) const {
    ProblemShape shape;
    const Tensor3* keys = v ? v : (k ? k : q);
    shape.heads = q->heads;
    shape.n = keys->rows;
    shape.queries = q->rows == keys->rows ? 0 : q->rows;
    shape.d = q->cols;
    shape.dv = v ? v->cols : q->cols;
    const Tensor3* kv = v ? v : k;
    shape.kvHeads = kv ? kv->heads : q->heads;
    shape.causal = causal;
    return shape;
}

bool hasCausalForm(const VariantInfo& variant, bool causal) {
    return variant.causalSupport == CausalSupport::Both || (variant.causalSupport == CausalSupport::CausalOnly) == causal;
}

std::string queryRowsProblem(const VariantInfo& variant, const ProblemShape& shape) {
    if (shape.queries < 0 || shape.queries > shape.n)
        return "queries must be in [1, n = " + std::to_string(shape.n) + "], got " + std::to_string(shape.queries);
    if (shape.queries == 0 || shape.queries == shape.n || variant.queryRows) return {};
    return "variant '" + variant.id + "' computes every query row from a state over all the keys: it takes no queries "
           "that are not the whole sequence (queries " + std::to_string(shape.queries) + " < n = " + std::to_string(shape.n) + ")";
}

std::string causalSupportProblem(const VariantInfo& variant, bool causal) {
    if (hasCausalForm(variant, causal)) return {};
    if (variant.causalSupport == CausalSupport::CausalOnly) return "variant '" + variant.id + "' is causal only: pass --causal";
    return "variant '" + variant.id + "' is bidirectional only: --causal is not supported";
}

ParamSet prepareParams(const VariantInfo& variant, const ProblemShape& shape, const ParamOverrides& overrides) {
    if (shape.n <= 0) throw InputError("n must be at least 1, got " + std::to_string(shape.n));
    if (shape.d <= 0) throw InputError("d must be at least 1, got " + std::to_string(shape.d));
    if (shape.heads <= 0) throw InputError("heads must be at least 1, got " + std::to_string(shape.heads));
    if (shape.kvHeads < 0 || shape.heads % shape.keyValueHeads() != 0)
        throw InputError("key/value heads must divide the " + std::to_string(shape.heads) + " query heads, got " +
                         std::to_string(shape.kvHeads));
    if (const std::string problem = causalSupportProblem(variant, shape.causal); !problem.empty()) throw InputError(problem);
    if (const std::string problem = queryRowsProblem(variant, shape); !problem.empty()) throw InputError(problem);
    ParamSet params = resolveParams(variant.id, variant.params, overrides, shape.context());
    if (variant.validate) variant.validate(shape, params);
    return params;
}

ResolvedVariant resolveVariant(const VariantInfo& variant, const ProblemShape& shape, const ParamOverrides& overrides) {
    return {&variant, shape, prepareParams(variant, shape, overrides)};
}

AttentionInputs withQueryPrefix(const AttentionInputs& inputs, Tensor3& storage) {
    const ProblemShape shape = inputs.shape(false);
    if (shape.queries == 0) return inputs;
    if (!inputs.k) throw InputError("queries that are not the whole sequence need K: the earlier positions' keys");
    // Every element is written below, so storage of the right shape is reused as it is.
    if (storage.heads != inputs.q->heads || storage.rows != shape.n || storage.cols != inputs.q->cols)
        storage = Tensor3(inputs.q->heads, shape.n, inputs.q->cols);
    const std::int64_t first = shape.firstQuery();
    for (int t = 0; t < inputs.q->heads; ++t) {
        // K with a head per query head holds each one's own earlier vectors (lsh's shared keys).
        const float* keys = inputs.k->head(inputs.k->heads == inputs.q->heads ? t : inputs.kvHead(t));
        std::copy(keys, keys + first * inputs.q->cols, storage.head(t));
        std::copy(inputs.q->head(t), inputs.q->head(t) + inputs.q->headStride(), storage.row(t, first));
    }
    AttentionInputs whole = inputs;
    whole.q = &storage;
    return whole;
}

namespace {

// The request of the whole n × n pattern; data-dependent patterns read the inputs with Q grown to every
// position (withQueryPrefix, into `whole` and `storage`) when it holds the last rows only.
PatternRequest patternRequest(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params,
                              const AttentionInputs* inputs, int head, AttentionInputs& whole, Tensor3& storage) {
    if (variant.dataDependentPattern && !inputs)
        throw InputError("the pattern of '" + variant.id + "' depends on the data: give --q (and --k)");
    PatternRequest request;
    request.shape = shape;
    request.params = &params;
    if (inputs) {
        whole = withQueryPrefix(*inputs, storage);
        request.inputs = &whole;
    }
    request.head = head;
    return request;
}

} // namespace

std::unique_ptr<Pattern> buildPattern(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params,
                                      const AttentionInputs* inputs, int head) {
    AttentionInputs whole;
    Tensor3 storage;
    return lastQueryRows(variant.pattern(patternRequest(variant, shape, params, inputs, head, whole, storage)),
                         shape.queryRows());
}

std::unique_ptr<PatternComponents> buildComponents(const VariantInfo& variant, const ProblemShape& shape,
                                                   const ParamSet& params, const AttentionInputs* inputs, int head) {
    AttentionInputs whole;
    Tensor3 storage;
    return lastQueryRows(variant.components(patternRequest(variant, shape, params, inputs, head, whole, storage)),
                         shape.queryRows());
}

} // namespace attnlab
