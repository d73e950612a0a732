#pragma once

#include "core/variant.h"

namespace attnlab {

// The result buffers of one run: out [h, n, dv] with h = Q's heads (K and V may hold fewer, grouped heads)
// and, when options.wantWeights, zeroed weights [h, n, n]. The output storage is taken over from
// options.recycle when its shape matches and is then not cleared: every kernel writes each output element.
RunResult makeQueryResult(const AttentionInputs& inputs, const RunOptions& options);

} // namespace attnlab
