// Eigen's own product kernels in a build whose Eigen products go through OpenBLAS (EIGEN_USE_BLAS): this
// file includes Eigen without EIGEN_USE_BLAS and under another namespace name, so its instantiations
// cannot be merged with the BLAS-routed ones of the other files (one definition rule). It includes
// Eigen before anything else and no other header that includes Eigen.
#undef EIGEN_USE_BLAS
#define Eigen AttnlabOwnEigen
#include <Eigen/Core>
#undef Eigen

#include "core/kernels/eigen_own_gemm.h"

namespace attnlab {

void multiplyWithEigenKernels(const float* a, const float* b, float* c, std::int64_t m, std::int64_t k, std::int64_t n) {
    using RowMatrix = AttnlabOwnEigen::Matrix<float, AttnlabOwnEigen::Dynamic, AttnlabOwnEigen::Dynamic, AttnlabOwnEigen::RowMajor>;
    AttnlabOwnEigen::Map<RowMatrix>(c, m, n).noalias() =
        AttnlabOwnEigen::Map<const RowMatrix>(a, m, k) * AttnlabOwnEigen::Map<const RowMatrix>(b, k, n);
}

} // namespace attnlab
