#include "core/kernels/gemm.h"

#include "core/jobs/parallel_tasks.h"
#include "core/kernels/eigen_own_gemm.h"

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

namespace {

std::string eigenVersion() { return "Eigen " + std::to_string(EIGEN_WORLD_VERSION) + "." + std::to_string(EIGEN_MAJOR_VERSION); }

} // namespace

std::string gemmEngineLibrary(GemmEngine engine) {
#if defined(ATTNLAB_WITH_OPENBLAS)
    if (engine == GemmEngine::OpenBlas) { // the config string starts "OpenBLAS 0.3.26 ..."
        const std::string config = openblas_get_config();
        return config.substr(0, config.find(' ', config.find(' ') + 1));
    }
#endif
    (void)engine;
    return eigenVersion();
}

std::vector<GemmEngine> availableGemmEngines() {
#if defined(ATTNLAB_WITH_OPENBLAS)
    return {GemmEngine::OpenBlas, GemmEngine::Eigen};
#else
    return {GemmEngine::Eigen};
#endif
}

GemmEngine defaultGemmEngine() { return availableGemmEngines().front(); }

std::string openBlasCoreName() {
#if defined(ATTNLAB_WITH_OPENBLAS)
    return openblas_get_corename();
#else
    return {};
#endif
}

std::string gemmEngineName(GemmEngine engine) {
    if (engine == GemmEngine::OpenBlas) return gemmEngineLibrary(engine) + " (kernels: " + openBlasCoreName() + ")";
    return gemmEngineLibrary(engine) + " (own kernels)";
}

std::string gemmEngineName() {
#if defined(ATTNLAB_WITH_OPENBLAS)
    // The core name is the kernel set picked at run time, which decides the engine's speed.
    return eigenVersion() + " over " + gemmEngineName(GemmEngine::OpenBlas);
#else
    return gemmEngineName(GemmEngine::Eigen);
#endif
}

void multiplyRowMajor(const float* a, const float* b, float* c, std::int64_t m, std::int64_t k, std::int64_t n,
                      int threads, GemmEngine engine) {
    using RowMatrix = Eigen::Matrix<float, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    useSerialGemmEngine();
    const int stripes = static_cast<int>(std::clamp<std::int64_t>(threads, 1, std::max<std::int64_t>(1, m)));
    const Eigen::Map<const RowMatrix> right(b, k, n);
    ParallelErrors errors;
#pragma omp parallel for schedule(static, 1) num_threads(stripes)
    for (int s = 0; s < stripes; ++s)
        errors.run([&] {
            const std::int64_t row0 = m * s / stripes, row1 = m * (s + 1) / stripes;
            if (engine == GemmEngine::Eigen) {
                multiplyWithEigenKernels(a + row0 * k, b, c + row0 * n, row1 - row0, k, n);
                return;
            }
            Eigen::Map<RowMatrix>(c + row0 * n, row1 - row0, n).noalias() =
                Eigen::Map<const RowMatrix>(a + row0 * k, row1 - row0, k) * right;
        });
    errors.rethrowFirst();
}

} // namespace attnlab
