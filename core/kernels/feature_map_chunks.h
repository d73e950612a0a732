#pragma once

// Internal to the chunked linear-attention kernels (feature_map_attention.cpp, efficient_attention.cpp):
// one thread's chunk buffers and the products a chunk is made of.

#include "core/kernels/feature_map_attention.h"
#include "core/kernels/tile_math.h"

#include <algorithm>
#include <initializer_list>
#include <utility>
#include <vector>

namespace attnlab::featurechunks {

inline constexpr std::int64_t kChunk = kFeatureMapChunk;

// One chunk's buffers, m features wide (φ of Q and K for the feature maps, softmax(q)/Z and e^(k−M)
// for efficient attention), rows padded to whole vectors where they are products' outputs.
struct ChunkBuffers {
    float* queries;   // [kChunk][m]
    float* keys;      // [kChunk][m]
    float* keysT;     // [m][kChunk]: the chunk's keys transposed
    float* local;     // [kChunk][kChunk]: queries · keysᵀ, masked to j ≤ i
    float* numerator; // [kChunk][padded dv]
    float* state;     // [m][padded dv]: Σ key_j v_jᵀ over the keys absorbed so far, zeroed by reserve()
};

// Rows [row0, row0 + rows) of head `head` of t, as a range for queueNext (nothing past the last row or
// without a tensor).
inline std::pair<const float*, std::int64_t> nextRows(const Tensor3* t, int head, std::int64_t row0, std::int64_t rows) {
    const std::int64_t count = t ? std::min(rows, t->rows - row0) : 0;
    return {count > 0 ? t->row(head, row0) : nullptr, count * (t ? t->cols : 0)};
}

// One thread's chunk buffers, kept between calls (freshly mapped pages are slow to touch).
struct ChunkWorkspace {
    tile::AlignedBuffer queries, keys, keysT, local, numerator, state;
    std::vector<float> keySum;  // [m]: Σ of the absorbed keys (feature maps), Z_m (efficient)
    std::vector<float> keyMax;  // [m]: efficient attention's running max M_m of column m of K
    std::vector<float> rowSums; // [kChunk]: row sums of `local`
    tile::PrefetchLines prefetchLines;       // the next chunk's input lines, requested as the products run
    tile::PrefetchQueue prefetch;

    // Queues the input rows the next chunk reads, given as (first float, count) ranges (a null first is
    // skipped), for this chunk's products to request so that they arrive while it computes; the
    // hardware prefetcher would only start on them once the chunk reads them.
    void queueNext(std::initializer_list<std::pair<const float*, std::int64_t>> ranges) {
        prefetchLines.clear();
        for (const auto& [first, count] : ranges)
            if (first) prefetchLines.append(first, count);
        prefetch = prefetchLines.queue();
    }

    ChunkBuffers reserve(std::int64_t m, std::int64_t width) {
        const auto chunk = static_cast<std::size_t>(kChunk), features = static_cast<std::size_t>(m);
        const auto rowWidth = static_cast<std::size_t>(width);
        ChunkBuffers buffers{queries.reserve(chunk * features),    keys.reserve(chunk * features),
                             keysT.reserve(features * chunk),      local.reserve(chunk * chunk),
                             numerator.reserve(chunk * rowWidth), state.reserve(features * rowWidth)};
        std::fill(buffers.state, buffers.state + features * rowWidth, 0.0f);
        keySum.assign(features, 0.0f);
        rowSums.resize(chunk);
        return buffers;
    }
};

// rows × width product into `c` (row stride cStride): A given by pointer and strides, B row-major; the
// tiles request the queued lines of `prefetch`, if given.
void multiply(const float* a, std::int64_t aRowStride, std::int64_t aDepthStride, std::int64_t depth, const float* b,
              std::int64_t bStride, float* c, std::int64_t cStride, std::int64_t rows, std::int64_t width,
              tile::Accumulate mode, tile::PrefetchQueue* prefetch = nullptr);

// dst[f][j] = src[j][f] for j < rows, f < m: the chunk's features transposed (dst row stride kChunk).
void transposeChunk(const float* src, std::int64_t rows, std::int64_t m, float* dst);

// The intra-chunk part of a causal chunk: numerator = (Q_c K_cᵀ masked to j ≤ i) V_c, and the masked
// rows' sums into rowSums (if given). Works in stripes of kTileRows queries, each computing only the key
// columns up to its last row, so the masked upper triangle costs (almost) nothing.
// queries [rows][m], keysT [m][kChunk], v [rows][dv]; local [kChunk][kChunk], numerator [kChunk][width].
void causalChunk(const float* queries, const float* keysT, const float* v, std::int64_t rows, std::int64_t m,
                 std::int64_t dv, float* local, float* numerator, std::int64_t width, float* rowSums,
                 tile::PrefetchQueue* prefetch);

} // namespace attnlab::featurechunks
