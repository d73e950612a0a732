#include "core/kernels/feature_map_chunks.h"

#include <algorithm>

namespace attnlab::featurechunks {

void multiply(const float* a, std::int64_t aRowStride, std::int64_t aDepthStride, std::int64_t depth, const float* b,
              std::int64_t bStride, float* c, std::int64_t cStride, std::int64_t rows, std::int64_t width,
              tile::Accumulate mode, tile::PrefetchQueue* prefetch) {
    tile::TileProduct product;
    product.prefetch = prefetch;
    product.depth = depth;
    product.a = a;
    product.aRowStride = aRowStride;
    product.aDepthStride = aDepthStride;
    product.b = b;
    product.bRowStride = bStride;
    product.c = c;
    product.cRowStride = cStride;
    product.mode = mode;
    tile::multiplyBlock(product, rows, width);
}

void transposeChunk(const float* src, std::int64_t rows, std::int64_t m, float* dst) {
    const std::int64_t wholeRows = rows / 16 * 16, wholeFeatures = m / 16 * 16;
    for (std::int64_t j = 0; j < wholeRows; j += 16)
        for (std::int64_t f = 0; f < wholeFeatures; f += 16) tile::transpose16(src + j * m + f, m, dst + f * kChunk + j, kChunk);
    for (std::int64_t f = 0; f < m; ++f)
        for (std::int64_t j = f < wholeFeatures ? wholeRows : 0; j < rows; ++j) dst[f * kChunk + j] = src[j * m + f];
}

void causalChunk(const float* queries, const float* keysT, const float* v, std::int64_t rows, std::int64_t m,
                 std::int64_t dv, float* local, float* numerator, std::int64_t width, float* rowSums,
                 tile::PrefetchQueue* prefetch) {
    for (std::int64_t r0 = 0; r0 < rows; r0 += tile::kTileRows) {
        const std::int64_t r1 = std::min<std::int64_t>(rows, r0 + tile::kTileRows);
        multiply(queries + r0 * m, m, 1, m, keysT, kChunk, local + r0 * kChunk, kChunk, r1 - r0, r1,
                 tile::Accumulate::Overwrite, prefetch);
        for (std::int64_t r = r0; r < r1; ++r) {
            std::fill(local + r * kChunk + r + 1, local + r * kChunk + r1, 0.0f);
            if (rowSums) rowSums[r] = tile::sum(local + r * kChunk, r + 1);
        }
        multiply(local + r0 * kChunk, kChunk, 1, r1, v, dv, numerator + r0 * width, width, r1 - r0, dv,
                 tile::Accumulate::Overwrite, prefetch);
    }
}

} // namespace attnlab::featurechunks
