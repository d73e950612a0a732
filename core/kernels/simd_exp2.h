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
// f = x − round(x) and whole = round(x), the polynomial, then p·2^whole by vscalefps; lanes with
// whole ≤ kExp2Floor (and −inf) are exactly 0. Three instructions fewer than building 2^whole's
// exponent field and multiplying, for the same value wherever 2^whole is a normal float.
inline __m512 exp2Vector(__m512 x) {
#if defined(__AVX512DQ__)
    const __m512 f = _mm512_reduce_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 whole = _mm512_sub_ps(x, f);
#else
    const __m512 whole = _mm512_roundscale_ps(x, _MM_FROUND_TO_NEAREST_INT | _MM_FROUND_NO_EXC);
    const __m512 f = _mm512_sub_ps(x, whole);
#endif
    __m512 p = _mm512_set1_ps(kExp2Poly[0]);
    for (int c = 1; c < 6; ++c) p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(kExp2Poly[c]));
    p = _mm512_fmadd_ps(p, f, _mm512_set1_ps(1.0f));
    const __mmask16 representable = _mm512_cmp_ps_mask(whole, _mm512_set1_ps(kExp2Floor), _CMP_GT_OQ);
    return _mm512_maskz_scalef_ps(representable, p, whole);
}
#endif

} // namespace attnlab::tile
