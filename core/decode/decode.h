#pragma once

// One generation step of autoregressive decoding at context length n (ProblemShape::n, causal): the new
// token is query row n − 1 of the causal pattern. What a variant computes in that step, what one layer
// must keep afterwards (the KV cache or a recurrent state) and the step itself, as a kernel that can be
// timed on its own. docs/inference.md states the rules per variant.

#include "core/variant.h"

#include <memory>
#include <optional>

namespace attnlab {

// A decoding step prepared on a context: the cache (keys and values, or a recurrent state) holds the
// tokens before the new one. run() writes the new token's output, [h, dv] row-major (h = Q's heads),
// and leaves the cache as it found it, so it can be repeated for timing.
class DecodeStep {
public:
    virtual ~DecodeStep() = default;
    virtual void run(float* out) = 0;
};

using DecodeCostFunction = std::function<CoreCost(const ProblemShape&, const ParamSet&)>;
using RetainedKeysFunction = std::function<std::optional<std::int64_t>(const ProblemShape&, const ParamSet&)>;
using StateFloatsFunction = std::function<double(const ProblemShape&, const ParamSet&)>;
// context: Q [h, n, d], K [h_kv, n, d] (may be null where the variant needs no keys), V [h_kv, n, dv]; it
// must outlive the step. threads: OpenMP threads of every run().
using DecodePrepareFunction =
    std::function<std::unique_ptr<DecodeStep>(const AttentionInputs& context, const ParamSet&, int threads)>;

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
};

// A decode entry that only changes how many keys stay cached.
std::shared_ptr<const DecodeInfo> decodeKeeping(RetainedKeysFunction retainedKeys);

struct DecodeCost {
    CoreCost core;                            // the step's attention core
    std::optional<std::int64_t> retainedKeys; // per key/value head; nullopt: a recurrent state only
    double stateFloats = 0;                   // per key/value head
    double kvCacheBytes = 0;                  // one layer, float32: retained·h_kv·(d + dv)·4 + h_kv·state·4
};

// Throws InputError when the variant has no causal form (it cannot produce one token at a time).
void requireDecoding(const VariantInfo& variant);

// The decoding step of `variant` at shape.n (shape.causal must be set; params resolved for that shape).
DecodeCost decodeCost(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params);

// What one layer keeps after the step at shape.n (retainedKeys, stateFloats, kvCacheBytes; core left
// empty): closed forms only, so it stays cheap at any n.
DecodeCost decodeCache(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params);

// Prepares the step of `variant` on `context` (its last row is the new token; params resolved causal).
std::unique_ptr<DecodeStep> prepareDecodeStep(const VariantInfo& variant, const AttentionInputs& context,
                                              const ParamSet& params, int threads);

} // namespace attnlab
