#pragma once

#include "core/kernels/block_plan.h"
#include "core/kernels/masked_attention.h"

namespace attnlab {

// One plan shared by all heads (size 1) or one per query head (size h).
using HeadPlans = std::vector<std::shared_ptr<const BlockPlan>>;

// The one kernel behind every masked variant: executes block plans (block_plan.h), softmax or relu²,
// pass after pass. Per query block: the block's rows of Q are gathered, transposed and scaled once;
// per piece, S^T = K_piece · Q_blockᵀ and O += P·V_piece are register-tiled products reading the
// piece's K and V rows in place through row pointers (no copies, whatever the columns), the cells
// outside the piece's mask become −inf (softmax) or 0 (relu²), and the softmax is online (running row
// max and sum, exp2 with scale·log2(e) folded into Q). A row continued in a later pass leaves its
// unnormalised output in `out` and its running max and sum in a per-call buffer; the later block
// merges into them (log-sum-exp), so a row is one softmax however its columns are split.
// Relative positions (MaskedScoring::relativePositions) are added as one more product per piece
// (R_{p} · Q_blockᵀ over the piece's distances, then skewed) where rows and columns are consecutive,
// cell by cell elsewhere. Weights, when asked, are rebuilt in a second sweep from the final row max
// and sum. K and V of query head t are read from head inputs.kvHead(t). Blocks a plan pairs
// (PlanBlock::pairedWithNext) run together, piece by piece, so their shared keys are read once.
// Memory: O(64 · (d + dv + kPlanKeyBlock)) floats per thread (two workspaces) kept between calls, plus 2 floats per
// row and head for plans with several passes or when weights are asked for (kept between calls on
// the calling thread). Cancellation is polled before every query block. Every output value is checked as
// it is stored: with nonFiniteOutput, *nonFiniteOutput says whether any is inf or NaN (hasNonFiniteRow
// then need not read the output again).
RunResult runPlannedAttention(const AttentionInputs& inputs, const HeadPlans& plans, const MaskedScoring& scoring,
                              const RunOptions& options, bool* nonFiniteOutput = nullptr);

// runPlannedAttention on each pattern's generic plan (genericBlockPlan), built for this call.
RunResult runBlockAttention(const AttentionInputs& inputs, const HeadPatterns& patterns, const MaskedScoring& scoring,
                            const RunOptions& options, bool* nonFiniteOutput = nullptr);

} // namespace attnlab
