#pragma once

#include "core/variant.h"

namespace attnlab {

// Linear attention with φ = elu + 1 as a per-token recurrence, the form an RNN-style implementation
// takes: for each token, S += φ(k_i) v_iᵀ and z += φ(k_i), then out_i = φ(q_i)ᵀS / φ(q_i)ᵀz (causal;
// bidirectional accumulates every token first). Float state of d × dv per head, parallel over heads.
// The baseline the chunked kernel (runFeatureMapAttention) is benchmarked against, with its numbers.
RunResult runEluRecurrence(const AttentionInputs& inputs, const RunOptions& options);

} // namespace attnlab
