#include "core/kernels/run_result.h"

namespace attnlab {

RunResult makeQueryResult(const AttentionInputs& inputs, const RunOptions& options) {
    const int heads = inputs.q->heads;
    const std::int64_t n = inputs.q->rows, dv = inputs.v->cols;
    RunResult result;
    const Tensor3* earlier = options.recycle ? &options.recycle->out : nullptr;
    if (earlier && earlier->heads == heads && earlier->rows == n && earlier->cols == dv)
        result.out = std::move(options.recycle->out);
    else
        result.out = Tensor3(heads, n, dv);
    if (options.wantWeights) result.weights = Tensor3(heads, n, inputs.v->rows);
    return result;
}

} // namespace attnlab
