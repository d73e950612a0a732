#pragma once

#include "core/variant.h"

namespace attnlab {

// Exact softmax attention, s_ij = q_i·k_j / sqrt(d), on the block kernel (block_attention.h) running
// the all-pairs pattern's generic plan (kept between runs): query blocks × key pieces with an online
// softmax, so no n × n buffer exists and extra memory is O(64 · (d + dv + key block)) per thread.
// Causal has no pieces above the diagonal and computes only the tiles of the diagonal pieces that hold
// allowed cells. Weights, when asked, are rebuilt in a second pass from the final row max
// and sum.
RunResult runTiledSoftmax(const AttentionInputs& inputs, const RunOptions& options);

} // namespace attnlab
