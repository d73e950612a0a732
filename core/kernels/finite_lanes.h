#pragma once

// The output writers' finiteness check (tile_math.cpp, row_group.cpp), made on the values as they are
// stored, so that no caller reads the whole output again to find rows to recompute.

#if defined(__AVX512F__)
#include <immintrin.h>

namespace attnlab::tile {

// Lanes of x holding inf or NaN (every exponent bit set).
inline __mmask16 nonFiniteLanes(__m512 x) {
    const __m512i exponent = _mm512_set1_epi32(0x7F800000);
    return _mm512_cmpeq_epi32_mask(_mm512_and_si512(_mm512_castps_si512(x), exponent), exponent);
}

} // namespace attnlab::tile

#endif
