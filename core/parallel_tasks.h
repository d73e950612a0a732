#pragma once

#include "core/variant.h"

#include <cstdint>
#include <functional>

namespace attnlab {

// Runs task(t) for every t in [0, count) on `threads` OpenMP threads, handing tasks out one at a time
// (heads or query blocks differ in cost). `cancelled` is polled before each task; once it answers true
// no further task starts. Returns false when the run was cancelled.
bool runTasks(std::int64_t count, int threads, const CancelCheck& cancelled, const std::function<void(std::int64_t)>& task);

} // namespace attnlab
