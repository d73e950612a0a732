#pragma once

#include "core/variant.h"

namespace attnlab {

// Exact softmax attention, s_ij = q_i·k_j / sqrt(d), on the block kernel (block_attention.h): query
// blocks × key blocks with an online softmax, so no n × n buffer exists and extra memory is
// O(64 · (d + dv + key block)) per thread. Causal skips the key blocks above the diagonal and masks
// inside the diagonal ones. Weights, when asked, are rebuilt in a second pass from the final row max
// and sum.
RunResult runTiledSoftmax(const AttentionInputs& inputs, const RunOptions& options);

} // namespace attnlab
