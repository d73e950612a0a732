#pragma once

#include "core/variant.h"

namespace attnlab {

// Exact softmax attention, s_ij = q_i·k_j / sqrt(d), computed in query-row blocks × key blocks with an
// online (running max and sum) softmax, so no n × n buffer exists: extra memory is O(block · (block + dv))
// per thread. Causal skips the key blocks above the diagonal. Weights, when asked, are rebuilt in a
// second pass from the final row max and sum.
RunResult runTiledSoftmax(const AttentionInputs& inputs, const RunOptions& options);

} // namespace attnlab
