// chunk: block-local attention, ⌊i/c⌋ = ⌊j/c⌋ (∧ j ≤ i when causal).
#include "core/decode/decode.h"
#include "core/variants/variant_support.h"

namespace attnlab {

namespace {

std::unique_ptr<Pattern> chunkPattern(const PatternRequest& request) {
    return blockLocalPattern(request.shape.n, request.params->integer("chunk"), request.shape.causal);
}

std::string chunkExpression(const PatternRequest& request) {
    return termsExpression({"block(" + std::to_string(request.params->integer("chunk")) + ")"}, request.shape.causal);
}

} // namespace

VariantInfo makeChunkVariant() {
    VariantInfo v;
    v.id = "chunk";
    v.displayName = "Block-local chunks";
    v.family = "Sparse patterns";
    v.summary = "Each query attends only inside its own chunk of c positions: O(n·c·d).";
    v.params = {integerParam("chunk", "Chunk length c", "ceil(sqrt(n))",
                             [](const ShapeContext& s, const ParamSet&) { return ceilSqrt(s.n); }, 1, ">= 1")};
    v.pattern = chunkPattern;
    v.plan = [](const PatternRequest& request) {
        return blockLocalPlan(request.shape.n, request.params->integer("chunk"), request.shape.causal);
    };
    v.run = softmaxOverPattern(chunkPattern, v.plan);
    v.cost = softmaxPatternCost(chunkPattern);
    // Decoding keeps the new token's chunk so far: ((n − 1) mod c) + 1 keys.
    v.decode = decodeKeeping([](const ProblemShape& s, const ParamSet& p) { return (s.n - 1) % p.integer("chunk") + 1; });
    v.printExpr = chunkExpression;
    v.componentNames = {"own chunk"};
    v.components = componentsFromExpression(chunkPattern, chunkExpression);
    return v;
}

} // namespace attnlab
