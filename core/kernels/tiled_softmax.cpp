#include "core/kernels/tiled_softmax.h"

#include "core/kernels/block_attention.h"
#include "core/variants/variant_support.h"

#include <cmath>

namespace attnlab {

RunResult runTiledSoftmax(const AttentionInputs& inputs, const RunOptions& options) {
    MaskedScoring scoring;
    scoring.scale = 1.0 / std::sqrt(static_cast<double>(inputs.q->cols));
    return runPlannedAttention(inputs, {allPairsPlan(inputs.q->rows, options.causal)}, scoring, options);
}

} // namespace attnlab
