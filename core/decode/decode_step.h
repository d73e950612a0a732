#pragma once

// The decoding-step kernels (core/decode/decode.h): one query row, the new token n − 1, against what a layer
// keeps. Query head t reads key/value head AttentionInputs::kvHead(t) of the cache; nothing is repeated.
// n is V's rows; the new token's query is Q's last row (Q may hold that row alone).

#include "core/decode/decode.h"
#include "core/kernels/feature_map_attention.h"
#include "core/kernels/masked_attention.h"

#include <optional>
#include <vector>

namespace attnlab {

// Softmax (or relu²) over row n − 1 of a pattern against the cached keys and values. The step keeps its own
// cache in options.kvDtype: the key and value rows that row n − 1 of any head's pattern reads, in order
// (docs/inference.md, "The decoding step as a kernel"). A group of query heads that shares a key/value head
// and a pattern reads each cached row once for all of them; the rows are cut into chunks that run as
// separate tasks, each a partial softmax, merged by log-sum-exp.
struct MaskedRowSpec {
    HeadPatterns patterns;                // one shared by all heads or one per query head
    MaskedScoring scoring;                // its relativePositions is set from the table below
    std::vector<float> relativePositions; // Transformer-XL: row p = i − j of d values; empty: none
    std::optional<Tensor3> ownKeys;       // keys per query head [h, n, d] (lsh's shared_qk); else K by kvHead
};
std::unique_ptr<DecodeStep> makeMaskedRowStep(const AttentionInputs& context, MaskedRowSpec spec, const DecodeOptions& options);

// Linear attention through a feature map φ with m features: the state of each key/value head is
// S = Σ_{j<n−1} φ(k_j) v_jᵀ (m × dv) and z = Σ_{j<n−1} φ(k_j) (m). The step maps the new token, forms
// S' = S + φ(k) vᵀ and z' = z + φ(k) per key/value head and reads out φ(q)ᵀS' / φ(q)ᵀz' per query head.
// mapOf builds the map over the context the step keeps (FeatureMap::rows' key head is a key/value head).
// For a map of exponent keys (KeyFeatures::Exponents) the state is kept as e^{−M}·S and e^{−M}·z with M
// the largest key exponent so far, one more float per key/value head, rescaled when a key raises M.
using FeatureMapOf = std::function<FeatureMap(const AttentionInputs&)>;
std::unique_ptr<DecodeStep> makeFeatureMapStep(const AttentionInputs& context, FeatureMapOf mapOf, int threads);

// Shen et al.'s efficient attention: per key/value head and feature m the running max M_m, the sum
// Z_m = Σ e^{k_jm − M_m} and A_m = Σ e^{k_jm − M_m} v_j (d·dv + 2d floats); the step updates them with
// the new key and reads out Σ_m softmax(q)_m · A_m / Z_m.
std::unique_ptr<DecodeStep> makeEfficientStep(const AttentionInputs& context, int threads);

// FLASH mixed chunk: relu² over the new token's chunk (normaliser c·d) plus (1/(g·c)) qᵀ S with
// S = Σ_{j<g·c} k_j v_jᵀ (d × dv per key/value head), g = ⌊(n−1)/c⌋. When the new token closes its chunk
// the step also folds the chunk's c cached keys into the state the next chunk reads.
std::unique_ptr<DecodeStep> makeMixedChunkStep(const AttentionInputs& context, std::int64_t chunk, const DecodeOptions& options);

} // namespace attnlab
