#include "core/random/random_features.h"

#include "core/random/random.h"

#include <cmath>

namespace attnlab {

std::vector<double> performerProjection(std::int64_t features, std::int64_t d, std::uint64_t seed, bool orthogonal) {
    std::vector<double> omega(static_cast<std::size_t>(features * d));
    SeededRandom gaussian = SeededRandom::stream(seed, PerformerFeatures);
    if (!orthogonal) {
        for (double& x : omega) x = gaussian.normal();
        return omega;
    }
    SeededRandom norms = SeededRandom::stream(seed, PerformerNorms);
    std::vector<double> block(static_cast<std::size_t>(d * d));
    for (std::int64_t start = 0; start < features; start += d) {
        for (double& x : block) x = gaussian.normal();
        for (std::int64_t r = 0; r < d; ++r) {
            double* row = block.data() + r * d;
            for (std::int64_t p = 0; p < r; ++p) {
                const double* prev = block.data() + p * d;
                double projection = 0;
                for (std::int64_t c = 0; c < d; ++c) projection += row[c] * prev[c];
                for (std::int64_t c = 0; c < d; ++c) row[c] -= projection * prev[c];
            }
            double norm = 0;
            for (std::int64_t c = 0; c < d; ++c) norm += row[c] * row[c];
            norm = std::sqrt(norm);
            for (std::int64_t c = 0; c < d; ++c) row[c] /= norm;
        }
        for (std::int64_t r = 0; r < d && start + r < features; ++r) {
            double chi = 0;
            for (std::int64_t c = 0; c < d; ++c) {
                const double g = norms.normal();
                chi += g * g;
            }
            chi = std::sqrt(chi);
            for (std::int64_t c = 0; c < d; ++c) omega[(start + r) * d + c] = block[r * d + c] * chi;
        }
    }
    return omega;
}

std::vector<double> linformerGaussian(std::int64_t k, std::int64_t n, std::uint64_t seed, std::uint64_t purpose) {
    std::vector<double> matrix(static_cast<std::size_t>(k * n));
    SeededRandom random = SeededRandom::stream(seed, purpose);
    const double scale = 1.0 / std::sqrt(static_cast<double>(k));
    for (double& x : matrix) x = random.normal() * scale;
    return matrix;
}

std::vector<double> linformerPool(std::int64_t k, std::int64_t n) {
    std::vector<double> matrix(static_cast<std::size_t>(k * n), 0.0);
    for (std::int64_t r = 0; r < k; ++r) {
        const std::int64_t begin = r * n / k, end = (r + 1) * n / k;
        for (std::int64_t j = begin; j < end; ++j) matrix[r * n + j] = 1.0 / static_cast<double>(end - begin);
    }
    return matrix;
}

std::vector<double> lshRotation(std::int64_t d, std::int64_t halfBuckets, std::uint64_t seed, std::int64_t round) {
    std::vector<double> rotation(static_cast<std::size_t>(d * halfBuckets));
    SeededRandom random = SeededRandom::stream(seed, LshRotation, static_cast<std::uint64_t>(round));
    for (double& x : rotation) x = random.normal();
    return rotation;
}

} // namespace attnlab
