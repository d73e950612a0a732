#pragma once

#include "core/variant.h"

#include <functional>

namespace attnlab {

// Rows per chunk of the fast paths (φ computed, causal products masked and state absorbed chunk by
// chunk): the buffers' size, and the step of bidirectional runs. Causal runs step by half of it: their
// masked intra-chunk products grow with the chunk and the state products do not. Bidirectional runs have
// no masked products to shrink and keep the whole chunk (docs/execution_plans.md, "Memory layout and
// traffic").
inline constexpr std::int64_t kFeatureMapChunk = 64;
inline constexpr std::int64_t kCausalFeatureMapChunk = kFeatureMapChunk / 2;

// What a feature map's key rows hold. Values: φ(k) itself. Exponents: log φ(k), for exponential maps
// (FAVOR+) whose values can leave float32's range; the kernels then keep the key side as e^{−M}·φ(k)
// with M the largest key exponent so far, rescaling what they summed when a key raises M (the factor
// cancels between numerator and denominator). A query row may carry any positive factor of its own.
enum class KeyFeatures { Values, Exponents };

// φ of a block of rows of one head, produced on demand so the fast path never materialises Φ_Q and Φ_K:
// rows(h, row0, count, query, out) writes φ of rows [row0, row0 + count) of head h's Q (query = true)
// or K (as `keys` says) into out, row-major count × features. h is the tensor's own head: a query head
// for Q, a key/value head (AttentionInputs::kvHead) for K. Called from several threads at once.
struct FeatureMap {
    std::int64_t features = 0;
    KeyFeatures keys = KeyFeatures::Values;
    std::function<void(int head, std::int64_t row0, std::int64_t count, bool query, float* out)> rows;
    // log φ of one row in double (−inf for a zero feature), for maps whose φ can leave float's range
    // (elu+1 of large negative inputs, FAVOR+): rows whose float denominator comes out below
    // kTrustedDenominator or not finite are computed again from these (exactRow), and the reference path
    // and the weights use them. Null for maps with bounded φ.
    std::function<void(int head, std::int64_t row, bool query, double* out)> logRow;
    // The tensors rows() reads, row for row (Q's for query = true, K's otherwise), so that the kernel can
    // request the next chunk's lines while it works on this one; null when it reads nothing row by row.
    const Tensor3* queriesRead = nullptr;
    const Tensor3* keysRead = nullptr;
};

// The smallest float denominator the fast path trusts: below it, products that fell under float's
// normal range (1.2e-38) could be a sizeable part of the sum.
inline constexpr float kTrustedDenominator = 1e-30f;

// Peak bytes of one thread's chunk buffers (core/kernels/feature_map_chunks.h) for m features and dv
// value columns: φ of a chunk of Q and K and its transpose, the chunk's local product, the numerator and
// the m × dv state.
double featureMapWorkspaceBytes(double features, double dv);

// Linear attention through a positive feature map φ (elu+1, 1+cos as [1, x̂], FAVOR+):
// out_i = φ(q_i)ᵀ Σ_{j∈J_i} φ(k_j) v_jᵀ / φ(q_i)ᵀ Σ_{j∈J_i} φ(k_j), J_i = all j or j ≤ i (causal).
// Exponent keys (KeyFeatures::Exponents) are exponentiated against the running maximum M chunk by chunk.
// V is [h_kv, n, dv]; query head t reads K and V head inputs.kvHead(t). A zero denominator gives a zero row.
// With map.logRow, rows the float path cannot trust are recomputed exactly in double (see logRow).
// Fast path: bidirectional as two GEMMs (state Φ_Kᵀ V, then Φ_Q · state); causal in chunks (masked
// intra-chunk product plus the running state of earlier chunks); φ is computed chunk by chunk.
// Reference: the explicit quadratic form Σ_j (φ(q_i)·φ(k_j)) v_j in double.
RunResult runFeatureMapAttention(const FeatureMap& map, const AttentionInputs& inputs, const RunOptions& options);

// Shen et al.'s "efficient attention": out_i = Σ_m softmax(q_i)_m · Σ_{J_i} exp(k_jm) v_j / Σ_{J_i} exp(k_jm).
RunResult runEfficientAttention(const AttentionInputs& inputs, const RunOptions& options);

} // namespace attnlab
