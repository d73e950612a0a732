#include "core/kernels/row_math.h"
#include "core/kernels/row_dots_avx512.h"
#include "core/kernels/simd_exp2.h"
#include "core/kernels/tile_math.h"

#include <algorithm>
#include <limits>

namespace attnlab::tile {

void reluSquaredRow(float* scores, std::int64_t count, float factor) {
    for (std::int64_t c = 0; c < count; ++c) {
        const float positive = std::max(scores[c], 0.0f);
        scores[c] = positive * positive * factor;
    }
}

#if defined(__AVX512F__)

using namespace avx512;

namespace {

template <int Rows, int Sets>
void accumulateFixed(const WeightLayout& weights, const float* const* values, std::int64_t count, std::int64_t dv,
                     const float* factor, float* out, std::int64_t outStride) {
    constexpr int kVectors = 4;
    for (std::int64_t x = 0; x < dv; x += kVectors * kLanes) {
        __mmask16 lanes[kVectors];
        for (int v = 0; v < kVectors; ++v) lanes[v] = firstLanes(std::max<std::int64_t>(0, dv - x - v * kLanes));
        __m512 acc[Sets][Rows][kVectors];
#pragma GCC unroll 4
        for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 4
            for (int v = 0; v < kVectors; ++v) {
                acc[0][r][v] = _mm512_mul_ps(_mm512_set1_ps(factor[r]),
                                             _mm512_maskz_loadu_ps(lanes[v], out + r * outStride + x + v * kLanes));
                if constexpr (Sets == 2) acc[1][r][v] = _mm512_setzero_ps();
            }
        std::int64_t c = 0;
        auto step = [&](int set, std::int64_t key) {
            const float* value = values[key] + x;
#pragma GCC unroll 4
            for (int v = 0; v < kVectors; ++v) {
                const __m512 row = _mm512_maskz_loadu_ps(lanes[v], value + v * kLanes);
#pragma GCC unroll 4
                for (int r = 0; r < Rows; ++r)
                    acc[set][r][v] = _mm512_fmadd_ps(
                        _mm512_set1_ps(weights.data[r * weights.rowStride + key * weights.keyStride]), row, acc[set][r][v]);
            }
        };
        if constexpr (Sets == 2)
            for (; c + 1 < count; c += 2) {
                step(0, c);
                step(1, c + 1);
            }
        for (; c < count; ++c) step(0, c);
#pragma GCC unroll 4
        for (int r = 0; r < Rows; ++r)
#pragma GCC unroll 4
            for (int v = 0; v < kVectors; ++v) {
                __m512 total = acc[0][r][v];
                if constexpr (Sets == 2) total = _mm512_add_ps(total, acc[1][r][v]);
                _mm512_mask_storeu_ps(out + r * outStride + x + v * kLanes, lanes[v], total);
            }
    }
}

} // namespace

void rowDots(const float* const* queries, int rows, const float* const* keys, std::int64_t count, std::int64_t depth,
             float* scores, std::int64_t scoreStride) {
    for (int r = 0; r < rows; ++r) dots(queries[r], PointerList{keys}, count, depth, scores + r * scoreStride);
}

void columnDots(const float* query, const ColumnRows& keys, std::int64_t count, std::int64_t depth, float* scores) {
    dots(query, ColumnList{keys}, count, depth, scores);
}

float softmaxRow(float* scores, std::int64_t count, float& rowMax, float& rowSum) {
    const __m512 none = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    __m512 largest = _mm512_set1_ps(rowMax);
    for (std::int64_t c = 0; c < count; c += kLanes)
        largest = _mm512_max_ps(largest, _mm512_mask_loadu_ps(none, firstLanes(count - c), scores + c));
    const float newMax = _mm512_reduce_max_ps(largest);
    const __m512 shift = _mm512_set1_ps(newMax);
    __m512 sum = _mm512_setzero_ps();
    for (std::int64_t c = 0; c < count; c += kLanes) {
        const __mmask16 lanes = firstLanes(count - c);
        const __m512 p = exp2Vector(_mm512_sub_ps(_mm512_mask_loadu_ps(none, lanes, scores + c), shift));
        _mm512_mask_storeu_ps(scores + c, lanes, p);
        sum = _mm512_add_ps(sum, p);
    }
    const float factor = _mm512_cvtss_f32(exp2Vector(_mm512_set1_ps(rowMax - newMax)));
    rowSum = rowSum * factor + _mm512_reduce_add_ps(sum);
    rowMax = newMax;
    return factor;
}

void accumulateRows(const WeightLayout& weights, int rows, const float* const* values, std::int64_t count,
                    std::int64_t dv, const float* factor, float* out, std::int64_t outStride) {
    switch (rows) {
    case 1: accumulateFixed<1, 2>(weights, values, count, dv, factor, out, outStride); break;
    case 2: accumulateFixed<2, 1>(weights, values, count, dv, factor, out, outStride); break;
    case 3: accumulateFixed<3, 1>(weights, values, count, dv, factor, out, outStride); break;
    default: accumulateFixed<4, 1>(weights, values, count, dv, factor, out, outStride); break;
    }
}

#else // portable fallback

void rowDots(const float* const* queries, int rows, const float* const* keys, std::int64_t count, std::int64_t depth,
             float* scores, std::int64_t scoreStride) {
    for (int r = 0; r < rows; ++r)
        for (std::int64_t c = 0; c < count; ++c) scores[r * scoreStride + c] = dot(queries[r], keys[c], depth);
}

void columnDots(const float* query, const ColumnRows& keys, std::int64_t count, std::int64_t depth, float* scores) {
    for (std::int64_t c = 0; c < count; ++c) scores[c] = dot(query, keys.base + keys.columns[c] * keys.stride, depth);
}

float softmaxRow(float* scores, std::int64_t count, float& rowMax, float& rowSum) {
    float newMax = rowMax;
    for (std::int64_t c = 0; c < count; ++c) newMax = std::max(newMax, scores[c]);
    float sum = 0;
    for (std::int64_t c = 0; c < count; ++c) {
        scores[c] = exp2Scalar(scores[c] - newMax);
        sum += scores[c];
    }
    const float factor = exp2Scalar(rowMax - newMax);
    rowSum = rowSum * factor + sum;
    rowMax = newMax;
    return factor;
}

void accumulateRows(const WeightLayout& weights, int rows, const float* const* values, std::int64_t count,
                    std::int64_t dv, const float* factor, float* out, std::int64_t outStride) {
    for (int r = 0; r < rows; ++r)
        for (std::int64_t e = 0; e < dv; ++e) {
            float sum = out[r * outStride + e] * factor[r];
            for (std::int64_t c = 0; c < count; ++c)
                sum += weights.data[r * weights.rowStride + c * weights.keyStride] * values[c][e];
            out[r * outStride + e] = sum;
        }
}

#endif

} // namespace attnlab::tile
