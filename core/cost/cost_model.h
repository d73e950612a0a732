#pragma once

#include "core/decode/decode.h"
#include "core/variant.h"

#include <map>
#include <optional>
#include <string>

namespace attnlab {

// Multiply-add counts of one Transformer layer, counted as in Vaswani et al. 2017 and Su 2021 ("Linear
// Transformers are probably not the model you are waiting for"): an a×b by b×c product costs a·b·c MACs;
// flops = 2·macs. Model width hd, FFN width 4hd. docs/cost_model.md derives every term.
struct LayerCost {
    std::string variant;
    ProblemShape shape;
    std::map<std::string, double> terms; // qkv_proj, scores, weights_v, out_proj, ffn, and the variant's own terms
    double exps = 0;                     // softmax/feature-map exponentials (not MACs)
    double attentionMacs = 0;            // attention core only
    double layerMacs = 0;                // everything
    double peakBytes = 0;                // inputs + outputs + the kernel's extra memory, float32
    double bytesMin = 0;                 // memory traffic the core must at least move (CoreCost::extraMinBytes)
    // One decoding step (decodeLayerCost): what a layer keeps afterwards, per key/value head and in bytes.
    bool decode = false;
    std::optional<std::int64_t> retainedKeys; // nullopt: a recurrent state only
    double kvCacheBytes = 0;
    double layerFlops() const { return 2.0 * layerMacs; }
};

// Projection and FFN terms of a layer: qkv n·(hd)·(h + 2·h_kv)·d (3n(hd)² without grouped heads), output
// n(hd)², FFN 8n(hd)², with n the tokens that query (shape.queryRows(): m new tokens over a cache of n).
double qkvProjectionMacs(const ProblemShape& shape);
double outputProjectionMacs(const ProblemShape& shape);
double ffnMacs(const ProblemShape& shape);

// The whole layer with `variant`'s attention core (parameters already resolved).
LayerCost layerCost(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params);

// One generation step at context shape.n (core/decode/decode.h): qkv (hd)·(h + 2·h_kv)·d, output (hd)², FFN
// 8(hd)² and the core of row n − 1; peakBytes is the KV cache plus the new query and output. Throws
// InputError for a variant with no causal form.
LayerCost decodeLayerCost(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params);

// The least memory one decoding step moves (its bytes_min), float32: the new token's query and output
// (h heads) and its key and value (h_kv heads), the cached keys and values row n − 1 reads (the fewer of
// the retained keys and the row's keys, scores / (d·h)) and any recurrent state, per key/value head.
double decodeBytesMin(const ProblemShape& shape, const DecodeCost& step);

// Bytes of the float32 inputs and output of one run (Q and out with h heads and m query rows, K and V
// with h_kv heads and n rows), plus weights [h, m, n] when asked: also the part of bytes_min every kernel shares (each input read once, the output
// written once).
double runIoBytes(const ProblemShape& shape, bool withWeights);

} // namespace attnlab
