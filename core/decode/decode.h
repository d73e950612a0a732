#pragma once

// One generation step of autoregressive decoding at context length n (ProblemShape::n, causal): the new
// token is query row n − 1 of the causal pattern. What a variant computes in that step, what one layer
// must keep afterwards (the KV cache or a recurrent state) and the step itself, as a kernel that can be
// timed on its own. docs/inference.md states the rules per variant.

#include "core/decode/kv_cache.h"
#include "core/variant.h"

#include <memory>
#include <optional>

namespace attnlab {

// A decoding step prepared on a context: the cache (keys and values, or a recurrent state) holds the
// tokens before the new one. run() writes the new token's output, [h, dv] row-major (h = Q's heads),
// and leaves the cache as it found it, so it can be repeated for timing; it allocates nothing.
class DecodeStep {
public:
    virtual ~DecodeStep() = default;
    virtual void run(float* out) = 0;
};

// How a step runs.
struct DecodeOptions {
    int threads = 1; // OpenMP threads of every run()
    // The precision the cached keys and values are kept and read in (recurrent states stay float32).
    KvDtype kvDtype = KvDtype::F32;
    // Cached keys per chunk of the split step (each chunk's partial softmax merged by log-sum-exp); 0: chosen
    // from the cache's size and the threads, so that a long cache is split across them.
    std::int64_t chunkKeys = 0;
    // The problem's token grid (ProblemShape::grid), which a custom pattern's grid primitives are built on;
    // null for none (the context's tensors carry no grid).
    TokenGridPtr grid = nullptr;
};

using DecodeCostFunction = std::function<CoreCost(const ProblemShape&, const ParamSet&)>;
using RetainedKeysFunction = std::function<std::optional<std::int64_t>(const ProblemShape&, const ParamSet&)>;
using StateFloatsFunction = std::function<double(const ProblemShape&, const ParamSet&)>;
// context: Q [h, n, d] or only the new token's [h, 1, d] (see DecodeInfo::everyQuery), K [h_kv, n, d] (may be
// null where the variant needs no keys), V [h_kv, n, dv]; n is V's rows. It must outlive the step.
using DecodePrepareFunction =
    std::function<std::unique_ptr<DecodeStep>(const AttentionInputs& context, const ParamSet&, const DecodeOptions&)>;
using EveryQueryFunction = std::function<bool(const ParamSet&)>;

// A variant's decoding rules; every member may be empty, meaning the softmax-pattern default:
struct DecodeInfo {
    // Keys (each with its value) kept per key/value head after the step; nullopt when only a state is kept.
    // Default: n (every key stays).
    RetainedKeysFunction retainedKeys;
    // Floats of recurrent state per key/value head. Default: none.
    StateFloatsFunction stateFloats;
    // MACs (and exponentials) of the step's attention core, all heads. Default: softmax over row n − 1 of
    // the causal pattern, scores = weights_v = |M_{n−1}|·d·h.
    DecodeCostFunction cost;
    // The step. Default: softmax over row n − 1 of the pattern with s = q·k/√d, against the cached keys.
    DecodePrepareFunction prepare;
    // Whether the step reads the queries of every position (lsh hashes them), so that its context needs Q
    // [h, n, d]; default: only the new token's query row.
    EveryQueryFunction everyQuery;
};

// A decode entry that only changes how many keys stay cached.
std::shared_ptr<const DecodeInfo> decodeKeeping(RetainedKeysFunction retainedKeys);

struct DecodeCost {
    CoreCost core;                            // the step's attention core
    std::optional<std::int64_t> retainedKeys; // per key/value head; nullopt: a recurrent state only
    double stateFloats = 0;                   // per key/value head
    KvDtype kvDtype = KvDtype::F32;           // the precision of the cached keys and values
    // One layer: retained·h_kv·(d + dv)·b + h_kv·state·4, with b the bytes of an element of the cache's
    // precision (the state stays float32).
    double kvCacheBytes = 0;
    // Cached keys row n − 1 reads, per key/value head (the fewer of the retained keys and the row's keys,
    // scores / (d·h)), and their bytes with their values for all key/value heads: what the step must read.
    double keysRead = 0;
    double kvReadBytes = 0;
};

// Throws InputError when the variant has no causal form (it cannot produce one token at a time).
void requireDecoding(const VariantInfo& variant);

// The decoding step of `variant` at shape.n (shape.causal must be set; params resolved for that shape).
DecodeCost decodeCost(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params,
                      KvDtype kvDtype = KvDtype::F32);

// What one layer keeps after the step at shape.n (retainedKeys, stateFloats, kvCacheBytes; core, keysRead
// and kvReadBytes left empty): closed forms only, so it stays cheap at any n.
DecodeCost decodeCache(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params,
                       KvDtype kvDtype = KvDtype::F32);

// Whether the step of `variant` reads every position's query (its context then needs Q [h, n, d]).
bool decodeReadsEveryQuery(const VariantInfo& variant, const ParamSet& params);

// Prepares the step of `variant` on `context` (its last row is the new token; params resolved causal).
std::unique_ptr<DecodeStep> prepareDecodeStep(const VariantInfo& variant, const AttentionInputs& context,
                                              const ParamSet& params, const DecodeOptions& options);

} // namespace attnlab
