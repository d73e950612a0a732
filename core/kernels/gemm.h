#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

// The engines a float32 product can run on: OpenBLAS's sgemm (in a build that links it, CMake option
// ATTNLAB_USE_BLAS) and Eigen's own kernels. The layer measurements time both and use the faster
// (core/measure/gemm_choice.h): a BLAS that runs generic kernels on this processor can be far slower.
enum class GemmEngine { OpenBlas, Eigen };

// The engines of this build, OpenBLAS first when linked.
std::vector<GemmEngine> availableGemmEngines();
// The engine behind Eigen's products in the rest of the library (the first available).
GemmEngine defaultGemmEngine();
// "OpenBLAS 0.3.26 (kernels: Haswell)", "Eigen 3.4 (own kernels)".
std::string gemmEngineName(GemmEngine engine);
// The library and its version alone: "OpenBLAS 0.3.26", "Eigen 3.4".
std::string gemmEngineLibrary(GemmEngine engine);
// The kernel set OpenBLAS picked at run time for this processor (openblas_get_corename, overridden by
// OPENBLAS_CORETYPE), e.g. "Haswell", "SkylakeX", "Prescott"; empty without OpenBLAS.
std::string openBlasCoreName();

// C (m × n) = A (m × k) · B (k × n), all row-major float32, the rows of A split into `threads`
// OpenMP stripes that each run one single-threaded product of `engine`.
void multiplyRowMajor(const float* a, const float* b, float* c, std::int64_t m, std::int64_t k, std::int64_t n,
                      int threads, GemmEngine engine = defaultGemmEngine());

// The engine behind Eigen's large products in this build: Eigen's own kernels, or OpenBLAS through
// EIGEN_USE_BLAS (CMake option ATTNLAB_USE_BLAS).
std::string gemmEngineName();

// Keeps the BLAS library single-threaded: parallelism is ours (OpenMP, thread count passed in), and a
// threaded BLAS called from inside our parallel regions would oversubscribe the cores. Idempotent;
// every core entry point that multiplies through Eigen calls it.
void useSerialGemmEngine();

} // namespace attnlab
