#include "core/variants/lsh_hashing.h"

#include "core/jobs/recent_values.h"
#include "core/kernels/tile_math.h"
#include "core/random/random_features.h"

#include <algorithm>
#include <cmath>
#include <memory>
#include <string>

namespace attnlab {

namespace {

// Row stride of the float rotation and the projections: whole vectors plus one, so that rows a power of
// two apart (b/2 = 256 floats at n = 16,384) do not all fall into the same few sets of the first-level
// cache, where the tile products would evict their own operands.
std::int64_t paddedStride(std::int64_t halfBuckets) {
    return tile::paddedWidth(halfBuckets) + tile::kLanes;
}

// Rows hashed per tile product: their projections (rows × b/2 floats) stay in the first-level cache
// for the argmax that follows.
constexpr std::int64_t kHashRows = 24;

// Bucket of one row under R, in double; ties go to the lower index.
std::int64_t hashRowExactly(const float* row, std::int64_t d, const LshRotation& rotation, std::vector<double>& projected) {
    const std::int64_t half = rotation.halfBuckets;
    projected.assign(static_cast<std::size_t>(half), 0.0);
    for (std::int64_t c = 0; c < d; ++c)
        for (std::int64_t b = 0; b < half; ++b) projected[b] += static_cast<double>(row[c]) * rotation.exact[c * half + b];
    std::int64_t best = 0;
    double bestValue = projected[0];
    for (std::int64_t b = 1; b < 2 * half; ++b) {
        const double value = b < half ? projected[b] : -projected[b - half];
        if (value > bestValue) {
            bestValue = value;
            best = b;
        }
    }
    return best;
}

LshRotation makeRotation(std::int64_t d, std::int64_t halfBuckets, std::uint64_t seed, std::int64_t round) {
    LshRotation rotation;
    rotation.halfBuckets = halfBuckets;
    rotation.exact = lshRotation(d, halfBuckets, seed, round);
    rotation.singleStride = paddedStride(halfBuckets);
    rotation.single.assign(static_cast<std::size_t>(d * rotation.singleStride), 0.0f);
    for (std::int64_t c = 0; c < d; ++c)
        std::copy_n(rotation.exact.begin() + c * halfBuckets, halfBuckets, rotation.single.begin() + c * rotation.singleStride);
    for (const double x : rotation.exact) rotation.largest = std::max(rotation.largest, std::fabs(x));
    return rotation;
}

} // namespace

std::shared_ptr<const std::vector<LshRotation>> lshRotations(std::int64_t d, std::int64_t buckets, std::uint64_t seed,
                                                              std::int64_t rounds) {
    const std::string key = "d=" + std::to_string(d) + " b=" + std::to_string(buckets) + " seed=" + std::to_string(seed) +
                            " rounds=" + std::to_string(rounds);
    return recentValue<std::vector<LshRotation>, 4>(key, [&] {
        auto rotations = std::make_shared<std::vector<LshRotation>>();
        for (std::int64_t r = 0; r < rounds; ++r) rotations->push_back(makeRotation(d, buckets / 2, seed, r));
        return std::shared_ptr<const std::vector<LshRotation>>(std::move(rotations));
    });
}

// The projections of kHashRows rows at a time are one float tile product; a row whose two best
// candidates are closer than float rounding could reorder (bounded by d·2⁻²³·‖x‖₁·max|R|, with margin)
// is hashed again in double.
void hashRows(const float* rows, std::int64_t n, std::int64_t d, const LshRotation& rotation, std::int64_t* buckets) {
    const std::int64_t half = rotation.halfBuckets;
    const std::int64_t stride = rotation.singleStride;
    static thread_local tile::AlignedBuffer buffer;
    static thread_local std::vector<double> exact;
    float* projected = buffer.reserve(static_cast<std::size_t>(kHashRows * stride));
    tile::TileProduct product;
    product.depth = d;
    product.aRowStride = d;
    product.aDepthStride = 1;
    product.b = rotation.single.data();
    product.bRowStride = rotation.singleStride;
    product.c = projected;
    product.cRowStride = stride;
    const double perUnitNorm = 4.0 * static_cast<double>(d + 1) * 0x1p-23 * rotation.largest;
    for (std::int64_t first = 0; first < n; first += kHashRows) {
        const std::int64_t count = std::min(kHashRows, n - first);
        product.a = rows + first * d;
        tile::multiplyBlock(product, count, half);
        for (std::int64_t r = 0; r < count; ++r) {
            const float* row = rows + (first + r) * d;
            float bestValue = 0, second = 0;
            const std::int64_t best = tile::signedArgmax(projected + r * stride, half, bestValue, second);
            const double margin = static_cast<double>(bestValue) - second;
            // ‖x‖₁ ≤ √d·‖x‖₂ (the float dot is within 2⁻¹⁰ of ‖x‖₂²): most rows clear the bound without ‖x‖₁.
            const double squares = static_cast<double>(tile::dot(row, row, d)) * (1.0 + 0x1p-10);
            if (margin > perUnitNorm * std::sqrt(static_cast<double>(d) * squares)) {
                buckets[first + r] = best;
                continue;
            }
            double norm = 0;
            for (std::int64_t c = 0; c < d; ++c) norm += std::fabs(static_cast<double>(row[c]));
            buckets[first + r] = margin > perUnitNorm * norm ? best : hashRowExactly(row, d, rotation, exact);
        }
    }
}

void hashHead(const Tensor3& q, const Tensor3& keys, int h, int keyHead, const ParamSet& params, HeadHashes& hashes) {
    const std::int64_t n = q.rows, d = q.cols, rounds = params.integer("rounds");
    const auto rotations = lshRotations(d, params.integer("buckets"), static_cast<std::uint64_t>(params.integer("seed")), rounds);
    hashes.query.resize(static_cast<std::size_t>(rounds));
    hashes.key.resize(static_cast<std::size_t>(rounds));
    for (std::size_t r = 0; r < static_cast<std::size_t>(rounds); ++r) {
        hashes.key[r].resize(static_cast<std::size_t>(n));
        hashes.query[r].resize(static_cast<std::size_t>(n));
        hashRows(keys.head(keyHead), n, d, (*rotations)[r], hashes.key[r].data());
        hashRows(q.head(h), n, d, (*rotations)[r], hashes.query[r].data());
    }
}

} // namespace attnlab
