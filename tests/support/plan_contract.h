#pragma once

// The block-plan contract as the tests check it (core/kernels/block_plan.h), and the variant parameter
// cases whose plans they check: shared by the plan tests and the tests that run plans.

#include "core/kernels/block_plan.h"
#include "core/registry.h"

#include <string>
#include <vector>

namespace attnlab::testing {

// Checks the plan's contract against the pattern; returns a description of the first violation.
inline std::string planViolation(const BlockPlan& plan, const Pattern& pattern) {
    const std::int64_t n = pattern.size();
    std::vector<int> covered(static_cast<std::size_t>(n * n), 0);
    std::string problem;
    forEachPlanCell(plan, [&](std::int64_t i, std::int64_t j) {
        if (i < 0 || i >= n || j < 0 || j >= n) problem = "cell outside the plane";
        else ++covered[static_cast<std::size_t>(i * n + j)];
    });
    if (!problem.empty()) return problem;
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const int count = covered[static_cast<std::size_t>(i * n + j)];
            if (count != (pattern.allowed(i, j) ? 1 : 0))
                return "cell (" + std::to_string(i) + ", " + std::to_string(j) + ") covered " + std::to_string(count) +
                       " times, allowed " + std::to_string(pattern.allowed(i, j));
        }
    // Split rows as the plan declares them: each row in one split at most, slot → (pass, row).
    std::vector<std::int64_t> slotRow(static_cast<std::size_t>(plan.partialSlots), -1);
    std::vector<std::size_t> slotPass(static_cast<std::size_t>(plan.partialSlots), 0);
    std::vector<int> slotWrites(static_cast<std::size_t>(plan.partialSlots), 0);
    std::vector<bool> split(static_cast<std::size_t>(n), false);
    for (const SplitRows& rows : plan.splits) {
        const auto count = static_cast<std::int64_t>(rows.rows.size());
        if (rows.chunks < 1 || rows.firstSlot < 0 || rows.firstSlot + rows.chunks * count > plan.partialSlots)
            return "split slots out of range";
        for (const std::int64_t i : rows.rows) {
            if (i < 0 || i >= n || split[static_cast<std::size_t>(i)]) return "split row " + std::to_string(i) + " declared twice";
            split[static_cast<std::size_t>(i)] = true;
        }
        for (std::int64_t c = 0; c < rows.chunks; ++c)
            for (std::int64_t k = 0; k < count; ++k) {
                const auto slot = static_cast<std::size_t>(rows.firstSlot + c * count + k);
                if (slotRow[slot] >= 0) return "slot " + std::to_string(slot) + " in two splits";
                slotRow[slot] = rows.rows[static_cast<std::size_t>(k)];
                slotPass[slot] = rows.pass;
            }
    }
    // Merge flags: per row, the blocks that hold it in pass order; one block per pass at most. Split rows
    // are in chunk blocks only, each writing a slot of the row's split, in that split's pass.
    std::vector<std::vector<const PlanBlock*>> blocksOf(static_cast<std::size_t>(n));
    for (std::size_t pass = 0; pass < plan.passCount(); ++pass) {
        std::vector<int> seen(static_cast<std::size_t>(n), 0);
        for (std::int64_t b = plan.passBegin(pass); b < plan.passEnd[pass]; ++b) {
            const PlanBlock& block = plan.blocks[static_cast<std::size_t>(b)];
            if (block.rowCount < 1 || block.rowCount > kPlanQueryBlock) return "block size out of range";
            if (block.partialSlot >= 0 && (block.resume || !block.finish)) return "chunk block with merge flags";
            for (std::int64_t r = 0; r < block.rowCount; ++r) {
                const std::int64_t i = plan.rows[static_cast<std::size_t>(block.rowOffset + r)];
                if (block.consecutiveRows && i != plan.rows[static_cast<std::size_t>(block.rowOffset)] + r)
                    return "rows marked consecutive are not";
                if (block.partialSlot >= 0) {
                    const auto slot = static_cast<std::size_t>(block.partialSlot + r);
                    if (slot >= slotRow.size() || slotRow[slot] != i || slotPass[slot] != pass)
                        return "row " + std::to_string(i) + " in a chunk block of a slot not its own";
                    ++slotWrites[slot];
                    continue;
                }
                if (split[static_cast<std::size_t>(i)]) return "split row " + std::to_string(i) + " in an ordinary block";
                if (seen[static_cast<std::size_t>(i)]++) return "row " + std::to_string(i) + " twice in one pass";
                blocksOf[static_cast<std::size_t>(i)].push_back(&block);
            }
            for (std::int64_t p = block.pieceBegin; p < block.pieceEnd; ++p)
                if (plan.pieces[static_cast<std::size_t>(p)].count > kPlanKeyBlock) return "piece too wide";
            if (block.pairedWithNext && (b + 1 >= plan.passEnd[pass] || plan.blocks[static_cast<std::size_t>(b) + 1].pairedWithNext))
                return "block " + std::to_string(b) + " paired with a block outside its pass or in another pair";
        }
    }
    for (std::size_t slot = 0; slot < slotWrites.size(); ++slot)
        if (slotWrites[slot] != 1) return "slot " + std::to_string(slot) + " written " + std::to_string(slotWrites[slot]) + " times";
    for (std::int64_t i = 0; i < n; ++i) {
        const auto& blocks = blocksOf[static_cast<std::size_t>(i)];
        if (split[static_cast<std::size_t>(i)]) continue;
        if (blocks.empty()) return "row " + std::to_string(i) + " in no block";
        for (std::size_t k = 0; k < blocks.size(); ++k)
            if (blocks[k]->resume != (k > 0) || blocks[k]->finish != (k + 1 == blocks.size()))
                return "row " + std::to_string(i) + " has inconsistent merge flags";
    }
    return "";
}

struct PlanCase {
    std::string id;
    ParamOverrides overrides;
};

inline const std::vector<PlanCase> kPlanCases = {
    {"full", {}},
    {"strided", {}},
    {"strided", {{"stride", "1"}}},
    {"strided", {{"stride", "2"}}},
    {"strided", {{"stride", "5"}}},
    {"strided", {{"stride", "40"}}},
    {"fixed", {}},
    {"fixed", {{"block", "7"}, {"summary", "3"}}},
    {"longformer", {}},
    {"longformer", {{"window", "9"}, {"dilation", "3"}}},
    {"longformer", {{"window", "20"}, {"dilation", "2"}, {"globals", "0,1"}}},
    {"longformer", {{"window", "0"}, {"dilation", "4"}, {"globals", "3"}}},
    {"chunk", {{"chunk", "10"}}},
    {"xl", {{"segment", "9"}, {"memory", "4"}}},
    {"bigbird", {}},
    {"bigbird", {{"window", "3"}, {"globals", "5"}, {"random", "4"}, {"seed", "3"}}},
    {"bigbird", {{"window", "100"}, {"globals", "1"}, {"random", "5"}}}, // window in shared pieces
    {"bigbird", {{"random", "130"}}}, // rows longer than one row-wise piece
    {"bigbird", {{"block", "16"}, {"window", "3"}, {"globals", "1"}, {"random", "3"}}}, // block mode
    {"bigbird", {{"block", "5"}, {"globals", "2"}, {"random", "2"}, {"seed", "4"}}},   // blocks of 5 rows
    {"bigbird", {{"block", "100"}, {"window", "0"}, {"globals", "1"}, {"random", "1"}}}, // b > kPlanQueryBlock
};

inline bool supports(const VariantInfo& variant, bool causal) {
    if (variant.causalSupport == CausalSupport::CausalOnly) return causal;
    if (variant.causalSupport == CausalSupport::BidirectionalOnly) return !causal;
    return true;
}

} // namespace attnlab::testing
