#pragma once

#include "core/masked_attention.h"

namespace attnlab {

// Masked attention (softmax or relu²) in blocks of 64 query rows × kKeyBlock keys, for one pattern
// per head or one shared by all heads:
//  - each query block gathers its rows' column ranges and visits only the key blocks they touch;
//    fully allowed blocks run unmasked, partial blocks get −inf (softmax) or 0 (relu²) in the
//    cells outside the pattern, so the work follows the pattern's non-empty blocks;
//  - scores S^T = K_block · Q_blockᵀ and the update O += P·V_block are register-tiled products,
//    the softmax is online (running row max and sum, exp2 with the scale·log2(e) folded into Q);
//  - a query block whose rows share a few columns spread over many key blocks (fixed's summary
//    columns, globals) copies the union of its columns' K and V rows together and runs on that;
//  - a query block whose touched blocks are mostly empty either way (rows with different sparse
//    columns, such as strided or dilated patterns) and relative-position scoring fall back to the
//    per-row kernel, which visits each row's ranges directly, so time stays proportional to nnz.
// Extra memory is O(64 · (d + dv + kKeyBlock)) floats per thread, kept between calls. Cancellation
// is polled before every query block.
RunResult runBlockAttention(const AttentionInputs& inputs, const HeadPatterns& patterns, const MaskedScoring& scoring,
                            const RunOptions& options);

// Keys per block of the block kernel.
inline constexpr std::int64_t kKeyBlock = 120;

// Bytes of the block kernel's per-thread workspace for one thread.
double blockAttentionWorkspaceBytes(std::int64_t d, std::int64_t dv);

} // namespace attnlab
