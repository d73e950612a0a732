#pragma once

// Block plans of the lsh variant (Reformer's way): per round, queries and keys sorted by bucket (then
// by index), a block never spanning two buckets, so each bucket is a dense (causal) block. A pair that
// already matched in an earlier round is left out; with shared_qk a row's own key is left out unless
// nothing else is left; a row with no key at all gets its own (in round 0).

#include "core/kernels/block_plan.h"
#include "core/variants/lsh_hashing.h"

#include <memory>

namespace attnlab {

// The plan of one head's hashes. With `storage`, a plan the caller keeps between runs: refilled in
// place (its vectors keep their capacity) when nobody else holds it, else replaced by a new one.
std::shared_ptr<const BlockPlan> lshPlan(const HeadHashes& hashes, std::int64_t n, const ParamSet& params, bool causal,
                                         std::shared_ptr<BlockPlan>* storage = nullptr);

} // namespace attnlab
