#pragma once

// Internal to the row-wise kernels (row_math.cpp, row_group.cpp), AVX-512 only: the dot products of one
// query with a few keys, reduced 16 at a time. Both units include these same templates, so that a run and
// the weights written for it sum every score in the same order.

#include "core/kernels/row_math.h"
#include "core/kernels/tile_math.h"

#if defined(__AVX512F__)

#include <immintrin.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace attnlab::tile::avx512 {

inline __mmask16 firstLanes(std::int64_t count) {
    return count >= kLanes ? __mmask16(0xFFFF) : __mmask16((1u << count) - 1u);
}

// Per 128-bit lane l: (Σ a_l, Σ b_l, Σ c_l, Σ e_l) over the lane's 4 floats of each input.
inline __m512 laneSums(__m512 a, __m512 b, __m512 c, __m512 e) {
    const __m512 ab = _mm512_add_ps(_mm512_unpacklo_ps(a, b), _mm512_unpackhi_ps(a, b));
    const __m512 ce = _mm512_add_ps(_mm512_unpacklo_ps(c, e), _mm512_unpackhi_ps(c, e));
    const __m512d x = _mm512_castps_pd(ab), y = _mm512_castps_pd(ce);
    return _mm512_add_ps(_mm512_castpd_ps(_mm512_unpacklo_pd(x, y)),
                         _mm512_castpd_ps(_mm512_unpackhi_pd(x, y)));
}

// Lane sums of 4·Groups keys (laneSums of each 4) → the keys' totals in lanes 0 … 4·Groups − 1.
template <int Groups> inline __m512 keyTotals(const __m512* groups) {
    if constexpr (Groups == 1) {
        const __m512 x =
            _mm512_add_ps(groups[0], _mm512_shuffle_f32x4(groups[0], groups[0], _MM_SHUFFLE(1, 0, 3, 2)));
        return _mm512_add_ps(x, _mm512_shuffle_f32x4(x, x, _MM_SHUFFLE(2, 3, 0, 1)));
    } else if constexpr (Groups == 2) {
        const __m512 x = _mm512_add_ps(_mm512_shuffle_f32x4(groups[0], groups[1], 0x44),
                                       _mm512_shuffle_f32x4(groups[0], groups[1], 0xEE));
        const __m512 y = _mm512_add_ps(x, _mm512_shuffle_f32x4(x, x, _MM_SHUFFLE(2, 3, 0, 1)));
        return _mm512_shuffle_f32x4(y, y, _MM_SHUFFLE(0, 0, 2, 0));
    } else {
        const __m512 x = _mm512_add_ps(_mm512_shuffle_f32x4(groups[0], groups[1], 0x44),
                                       _mm512_shuffle_f32x4(groups[0], groups[1], 0xEE));
        const __m512 y = _mm512_add_ps(_mm512_shuffle_f32x4(groups[2], groups[3], 0x44),
                                       _mm512_shuffle_f32x4(groups[2], groups[3], 0xEE));
        return _mm512_add_ps(_mm512_shuffle_f32x4(x, y, 0x88), _mm512_shuffle_f32x4(x, y, 0xDD));
    }
}

// Row-wise keys as a list of row pointers, or as columns of one matrix.
struct PointerList {
    const float* const* rows;
    const float* operator[](std::int64_t c) const { return rows[c]; }
    PointerList from(std::int64_t c) const { return {rows + c}; }
};
struct ColumnList {
    ColumnRows matrix;
    const float* operator[](std::int64_t c) const { return matrix.base + matrix.columns[c] * matrix.stride; }
    ColumnList from(std::int64_t c) const { return {{matrix.base, matrix.stride, matrix.columns + c}}; }
};

// scores[0, valid) for Keys = 4·Groups keys, a group's missing keys reading key valid − 1 again. With
// Vectors > 0 the depth is exactly Vectors·kLanes: the same products in the same order, unrolled and
// without lane masks.
template <int Groups, int Vectors, typename Keys>
[[gnu::always_inline]] inline void dotGroup(const float* query, Keys keys, int valid, std::int64_t depth,
                                            float* scores) {
    constexpr int kKeys = 4 * Groups;
    __m512 acc[kKeys];
    if constexpr (Vectors > 0) {
        __m512 q[Vectors];
#pragma GCC unroll 8
        for (int p = 0; p < Vectors; ++p)
            q[p] = _mm512_loadu_ps(query + p * kLanes);
            // Key by key, each row's address formed just before its loads (a list of them built first was
            // turned into vector gathers and extractions, slower than the products).
#pragma GCC unroll 16
        for (int k = 0; k < kKeys; ++k) {
            const float* row = keys[std::min(k, valid - 1)];
            __m512 sum = _mm512_setzero_ps();
#pragma GCC unroll 8
            for (int p = 0; p < Vectors; ++p)
                sum = _mm512_fmadd_ps(q[p], _mm512_loadu_ps(row + p * kLanes), sum);
            acc[k] = sum;
        }
    } else {
#pragma GCC unroll 16
        for (int k = 0; k < kKeys; ++k)
            acc[k] = _mm512_setzero_ps();
        for (std::int64_t p = 0; p < depth; p += kLanes) {
            const __mmask16 lanes = firstLanes(depth - p);
            const __m512 q = _mm512_maskz_loadu_ps(lanes, query + p);
#pragma GCC unroll 16
            for (int k = 0; k < kKeys; ++k)
                acc[k] = _mm512_fmadd_ps(q, _mm512_maskz_loadu_ps(lanes, keys[std::min(k, valid - 1)] + p),
                                         acc[k]);
        }
    }
    constexpr int Reduced = Groups == 3 ? 4 : Groups; // three groups reduce as four, the fourth zero
    __m512 sums[Reduced];
#pragma GCC unroll 4
    for (int g = 0; g < Groups; ++g)
        sums[g] = laneSums(acc[4 * g], acc[4 * g + 1], acc[4 * g + 2], acc[4 * g + 3]);
    if constexpr (Groups == 3) sums[3] = _mm512_setzero_ps();
    _mm512_mask_storeu_ps(scores, firstLanes(valid), keyTotals<Reduced>(sums));
}

// scores[c] = query · keys[c] for c < count, up to kDotKeys keys per reduction.
template <int Vectors, typename Keys>
[[gnu::always_inline]] inline void dotsOfDepth(const float* query, Keys keys, std::int64_t count,
                                               std::int64_t depth, float* scores) {
    for (std::int64_t c = 0; c < count; c += kDotKeys) {
        const int valid = static_cast<int>(std::min<std::int64_t>(kDotKeys, count - c));
        switch ((valid + 3) / 4) {
        case 1:
            dotGroup<1, Vectors>(query, keys.from(c), valid, depth, scores + c);
            break;
        case 2:
            dotGroup<2, Vectors>(query, keys.from(c), valid, depth, scores + c);
            break;
        case 3:
            dotGroup<3, Vectors>(query, keys.from(c), valid, depth, scores + c);
            break;
        default:
            dotGroup<4, Vectors>(query, keys.from(c), valid, depth, scores + c);
            break;
        }
    }
}

// Calls run(std::integral_constant<int, V>{}) with V = width / kLanes where the kernels unroll that width
// (2, 4 or 8 vectors), else V = 0 (any width, with lane masks).
template <typename Run> [[gnu::always_inline]] inline void withUnrolledWidth(std::int64_t width, Run&& run) {
    switch (width) {
    case 2 * kLanes:
        run(std::integral_constant<int, 2>{});
        break;
    case 4 * kLanes:
        run(std::integral_constant<int, 4>{});
        break;
    case 8 * kLanes:
        run(std::integral_constant<int, 8>{});
        break;
    default:
        run(std::integral_constant<int, 0>{});
        break;
    }
}

template <typename Keys>
inline void dots(const float* query, Keys keys, std::int64_t count, std::int64_t depth, float* scores) {
    withUnrolledWidth(depth,
                      [&](auto vectors) { dotsOfDepth<vectors()>(query, keys, count, depth, scores); });
}

} // namespace attnlab::tile::avx512

#endif
