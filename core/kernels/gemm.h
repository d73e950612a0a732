#pragma once

#include <cstdint>
#include <string>

namespace attnlab {

// C (m × n) = A (m × k) · B (k × n), all row-major float32, the rows of A split into `threads`
// OpenMP stripes that each run one single-threaded product of the GEMM engine.
void multiplyRowMajor(const float* a, const float* b, float* c, std::int64_t m, std::int64_t k, std::int64_t n,
                      int threads);

// The engine behind Eigen's large products in this build: Eigen's own kernels, or OpenBLAS through
// EIGEN_USE_BLAS (CMake option ATTNLAB_USE_BLAS).
std::string gemmEngineName();

// Keeps the BLAS library single-threaded: parallelism is ours (OpenMP, thread count passed in), and a
// threaded BLAS called from inside our parallel regions would oversubscribe the cores. Idempotent;
// every core entry point that multiplies through Eigen calls it.
void useSerialGemmEngine();

} // namespace attnlab
