#include "core/kernels/tiled_softmax.h"

#include "core/kernels/block_attention.h"
#include "core/variant_support.h"

#include <cmath>

namespace attnlab {

RunResult runTiledSoftmax(const AttentionInputs& inputs, const RunOptions& options) {
    MaskedScoring scoring;
    scoring.scale = 1.0 / std::sqrt(static_cast<double>(inputs.q->cols));
    const std::int64_t n = inputs.q->rows;
    const auto plan = cachedPlan(planKey("all pairs", n, options.causal, {}),
                                 [&] { return genericBlockPlan(*allPairsPattern(n, options.causal)); });
    return runPlannedAttention(inputs, {plan}, scoring, options);
}

} // namespace attnlab
