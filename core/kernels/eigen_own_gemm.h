#pragma once

#include <cstdint>

namespace attnlab {

// C (m × n) = A (m × k) · B (k × n), row-major float32, on one thread with Eigen's own kernels, whatever
// engine the build routes Eigen's other products through.
void multiplyWithEigenKernels(const float* a, const float* b, float* c, std::int64_t m, std::int64_t k, std::int64_t n);

} // namespace attnlab
