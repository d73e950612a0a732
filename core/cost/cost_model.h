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
// Standard: attention + FFN (layerCost); Gau: FLASH's gated attention unit, which replaces both (gauLayerCost).
enum class LayerKind { Standard, Gau };

struct LayerCost {
    std::string variant;
    ProblemShape shape;
    LayerKind layer = LayerKind::Standard;
    // qkv_proj, scores, weights_v, out_proj, ffn, and the variant's own terms; a GAU layer has uv_proj and
    // z_proj in place of qkv_proj and no ffn
    std::map<std::string, double> terms;
    double exps = 0;                     // softmax/feature-map exponentials (not MACs)
    double attentionMacs = 0;            // attention core only
    double layerMacs = 0;                // everything
    double peakBytes = 0;                // inputs + outputs + the kernel's extra memory, float32
    double bytesMin = 0;                 // memory traffic the core must at least move (CoreCost::extraMinBytes)
    // One decoding step (decodeLayerCost): what a layer keeps afterwards, per key/value head and in bytes.
    bool decode = false;
    std::optional<std::int64_t> retainedKeys; // nullopt: a recurrent state only
    KvDtype kvDtype = KvDtype::F32;           // the precision of the cached keys and values
    double kvCacheBytes = 0;
    double kvReadBytes = 0;                   // the cached keys' and values' bytes the step reads (DecodeCost)
    double layerFlops() const { return 2.0 * layerMacs; }
};

// A layer's feed-forward network: two products through a hidden width f (n·hd·f MACs each), or a gated one
// (SwiGLU, as LLaMA and Mistral: gate, up and down products, three). Width 0: 4hd.
struct FeedForward {
    std::int64_t width = 0;
    bool gated = false;
};

// Projection and FFN terms of a layer: qkv n·(hd)·(h + 2·h_kv)·d (3n(hd)² without grouped heads), output
// n(hd)², FFN 2·n·hd·f (8n(hd)² at f = 4hd) or 3·n·hd·f gated, with n the tokens that query
// (shape.queryRows(): m new tokens over a cache of n).
double qkvProjectionMacs(const ProblemShape& shape);
double outputProjectionMacs(const ProblemShape& shape);
double ffnMacs(const ProblemShape& shape, const FeedForward& ffn = {});

// The whole layer with `variant`'s attention core (parameters already resolved).
LayerCost layerCost(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params, const FeedForward& ffn = {});

// FLASH's gated attention unit (Hua et al. 2022), the one layer FLASH stacks in place of attention + FFN:
// model width hd, expansion e = 2hd, one shared head of size s = kGauHeadSize, no FFN. Terms: uv_proj
// 2·n·(hd)·e (U and V), z_proj n·(hd)·s, the core over one head with d = s and dv = e (scores nnz·s,
// weights_v nnz·e, mixed_chunk's linear_state 2·n·s·e) and out_proj n·e·(hd). The gates, the per-dimension
// offsets of Q and K and the activations are element-wise and not counted. `shape` is the layer's (h heads
// of d give the width); `params` are resolved for gauCoreShape(shape). Throws InputError unless
// hasGauLayer(variant).
inline constexpr std::int64_t kGauHeadSize = 128;
bool hasGauLayer(const VariantInfo& variant); // relu2 and mixed_chunk, FLASH's two attentions
ProblemShape gauCoreShape(std::int64_t n, std::int64_t width, bool causal);
ProblemShape gauCoreShape(const ProblemShape& layer);
LayerCost gauLayerCost(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params);

// One generation step at context shape.n (core/decode/decode.h): qkv (hd)·(h + 2·h_kv)·d, output (hd)², FFN
// 8(hd)² and the core of row n − 1; peakBytes is the KV cache (in kvDtype) plus the new query and output.
// Throws InputError for a variant with no causal form.
LayerCost decodeLayerCost(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params,
                          KvDtype kvDtype = KvDtype::F32, const FeedForward& ffn = {});

// The least memory one decoding step moves (its bytes_min): the new token's query and output (h heads) and
// its key and value (h_kv heads) in float32, the cached keys and values row n − 1 reads in the cache's
// precision (DecodeCost::kvReadBytes) and any recurrent state (float32), per key/value head.
double decodeBytesMin(const ProblemShape& shape, const DecodeCost& step);

// Bytes of the float32 inputs and output of one run (Q and out with h heads and m query rows, K and V
// with h_kv heads and n rows), plus weights [h, m, n] when asked: also the part of bytes_min every kernel shares (each input read once, the output
// written once).
double runIoBytes(const ProblemShape& shape, bool withWeights);

} // namespace attnlab
