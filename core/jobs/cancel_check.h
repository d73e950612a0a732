#pragma once

#include <functional>

namespace attnlab {

// Returns true when the job that asked for the work has been superseded; kernels poll it between
// heads or row blocks and then stop early (the result is discarded by the caller).
using CancelCheck = std::function<bool()>;

} // namespace attnlab
