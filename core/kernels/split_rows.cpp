// Split rows' merge after their pass (block_job.h): each row's chunk results, left in slots by the chunk
// blocks (block_attention.cpp, finishRows), combined into its output row.
#include "core/kernels/block_job.h"

#include <algorithm>
#include <utility>

namespace attnlab::block {

namespace {

// One split row's chunk results (slots first + c·stride, c < chunks) merged into its output row as one
// softmax (each chunk's sum and output rescaled to the largest max, as a later block rescales an earlier
// one) or, for relu², added. Returns the row's final max and sum.
std::pair<float, float> mergeChunks(const PartialRows& partials, int head, std::int64_t first, std::int64_t stride,
                                    std::int64_t chunks, bool softmax, std::int64_t dv, float* out) {
    const std::int64_t width = paddedWidth(dv);
    float rowMax = tile::kNoMax, rowSum = 0;
    for (std::int64_t c = 0; c < chunks && softmax; ++c) rowMax = std::max(rowMax, partials.slot(head, first + c * stride)[width]);
    std::fill(out, out + dv, 0.0f);
    for (std::int64_t c = 0; c < chunks; ++c) {
        const float* slot = partials.slot(head, first + c * stride);
        const float factor = softmax ? tile::exp2Scalar(slot[width] - rowMax) : 1.0f;
        rowSum += slot[width + 1] * factor;
        for (std::int64_t e = 0; e < dv; ++e) out[e] += slot[e] * factor;
    }
    const float norm = softmax ? 1.0f / rowSum : 1.0f;
    for (std::int64_t e = 0; e < dv; ++e) out[e] *= norm;
    return {rowMax, rowSum};
}

} // namespace

bool mergeSplitRows(const AttentionInputs& inputs, const HeadPlans& plans, std::size_t pass, const PartialRows& partials,
                    bool softmax, float* stats, Tensor3& out) {
    bool finite = true;
    for (int head = 0; head < inputs.q->heads; ++head)
        for (const SplitRows& split : planOf(plans, head).splits) {
            if (split.pass != pass) continue;
            const auto count = static_cast<std::int64_t>(split.rows.size());
            for (std::int64_t k = 0; k < count; ++k) {
                const std::int64_t i = split.rows[static_cast<std::size_t>(k)];
                const auto [rowMax, rowSum] = mergeChunks(partials, head, split.firstSlot + k, count, split.chunks, softmax,
                                                          inputs.v->cols, out.row(head, i));
                finite = finite && finiteValues(out.row(head, i), inputs.v->cols);
                if (!stats) continue;
                float* rowStats = stats + 2 * (static_cast<std::int64_t>(head) * inputs.q->rows + i);
                rowStats[0] = rowMax;
                rowStats[1] = rowSum;
            }
        }
    return finite;
}

} // namespace attnlab::block
