// The register-tiled products of tile_math.h (multiplyTile, multiplyBlock): with AVX-512 a tile of up to
// kTileRows × kTileVectors vectors accumulates in registers, its shape chosen once per tile column;
// otherwise plain loops.
#include "core/kernels/tile_math.h"

#include <algorithm>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace attnlab::tile {

namespace {
// The product moved on to its next kTileRows rows of A and C.
void advanceTileRows(TileProduct& t) {
    if (t.aRows)
        t.aRows += kTileRows;
    else
        t.a += kTileRows * t.aRowStride;
    t.c += kTileRows * t.cRowStride;
    if (t.rowScale) t.rowScale += kTileRows;
}
} // namespace

#if defined(__AVX512F__)

namespace {

template <int Rows, int Vectors, bool IndirectB>
void multiplyTileFixed(const TileProduct& t, __mmask16 lastMask) {
    __m512 acc[Rows][Vectors];
#pragma GCC unroll 8
    for (int i = 0; i < Rows; ++i)
#pragma GCC unroll 4
        for (int v = 0; v < Vectors; ++v) acc[i][v] = _mm512_setzero_ps();
    const float* aRow[Rows];
#pragma GCC unroll 8
    for (int i = 0; i < Rows; ++i) aRow[i] = t.aRows ? t.aRows[i] : t.a + i * t.aRowStride;
    const float* b = t.b;
    const std::int64_t depth = t.depth, bStride = IndirectB ? 0 : t.bRowStride, aStride = t.aDepthStride;
    std::int64_t aOffset = 0;
    const char* const* pending = t.prefetch ? t.prefetch->next : nullptr;
    const char* const* pendingEnd = t.prefetch ? t.prefetch->end : nullptr;
    for (std::int64_t p = 0; p < depth; ++p, b += bStride, aOffset += aStride) {
        if ((p & 1) == 0 && pending != pendingEnd) __builtin_prefetch(*pending++, 0, 2);
        if constexpr (IndirectB) b = t.bRows[p] + t.bColumn;
        __m512 bv[Vectors];
#pragma GCC unroll 4
        for (int v = 0; v + 1 < Vectors; ++v) bv[v] = _mm512_loadu_ps(b + v * kLanes);
        bv[Vectors - 1] = _mm512_maskz_loadu_ps(lastMask, b + (Vectors - 1) * kLanes);
#pragma GCC unroll 8
        for (int i = 0; i < Rows; ++i) {
            const __m512 av = _mm512_set1_ps(aRow[i][aOffset]);
#pragma GCC unroll 4
            for (int v = 0; v < Vectors; ++v) acc[i][v] = _mm512_fmadd_ps(av, bv[v], acc[i][v]);
        }
    }
    if (t.prefetch) t.prefetch->next = pending;
#pragma GCC unroll 8
    for (int i = 0; i < Rows; ++i) {
        float* c = t.c + i * t.cRowStride;
#pragma GCC unroll 4
        for (int v = 0; v < Vectors; ++v) {
            __m512 value = acc[i][v];
            if (t.mode == Accumulate::Add) value = _mm512_add_ps(_mm512_loadu_ps(c + v * kLanes), value);
            if (t.mode == Accumulate::ScaleAndAdd)
                value = _mm512_fmadd_ps(_mm512_loadu_ps(c + v * kLanes), _mm512_set1_ps(t.rowScale[i]), value);
            _mm512_storeu_ps(c + v * kLanes, value);
        }
    }
}

template <int Vectors, bool IndirectB>
void multiplyTileRows(const TileProduct& t, int rows, __mmask16 lastMask) {
    switch (rows) {
    case 1: multiplyTileFixed<1, Vectors, IndirectB>(t, lastMask); break;
    case 2: multiplyTileFixed<2, Vectors, IndirectB>(t, lastMask); break;
    case 3: multiplyTileFixed<3, Vectors, IndirectB>(t, lastMask); break;
    case 4: multiplyTileFixed<4, Vectors, IndirectB>(t, lastMask); break;
    case 5: multiplyTileFixed<5, Vectors, IndirectB>(t, lastMask); break;
    default: multiplyTileFixed<6, Vectors, IndirectB>(t, lastMask); break;
    }
}

// Every kTileRows rows of one tile column, the product advanced in place (no copy per tile).
template <int Vectors, bool IndirectB>
void multiplyTileColumnFixed(TileProduct t, std::int64_t rows, __mmask16 lastMask) {
    for (std::int64_t i = 0; i < rows; i += kTileRows) {
        if (rows - i >= kTileRows)
            multiplyTileFixed<kTileRows, Vectors, IndirectB>(t, lastMask);
        else
            multiplyTileRows<Vectors, IndirectB>(t, static_cast<int>(rows - i), lastMask);
        advanceTileRows(t);
    }
}

template <bool IndirectB>
void multiplyTileColumnWidth(const TileProduct& product, std::int64_t rows, int vectors, __mmask16 lastMask) {
    switch (vectors) {
    case 1: multiplyTileColumnFixed<1, IndirectB>(product, rows, lastMask); break;
    case 2: multiplyTileColumnFixed<2, IndirectB>(product, rows, lastMask); break;
    case 3: multiplyTileColumnFixed<3, IndirectB>(product, rows, lastMask); break;
    default: multiplyTileColumnFixed<4, IndirectB>(product, rows, lastMask); break;
    }
}

// C[0, rows) × [0, width), width ≤ kTileVectors·kLanes: one column of tiles.
void multiplyTileColumn(const TileProduct& product, std::int64_t rows, int width) {
    const int vectors = (width + kLanes - 1) / kLanes;
    const int lastLanes = width - (vectors - 1) * kLanes;
    const auto lastMask = static_cast<__mmask16>((1u << lastLanes) - 1u);
    if (product.bRows)
        multiplyTileColumnWidth<true>(product, rows, vectors, lastMask);
    else
        multiplyTileColumnWidth<false>(product, rows, vectors, lastMask);
}

} // namespace

void multiplyTile(const TileProduct& product, int rows, int width) { multiplyTileColumn(product, rows, width); }

#else // portable fallback: the same arithmetic one lane at a time

void multiplyTile(const TileProduct& t, int rows, int width) {
    const auto padded = static_cast<int>(paddedWidth(width));
    for (int i = 0; i < rows; ++i) {
        float* c = t.c + i * t.cRowStride;
        const float* a = t.aRows ? t.aRows[i] : t.a + i * t.aRowStride;
        for (int x = 0; x < padded; ++x) {
            float sum = 0;
            if (x < width)
                for (std::int64_t p = 0; p < t.depth; ++p)
                    sum += a[p * t.aDepthStride] * (t.bRows ? t.bRows[p][t.bColumn + x] : t.b[p * t.bRowStride + x]);
            if (t.mode == Accumulate::Add) sum += c[x];
            if (t.mode == Accumulate::ScaleAndAdd) sum += c[x] * t.rowScale[i];
            c[x] = sum;
        }
    }
}

namespace {
void multiplyTileColumn(TileProduct t, std::int64_t rows, int width) {
    for (std::int64_t i = 0; i < rows; i += kTileRows) {
        multiplyTile(t, static_cast<int>(std::min<std::int64_t>(kTileRows, rows - i)), width);
        advanceTileRows(t);
    }
}
} // namespace

#endif

void multiplyBlock(TileProduct product, std::int64_t rows, std::int64_t width) {
    const std::int64_t tileWidth = kTileVectors * kLanes;
    for (std::int64_t x = 0; x < width; x += tileWidth) {
        TileProduct column = product;
        column.b = product.b ? product.b + x : nullptr;
        column.bColumn = product.bColumn + x;
        column.c = product.c + x;
        multiplyTileColumn(column, rows, static_cast<int>(std::min(tileWidth, width - x)));
    }
}

} // namespace attnlab::tile
