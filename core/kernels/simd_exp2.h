#pragma once

// The 2^x of the kernels (tile_math.cpp, row_math.cpp), in one place: scalar constants and, with
// AVX-512, the 16-lane version.

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace attnlab::tile {

// 2^f = 1 + f·P(f) on f ∈ [−0.5, 0.5] (Cephes exp2f, relative error below 2e-7).
inline constexpr float kExp2Poly[] = {1.535336188319500e-4f, 1.339887440266574e-3f, 9.618437357674640e-3f,
                                      5.550332471162809e-2f, 2.402264791363012e-1f, 6.931472028550421e-1f};
// Below this 2^x is flushed to exactly 0 (it would be subnormal).
inline constexpr float kExp2Floor = -127.0f;

#if defined(__AVX512F__)
inline __m512 exp2Vector(__m512 x) {
    x = _mm512_max_ps(x, _mm512_set1_ps(kExp2Floor));
    const __m512 whole = _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 f = _mm512_sub_ps(x, whole);
    __m512 p = _mm512_set1_ps(kExp2Poly[0]);
    for (int c = 1; c < 6; ++c) p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(kExp2Poly[c]));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.0f));
    // Exponent field of 2^whole; whole = −127 gives the bit pattern of +0.
    const __m512i bits =
        _mm512_slli_epi32(_mm512_add_epi32(_mm512_cvtps_epi32(whole), _mm512_set1_epi32(127)), 23);
    return _mm512_mul_ps(p, _mm512_castsi512_ps(bits));
}
#endif

} // namespace attnlab::tile
