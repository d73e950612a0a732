#pragma once

// What a block kernel pays for a variant's attention core (docs/cost_model.md, "The block kernel's cost"):
// the pattern cut into B × B blocks over sequence positions (core/patterns/block_counts.h), every cell of
// every non-empty block computed, beside the exact cost that counts the allowed cells only.

#include "core/param_schema.h"
#include "core/patterns/block_counts.h"
#include "core/variant.h"

#include <cstdint>
#include <optional>

namespace attnlab {

// The block size the FLOP and timing views cost a block kernel at unless the user sets another.
inline constexpr std::int64_t kDefaultBlockCostSize = 64;

struct BlockKernelCost {
    BlockCounts blocks;
    double exactMacs = 0; // the cost model's attention core: multiply-adds of the allowed cells
    // The same work per cell over the computed cells: exactMacs × computed ÷ allowed cells, i.e. computed
    // cells × (d + dv) × h (plus q·R per cell where there is a relative-position term).
    double blockMacs = 0;
    double ratio() const { return exactMacs > 0 ? blockMacs / exactMacs : 1.0; }
};

// Whether a block kernel's cost is defined for the variant: a masked pattern (every term of its core is
// per allowed cell) that does not depend on Q and K.
bool hasBlockKernelCost(const VariantInfo& variant);

// The block kernel's cost at `blockSize` ≥ 1 (parameters resolved for `shape`); nothing where
// hasBlockKernelCost is false. O(ranges) to build and count the pattern, never an n × n buffer; counts
// towards the thread's RangeWorkLimit as every pattern evaluation does.
std::optional<BlockKernelCost> blockKernelCost(const VariantInfo& variant, const ProblemShape& shape,
                                               const ParamSet& params, std::int64_t blockSize);

} // namespace attnlab
