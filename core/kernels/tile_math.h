#pragma once

// Register-blocked building blocks of the block attention kernels: a small dense product whose
// result tile stays in vector registers, a vectorised 2^x and the per-block online-softmax step.
// With AVX-512 they use intrinsics; otherwise plain loops give the same results more slowly.

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <new>
#include <vector>

namespace attnlab::tile {

// Lanes of one vector register (float32).
inline constexpr int kLanes = 16;
// A row of `width` floats padded to whole vectors.
inline constexpr std::int64_t paddedWidth(std::int64_t width) { return (width + kLanes - 1) / kLanes * kLanes; }
// Query rows of one block: the score tile S^T [keys][kQueryBlock] holds a block row in 4 registers.
inline constexpr int kQueryBlock = 64;
// Rows of A (keys for scores, queries for P·V) per register tile, and vectors of B per tile.
inline constexpr int kTileRows = 6;
inline constexpr int kTileVectors = 4;

// How a product tile meets the values already in C.
enum class Accumulate {
    Overwrite,   // C = A·B
    Add,         // C += A·B
    ScaleAndAdd, // C = diag(rowScale)·C + A·B
};

// Cache lines to request into L2 while products run: a tile takes one every second step of its depth,
// so the requests spread over the work instead of stalling in a burst on the few miss buffers.
struct PrefetchQueue {
    const char* const* next = nullptr;
    const char* const* end = nullptr;
};

// The storage of a queue: line addresses appended a run of memory at a time as plain stores, without a
// vector's bookkeeping per line (docs/benchmarks.md, "2-D neighbourhoods on an image").
class PrefetchLines {
public:
    void clear() { m_size = 0; }
    // Appends the cache lines of floats [first, first + count).
    void append(const float* first, std::int64_t count) {
        const auto lines = static_cast<std::size_t>((count * static_cast<std::int64_t>(sizeof(float)) + 63) / 64);
        if (m_size + lines > m_storage.size()) m_storage.resize(std::max(2 * m_storage.size(), m_size + lines));
        const char* bytes = reinterpret_cast<const char*>(first);
        const char** out = m_storage.data() + m_size;
        for (std::size_t l = 0; l < lines; ++l) out[l] = bytes + 64 * l;
        m_size += lines;
    }
    PrefetchQueue queue() const { return {m_storage.data(), m_storage.data() + m_size}; }

private:
    std::vector<const char*> m_storage;
    std::size_t m_size = 0;
};

// Requests the cache lines of one row of `floats` floats (Locality 3: into L1, 2: into L2). Always
// inlined: GCC deems a function that only prefetches pure and drops its calls.
template <bool ForWriting, int Locality>
[[gnu::always_inline]] inline void prefetchRow(const float* row, std::int64_t floats) {
    const char* bytes = reinterpret_cast<const char*>(row);
    for (std::int64_t offset = 0; offset < floats * static_cast<std::int64_t>(sizeof(float)); offset += 64)
        __builtin_prefetch(bytes + offset, ForWriting, Locality);
}

// Requests the next `lines` queued lines into L2 (fewer when the queue runs out).
[[gnu::always_inline]] inline void requestQueued(PrefetchQueue& queue, std::int64_t lines) {
    for (; lines > 0 && queue.next != queue.end; --lines) __builtin_prefetch(*queue.next++, 0, 2);
}

// Requests every line still queued (what the products left, at the end of their block or chunk).
[[gnu::always_inline]] inline void requestRest(PrefetchQueue& queue) { requestQueued(queue, queue.end - queue.next); }

// C[i][0, width) for i < rows ≤ kTileRows, width ≤ kTileVectors·kLanes:
//   Σ_p A(i, p) · B[p][0, width),  A(i, p) = a[i·aRowStride + p·aDepthStride], B row p at b + p·bRowStride.
// C rows are cRowStride apart and must have room for whole vectors (width rounded up to kLanes);
// B is read only within [0, width). Rows may instead be given by pointers (keys and values picked
// from anywhere without copying them): with aRows, A row i starts at aRows[i] (aRowStride unused);
// with bRows, B row p is bRows[p] + bColumn (b and bRowStride unused).
struct TileProduct {
    std::int64_t depth = 0;
    const float* a = nullptr;
    std::int64_t aRowStride = 0;
    std::int64_t aDepthStride = 0;
    const float* b = nullptr;
    std::int64_t bRowStride = 0;
    float* c = nullptr;
    std::int64_t cRowStride = 0;
    Accumulate mode = Accumulate::Overwrite;
    const float* rowScale = nullptr; // rows values, for ScaleAndAdd
    const float* const* aRows = nullptr;
    const float* const* bRows = nullptr;
    std::int64_t bColumn = 0;
    PrefetchQueue* prefetch = nullptr;
};
void multiplyTile(const TileProduct& product, int rows, int width);

// C (rows × width, row strides as in TileProduct) over any number of rows and columns, tile by tile.
void multiplyBlock(TileProduct product, std::int64_t rows, std::int64_t width);

// One key block of the online softmax, for the first `queries` (a multiple of kLanes, ≤ kQueryBlock)
// query columns of scores in log2 units (rows kQueryBlock apart; later columns are not read):
// scores[c][r] (c < keys) becomes exp2(scores − newMax[r]); rowMax, rowSum are updated and
// rescale[r] = exp2(oldMax − newMax) is what earlier accumulations must be multiplied by.
// Masked cells hold −inf and give exactly 0. rowMax starts at kNoMax (not −inf, so an all-masked
// block row stays NaN-free).
inline constexpr float kNoMax = -3.0e38f;
void softmaxBlock(float* scores, std::int64_t keys, int queries, float* rowMax, float* rowSum, float* rescale);
// softmaxBlock over a masked piece: a cell whose bit r of words[c] is clear counts as −inf (weight exactly
// 0) whatever it holds, so the cells the masked tiles left out need no filling first.
void maskedSoftmaxBlock(float* scores, std::int64_t keys, int queries, const std::uint64_t* words, float* rowMax,
                        float* rowSum, float* rescale);

// scores[c][r] = max(scores, 0)² · factor for c < keys, r < queries (FLASH's relu² weights).
void reluSquaredBlock(float* scores, std::int64_t keys, int queries, float factor);

// scores[c][r] = masked where bit r of words[c] is clear, for c < keys, r < queries (as above).
void maskColumns(float* scores, std::int64_t keys, int queries, const std::uint64_t* words, float masked);

// A set of up to 128 key columns of a piece: bit c for column c.
__extension__ typedef unsigned __int128 ColumnSet;
// The columns c < keys (keys ≤ 128) whose word has any bit of `rows` set.
ColumnSet columnsSeenBy(const std::uint64_t* words, std::int64_t keys, std::uint64_t rows);

// 2^x for x ≤ 0 to about 2e-7 relative; x < −126 gives 0.
float exp2Scalar(float x);

// Σ a[c]·b[c] over c < count, in float (a fixed summation order for a given count).
float dot(const float* a, const float* b, std::int64_t count);

// Σ x[c] over c < count, in float (a fixed summation order for a given count).
float sum(const float* x, std::int64_t count);

// The largest of x[0, count), count ≥ 1 (NaNs are not ordered: a row holding one gives NaN outputs anyway).
float maxOf(const float* x, std::int64_t count);

// Index of the largest of the 2·count values [x ; −x] (the lowest index on ties), with that value in
// `best` and the largest of the other values in `second` (−inf when there is none).
std::int64_t signedArgmax(const float* x, std::int64_t count, float& best, float& second);

// dst[e] = src[e] · factor for e < count, and dst[e] = 0 for count ≤ e < padded (padded ≥ count); returns
// whether every value stored is finite (the output's writers check their rows as they store them).
bool scaledCopy(const float* src, std::int64_t count, float factor, float* dst, std::int64_t padded);

// The same for count a multiple of kLanes into a 64-byte-aligned dst, with non-temporal stores (the
// lines go to memory without being read first); storeFence() orders them before the data is shared.
bool streamScaledCopy(const float* src, std::int64_t count, float factor, float* dst);
// Whether rows of `count` floats starting at dst (and every count floats after) meet streamScaledCopy's terms.
inline bool streamable(const float* dst, std::int64_t count) {
    return count % kLanes == 0 && reinterpret_cast<std::uintptr_t>(dst) % (kLanes * sizeof(float)) == 0;
}
void storeFence();

// x[e] = 2^((x[e] − shift) · factor) for e < count; with factor = scale · log2(e) this is e^(scale·(x − shift)).
void exp2Shifted(float* x, std::int64_t count, float shift, float factor);

// dst[c][r] = src[r][c] for a 16 × 16 block (row strides in floats).
void transpose16(const float* src, std::int64_t srcStride, float* dst, std::int64_t dstStride);

// out[e] = elu(x[e]) + 1 = (x > 0 ? x + 1 : e^x) for e < count, with the 2^x above.
void eluPlusOne(const float* x, std::int64_t count, float* out);

// A float buffer aligned to a cache line that keeps its storage between calls (grow-only).
class AlignedBuffer {
public:
    float* reserve(std::size_t count);
    float* data() { return m_data.get(); }

private:
    struct Free {
        void operator()(float* p) const { ::operator delete[](p, std::align_val_t(64)); }
    };
    std::unique_ptr<float[], Free> m_data;
    std::size_t m_capacity = 0;
};

} // namespace attnlab::tile
