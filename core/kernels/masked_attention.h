#pragma once

#include "core/patterns/pattern.h"
#include "core/variant.h"

#include <memory>
#include <vector>

namespace attnlab {

// How a masked variant turns q_i·k_j into a weight.
//  Softmax:      w_ij = exp(s_ij) / Σ_{j∈M_i} exp(s_ij), s_ij = scale · (q_i·k_j + q_i·R_{i−j}).
//  ReluSquared:  w_ij = relu(q_i·k_j)² / normalizer (FLASH's GAU; no softmax, no scale).
struct MaskedScoring {
    enum class Kind { Softmax, ReluSquared };
    Kind kind = Kind::Softmax;
    double scale = 1.0;
    double normalizer = 1.0;
    // Optional relative-position table, row p (= i − j ≥ 0) of d values (Transformer-XL), with a row for
    // every distance of an allowed cell; may be null.
    const std::vector<float>* relativePositions = nullptr;
    // Position of query row 0 (queries that are not the whole sequence): row r's distance to key j is
    // firstQuery + r − j.
    std::int64_t firstQuery = 0;
};

// One pattern shared by all heads (size 1) or one per head (size h).
using HeadPatterns = std::vector<std::unique_ptr<Pattern>>;

// One pattern shared by all heads.
HeadPatterns sharedPattern(std::unique_ptr<Pattern> pattern);

// Cost of the masked core (softmax or relu²) over a mask with `nnzPerHead` allowed pairs per head:
// scores = nnz·d·h, weights_v = nnz·dv·h, and one exponential per pair for softmax.
CoreCost maskedCoreCost(const ProblemShape& shape, double nnzPerHead, bool softmax = true);

// Attention over an allowed set, fast path: the block kernel of core/kernels/block_attention.h on
// each pattern's generic block plan (core/kernels/block_plan.h), built for the call. Variants that
// know a better plan, or want theirs kept between runs, call runPlannedAttention instead.
RunResult runMaskedAttention(const AttentionInputs& inputs, const HeadPatterns& patterns,
                             const MaskedScoring& scoring, const RunOptions& options);

// Plain reference: every (i, j) of the plane, membership through Pattern::allowed, double accumulation.
RunResult runMaskedAttentionReference(const AttentionInputs& inputs, const HeadPatterns& patterns,
                                      const MaskedScoring& scoring, const RunOptions& options);

// The fast path's float32 tiles overflow where a score q·k/√d passes 3.4e38 (1e20 in Q and K) although
// the softmax of those scores is finite. A result row (output, or weights when asked) that is not
// finite is computed again by the reference row in double, which subtracts the row's largest score;
// rows whose answer itself overflows float32 stay non-finite for the caller to refuse. The fast
// paths call these after the kernel (runMaskedAttention itself does); `threads` share the scan. Given
// the output's finiteness as the block kernel found it (runPlannedAttention's nonFiniteOutput), only the
// weights are scanned.
bool hasNonFiniteRow(const RunResult& result, int threads);
// Whether values[0, size) hold no inf or NaN.
bool finiteValues(const float* values, std::int64_t size);
bool hasNonFiniteRow(const RunResult& result, int threads, bool nonFiniteOutput);
void redoNonFiniteRows(const AttentionInputs& inputs, const HeadPatterns& patterns, const MaskedScoring& scoring,
                       RunResult& result);

// Dispatches to the reference or the fast path by options.useReference.
RunResult runMasked(const AttentionInputs& inputs, const HeadPatterns& patterns, const MaskedScoring& scoring,
                    const RunOptions& options);

// Number of query rows processed between two cancellation polls.
inline constexpr std::int64_t kRowBlock = 64;

} // namespace attnlab
