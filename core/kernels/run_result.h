#pragma once

#include "core/variant.h"

namespace attnlab {

// The result buffers of one run: out [h, m, dv] with h and m = Q's heads and rows (K and V may hold fewer,
// grouped heads, and more rows: queries that are not the whole sequence) and, when options.wantWeights,
// zeroed weights [h, m, n] with n = V's rows. The output storage is taken over from
// options.recycle when its shape matches and is then not cleared: every kernel writes each output element.
RunResult makeQueryResult(const AttentionInputs& inputs, const RunOptions& options);

} // namespace attnlab
