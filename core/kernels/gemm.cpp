#include "core/kernels/gemm.h"

#include "core/jobs/parallel_tasks.h"

#include <Eigen/Core>
#include <algorithm>
#include <mutex>

#if defined(ATTNLAB_WITH_OPENBLAS)
extern "C" void openblas_set_num_threads(int threads);
extern "C" char* openblas_get_config();
extern "C" char* openblas_get_corename();
#endif

namespace attnlab {

void useSerialGemmEngine() {
#if defined(ATTNLAB_WITH_OPENBLAS)
    static std::once_flag once;
    std::call_once(once, [] { openblas_set_num_threads(1); });
#endif
}

std::string gemmEngineName() {
#if defined(ATTNLAB_WITH_OPENBLAS)
    // The config string starts "OpenBLAS 0.3.26 ..."; the core name is the kernel set picked at run time
    // (OPENBLAS_CORETYPE overrides it), which decides the engine's speed.
    const std::string config = openblas_get_config();
    const std::string version = config.substr(0, config.find(' ', config.find(' ') + 1));
    return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) + " over " +
           version + " (kernels: " + openblas_get_corename() + ")";
#else
    return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION) +
           " (own kernels)";
#endif
}

void multiplyRowMajor(const float* a, const float* b, float* c, std::int64_t m, std::int64_t k, std::int64_t n,
                      int threads) {
    using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    useSerialGemmEngine();
    const int stripes = static_cast<int>(std::clamp<std::int64_t>(threads, 1, std::max<std::int64_t>(1, m)));
    const Eigen::Map<const RowMatrix> right(b, k, n);
    ParallelErrors errors;
#pragma omp parallel for schedule(static, 1) num_threads(stripes)
    for (int s = 0; s < stripes; ++s)
        errors.run([&] {
            const std::int64_t row0 = m * s / stripes, row1 = m * (s + 1) / stripes;
            Eigen::Map<RowMatrix>(c + row0 * n, row1 - row0, n).noalias() =
                Eigen::Map<const RowMatrix>(a + row0 * k, row1 - row0, k) * right;
        });
    errors.rethrowFirst();
}

} // namespace attnlab
