#include "core/analysis/block_cost.h"

#include "core/registry.h"

namespace attnlab {

bool hasBlockKernelCost(const VariantInfo& variant) {
    return variant.hasMask && !variant.dataDependentPattern;
}

std::optional<BlockKernelCost> blockKernelCost(const VariantInfo& variant, const ProblemShape& shape,
                                               const ParamSet& params, std::int64_t blockSize) {
    if (!hasBlockKernelCost(variant)) return std::nullopt;
    BlockKernelCost cost;
    cost.blocks = countBlocks(*buildPattern(variant, shape, params), blockSize);
    for (const auto& [term, macs] : variant.cost(shape, params).terms)
        cost.exactMacs += macs;
    const auto allowed = static_cast<double>(cost.blocks.allowedCells);
    cost.blockMacs = allowed > 0 ? cost.exactMacs * static_cast<double>(cost.blocks.computedCells) / allowed
                                 : cost.exactMacs;
    return cost;
}

} // namespace attnlab
