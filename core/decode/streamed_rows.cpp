#include "core/decode/streamed_rows.h"

#include "core/kernels/tile_math.h"

#include <algorithm>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace attnlab {

namespace {

// Query heads scored and accumulated together: their score and output accumulators stay in registers.
constexpr int kPass = 4;
// Cached rows per step of the online softmax (their scores stay in L1).
constexpr std::int64_t kBlock = 64;
// How far ahead of the row being read the step requests rows of the same stream, into L1: a short distance
// (16 float32 or 32 half-precision rows at d = 128) keeps enough lines in flight to stream at the memory's
// rate without evicting the block being worked on.
constexpr std::int64_t kAheadBytes = 8192;

float* partialOf(const ChunkJob& job, int head) {
    return job.partials + head * (kPartialHeader + job.values->paddedCols());
}

// One pass's view of a chunk: where its key and value rows start and how far apart they lie, hoisted out of
// the row loops.
struct Rows {
    const std::byte* keys;
    const std::byte* values;
    std::int64_t keyBytes, valueBytes;
    std::int64_t keyVectors, valueVectors; // 16-lane vectors per row
    std::int64_t keysAhead, valuesAhead;   // rows that lie kAheadBytes ahead in each stream
    const std::byte* key(std::int64_t row) const { return keys + row * keyBytes; }
    const std::byte* value(std::int64_t row) const { return values + row * valueBytes; }
};

Rows rowsOf(const ChunkJob& job) {
    const std::int64_t keyBytes = job.keys->rowBytes(), valueBytes = job.values->rowBytes();
    return {job.keys->row(job.keyHead, 0),
            job.values->row(job.valueHead, 0),
            keyBytes,
            valueBytes,
            job.keys->paddedCols() / 16,
            job.values->paddedCols() / 16,
            std::max<std::int64_t>(1, kAheadBytes / keyBytes),
            std::max<std::int64_t>(1, kAheadBytes / valueBytes)};
}

// Requests row `row + ahead` of one stream (keys while scoring, values while accumulating), when still in the
// segment: each phase keeps its own stream's reads in flight.
[[gnu::always_inline]] inline void requestAhead(const std::byte* base, std::int64_t bytes, std::int64_t row,
                                                std::int64_t ahead, std::int64_t end) {
    ahead += row;
    if (ahead >= end) return;
    const std::byte* line = base + ahead * bytes;
    for (std::int64_t offset = 0; offset < bytes; offset += 64)
        __builtin_prefetch(line + offset, 0, 3);
}

#if defined(__AVX512F__)

// Requests, beside the load of 16-lane vector `vector` of a row, the same vector's line in the row `ahead`
// bytes on (a line holds one float32 vector or two half-precision ones): one request per line, in the loop
// that reads the row, instead of a loop of its own.
template <KvDtype T>
[[gnu::always_inline]] inline void requestLane(const std::byte* row, std::int64_t ahead,
                                               std::int64_t vector) {
    constexpr std::int64_t vectorBytes = T == KvDtype::F32 ? 64 : 32;
    if (vectorBytes == 64 || vector % 2 == 0) __builtin_prefetch(row + ahead + vector * vectorBytes, 0, 3);
}

template <KvDtype T>
[[gnu::always_inline]] inline __m512 loadLanes(const std::byte* row, std::int64_t vector) {
    if constexpr (T == KvDtype::F32) {
        return _mm512_load_ps(reinterpret_cast<const float*>(row) + 16 * vector);
    } else {
        const __m256i bits = _mm256_load_si256(reinterpret_cast<const __m256i*>(row) + vector);
        if constexpr (T == KvDtype::F16) return _mm512_cvtph_ps(bits);
        return _mm512_castsi512_ps(_mm512_slli_epi32(_mm512_cvtepu16_epi32(bits), 16));
    }
}

// Lane L of sumLanes16's result sums vector bitReversed4(L).
constexpr int bitReversed4(int i) { return (i & 1) << 3 | (i & 2) << 1 | (i & 4) >> 1 | (i & 8) >> 3; }

// Pairs (x[2i], x[2i+1]) folded into x[i], i < count/2: in lane blocks of G, the even blocks take the sums of
// x[2i]'s adjacent block pairs and the odd blocks x[2i+1]'s; two blends, one shuffle and one add a pair.
template <int G> [[gnu::always_inline]] inline void foldPairs(__m512* x, int count) {
    constexpr __mmask16 odd = G == 8 ? 0xFF00 : G == 4 ? 0xF0F0 : G == 2 ? 0xCCCC : 0xAAAA;
    for (int i = 0; i < count / 2; ++i) {
        const __m512 kept = _mm512_mask_blend_ps(odd, x[2 * i], x[2 * i + 1]);
        const __m512 moved = _mm512_mask_blend_ps(odd, x[2 * i + 1], x[2 * i]);
        __m512 swapped;
        if constexpr (G == 8) swapped = _mm512_shuffle_f32x4(moved, moved, _MM_SHUFFLE(1, 0, 3, 2));
        else if constexpr (G == 4) swapped = _mm512_shuffle_f32x4(moved, moved, _MM_SHUFFLE(2, 3, 0, 1));
        else if constexpr (G == 2) swapped = _mm512_permute_ps(moved, _MM_SHUFFLE(1, 0, 3, 2));
        else swapped = _mm512_permute_ps(moved, _MM_SHUFFLE(2, 3, 0, 1));
        x[i] = _mm512_add_ps(kept, swapped);
    }
}

// The sums of the lanes of x[0, 16) in one vector: lane L holds the sum of x[bitReversed4(L)].
[[gnu::always_inline]] inline __m512 sumLanes16(__m512* x) {
    foldPairs<8>(x, 16);
    foldPairs<4>(x, 8);
    foldPairs<2>(x, 4);
    foldPairs<1>(x, 2);
    return x[0];
}

// Key rows scored together by scoreRows: P·R ≤ 16 sums, reduced in one sumLanes16.
template <int P> constexpr int kRowsTogether = P == 1 ? 16 : P == 2 ? 8 : 4;

// scores[r][c + i] = q_{first+r} · key row (row0 + c + i), r < P, i < R; requests rows ahead on the first pass.
template <KvDtype T, int P, int R>
[[gnu::always_inline]] inline void scoreRows(const ChunkJob& job, const Rows& rows, int first, std::int64_t row0,
                                             std::int64_t c, std::int64_t end, float (*scores)[kBlock]) {
    const std::int64_t stride = 16 * rows.keyVectors;
    const float* q = job.queries + first * stride;
    // Rows ahead requested line by line within the loop when all R lie in the segment, else row by row.
    const bool inLoop = first == 0 && row0 + c + R - 1 + rows.keysAhead < end;
    if (first == 0 && !inLoop)
        for (int i = 0; i < R; ++i)
            requestAhead(rows.keys, rows.keyBytes, row0 + c + i, rows.keysAhead, end);
    const std::int64_t ahead = rows.keysAhead * rows.keyBytes;
    const std::byte* key = rows.key(row0 + c);
    __m512 acc[16];
#pragma GCC unroll 16
    for (int i = 0; i < 16; ++i)
        acc[i] = _mm512_setzero_ps();
    for (std::int64_t v = 0; v < rows.keyVectors; ++v) {
        __m512 query[P];
#pragma GCC unroll 4
        for (int r = 0; r < P; ++r)
            query[r] = _mm512_loadu_ps(q + r * stride + 16 * v);
#pragma GCC unroll 16
        for (int i = 0; i < R; ++i) {
            if (inLoop) requestLane<T>(key + i * rows.keyBytes, ahead, v);
            const __m512 k = loadLanes<T>(key + i * rows.keyBytes, v);
#pragma GCC unroll 4
            for (int r = 0; r < P; ++r)
                acc[bitReversed4(R * r + i)] = _mm512_fmadd_ps(query[r], k, acc[bitReversed4(R * r + i)]);
        }
    }
    alignas(64) float sums[16];
    _mm512_store_ps(sums, sumLanes16(acc));
    for (int r = 0; r < P; ++r)
        std::copy(sums + R * r, sums + R * r + R, &scores[r][c]);
}

// scores[r][c] = q_{first+r} · key row (row0 + c), r < P, c < count; requests rows ahead on the first pass.
template <KvDtype T, int P>
void scoreBlock(const ChunkJob& job, const Rows& rows, int first, std::int64_t row0, std::int64_t count,
                std::int64_t end, float (*scores)[kBlock]) {
    constexpr int R = kRowsTogether<P>;
    std::int64_t c = 0;
    for (; c + R <= count; c += R)
        scoreRows<T, P, R>(job, rows, first, row0, c, end, scores);
    const std::int64_t stride = 16 * rows.keyVectors;
    for (; c < count; ++c) {
        if (first == 0) requestAhead(rows.keys, rows.keyBytes, row0 + c, rows.keysAhead, end);
        const std::byte* key = rows.key(row0 + c);
        for (int r = 0; r < P; ++r) {
            const float* q = job.queries + (first + r) * stride;
            __m512 acc = _mm512_setzero_ps();
            for (std::int64_t v = 0; v < rows.keyVectors; ++v)
                acc = _mm512_fmadd_ps(_mm512_loadu_ps(q + 16 * v), loadLanes<T>(key, v), acc);
            scores[r][c] = _mm512_reduce_add_ps(acc);
        }
    }
}

// acc_{first+r} += Σ_c weights[r][c] · value row (row0 + c), r < P, X vectors at a time.
template <KvDtype T, int P, int X>
std::int64_t accumulateVectors(const ChunkJob& job, const Rows& rows, int first, std::int64_t row0,
                               std::int64_t count, std::int64_t end, const float (*weights)[kBlock],
                               std::int64_t vector) {
    const std::int64_t ahead = rows.valuesAhead * rows.valueBytes;
    float* acc0 = partialOf(job, first) + kPartialHeader;
    const std::int64_t stride = kPartialHeader + 16 * rows.valueVectors;
    for (; vector + X <= rows.valueVectors; vector += X) {
        __m512 acc[P][X];
#pragma GCC unroll 4
        for (int r = 0; r < P; ++r)
#pragma GCC unroll 4
            for (int x = 0; x < X; ++x)
                acc[r][x] = _mm512_load_ps(acc0 + r * stride + 16 * (vector + x));
        for (std::int64_t c = 0; c < count; ++c) {
            const bool request = first == 0 && row0 + c + rows.valuesAhead < end;
            const std::byte* value = rows.value(row0 + c);
            __m512 v[X];
#pragma GCC unroll 4
            for (int x = 0; x < X; ++x) {
                if (request) requestLane<T>(value, ahead, vector + x);
                v[x] = loadLanes<T>(value, vector + x);
            }
#pragma GCC unroll 4
            for (int r = 0; r < P; ++r) {
                const __m512 w = _mm512_set1_ps(weights[r][c]);
#pragma GCC unroll 4
                for (int x = 0; x < X; ++x)
                    acc[r][x] = _mm512_fmadd_ps(w, v[x], acc[r][x]);
            }
        }
#pragma GCC unroll 4
        for (int r = 0; r < P; ++r)
#pragma GCC unroll 4
            for (int x = 0; x < X; ++x)
                _mm512_store_ps(acc0 + r * stride + 16 * (vector + x), acc[r][x]);
    }
    return vector;
}

template <KvDtype T, int P>
void accumulateBlock(const ChunkJob& job, const Rows& rows, int first, std::int64_t row0, std::int64_t count,
                     std::int64_t end, const float (*weights)[kBlock]) {
    const std::int64_t vector = accumulateVectors<T, P, 4>(job, rows, first, row0, count, end, weights, 0);
    accumulateVectors<T, P, 1>(job, rows, first, row0, count, end, weights, vector);
}

#else

template <KvDtype T> float element(const std::byte* row, std::int64_t c) {
    if constexpr (T == KvDtype::F32) return reinterpret_cast<const float*>(row)[c];
    const std::uint16_t bits = reinterpret_cast<const std::uint16_t*>(row)[c];
    if constexpr (T == KvDtype::F16) return halfToFloat(bits);
    return bfloat16ToFloat(bits);
}

template <KvDtype T, int P>
void scoreBlock(const ChunkJob& job, const Rows& rows, int first, std::int64_t row0, std::int64_t count,
                std::int64_t end, float (*scores)[kBlock]) {
    const std::int64_t cols = 16 * rows.keyVectors;
    for (std::int64_t c = 0; c < count; ++c) {
        if (first == 0) requestAhead(rows.keys, rows.keyBytes, row0 + c, rows.keysAhead, end);
        const std::byte* key = rows.key(row0 + c);
        for (int r = 0; r < P; ++r) {
            const float* q = job.queries + (first + r) * cols;
            float sum = 0;
            for (std::int64_t e = 0; e < cols; ++e)
                sum += q[e] * element<T>(key, e);
            scores[r][c] = sum;
        }
    }
}

template <KvDtype T, int P>
void accumulateBlock(const ChunkJob& job, const Rows& rows, int first, std::int64_t row0, std::int64_t count,
                     std::int64_t end, const float (*weights)[kBlock]) {
    const std::int64_t cols = 16 * rows.valueVectors;
    for (std::int64_t c = 0; c < count; ++c) {
        if (first == 0) requestAhead(rows.values, rows.valueBytes, row0 + c, rows.valuesAhead, end);
        const std::byte* value = rows.value(row0 + c);
        for (int r = 0; r < P; ++r) {
            float* acc = partialOf(job, first + r) + kPartialHeader;
            for (std::int64_t e = 0; e < cols; ++e)
                acc[e] += weights[r][c] * element<T>(value, e);
        }
    }
}

#endif

// Scores of one block into weights for query head `head` (row r of the block's scores): relative positions
// added, then the online softmax's step (the running maximum raised, earlier sums rescaled) or relu².
void weighBlock(const ChunkJob& job, const RowScoring& scoring, int head, std::int64_t row0,
                std::int64_t rows, float* s) {
    if (scoring.relativePositions) {
        const float* q = job.queries + head * job.keys->paddedCols();
        for (std::int64_t c = 0; c < rows; ++c)
            s[c] += tile::dot(q,
                              scoring.relativePositions->data() +
                                  (job.queryPosition - job.positions[row0 + c]) * scoring.d,
                              scoring.d);
    }
    if (!scoring.softmax) {
        for (std::int64_t c = 0; c < rows; ++c)
            s[c] = s[c] > 0.0f ? s[c] * s[c] * scoring.reluFactor : 0.0f;
        return;
    }
    float* partial = partialOf(job, head);
    const float blockMax = tile::maxOf(s, rows);
    if (blockMax > partial[0]) {
        const float rescale = tile::exp2Scalar(partial[0] - blockMax);
        partial[1] *= rescale;
        float* acc = partial + kPartialHeader;
        for (std::int64_t e = 0; e < job.values->paddedCols(); ++e)
            acc[e] *= rescale;
        partial[0] = blockMax;
    }
    tile::exp2Shifted(s, rows, partial[0], 1.0f);
    partial[1] += tile::sum(s, rows);
}

template <KvDtype T, int P> void runPass(const ChunkJob& job, const RowScoring& scoring, int first) {
    alignas(64) float scores[kPass][kBlock];
    const Rows rows = rowsOf(job);
    for (int segment = 0; segment < job.segmentCount; ++segment) {
        const CacheSegment& cached = job.segments[segment];
        for (std::int64_t row0 = cached.begin; row0 < cached.end; row0 += kBlock) {
            const std::int64_t count = std::min(kBlock, cached.end - row0);
            scoreBlock<T, P>(job, rows, first, row0, count, cached.end, scores);
            for (int r = 0; r < P; ++r)
                weighBlock(job, scoring, first + r, row0, count, scores[r]);
            accumulateBlock<T, P>(job, rows, first, row0, count, cached.end, scores);
        }
    }
}

template <KvDtype T> void runChunkOf(const ChunkJob& job, const RowScoring& scoring) {
    for (int first = 0; first < job.heads; first += kPass) {
        switch (std::min(kPass, job.heads - first)) {
        case 1:
            runPass<T, 1>(job, scoring, first);
            break;
        case 2:
            runPass<T, 2>(job, scoring, first);
            break;
        case 3:
            runPass<T, 3>(job, scoring, first);
            break;
        default:
            runPass<T, 4>(job, scoring, first);
            break;
        }
    }
}

} // namespace

void runChunk(const ChunkJob& job, const RowScoring& scoring) {
    const std::int64_t stride = kPartialHeader + job.values->paddedCols();
    for (int r = 0; r < job.heads; ++r) {
        float* partial = job.partials + r * stride;
        std::fill(partial, partial + stride, 0.0f);
        partial[0] = kNoScore;
    }
    switch (job.keys->dtype()) {
    case KvDtype::F16:
        runChunkOf<KvDtype::F16>(job, scoring);
        break;
    case KvDtype::BF16:
        runChunkOf<KvDtype::BF16>(job, scoring);
        break;
    case KvDtype::F32:
        runChunkOf<KvDtype::F32>(job, scoring);
        break;
    }
}

void mergePartials(const float* const* partials, int count, std::int64_t dv, bool softmax, float* out) {
    std::fill(out, out + dv, 0.0f);
    float best = kNoScore;
    if (softmax)
        for (int c = 0; c < count; ++c)
            best = std::max(best, partials[c][0]);
    float total = 0;
    for (int c = 0; c < count; ++c) {
        const float factor = softmax ? tile::exp2Scalar(partials[c][0] - best) : 1.0f;
        total += factor * partials[c][1];
        for (std::int64_t e = 0; e < dv; ++e)
            out[e] += factor * partials[c][kPartialHeader + e];
    }
    if (!softmax) return;
    const float scale = total > 0 ? 1.0f / total : 0.0f;
    for (std::int64_t e = 0; e < dv; ++e)
        out[e] *= scale;
}

} // namespace attnlab
