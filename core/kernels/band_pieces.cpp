// Band pieces of the block kernel (band_plan.h, block_plan.h): the block's key runs transposed once, scores
// along diagonals (lane l of a diagonal: row 16g + l against key offset + l), and P·V with the diagonals
// skewed back onto keys, two rows at a time over the keys they share.
#include "core/kernels/block_job.h"

#include <algorithm>
#include <type_traits>
#include <utility>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace attnlab::block {

namespace {

using tile::kLanes;

// The vectors (16-row groups) a mask word reaches, as a bit per vector.
unsigned vectorsOf(std::uint64_t word) {
    unsigned vectors = 0;
    for (int g = 0; g < kQueryBlock / kLanes; ++g)
        vectors |= ((word >> (g * kLanes)) & 0xFFFFu) != 0 ? 1u << g : 0u;
    return vectors;
}

void findDiagonalRuns(const BlockJob& job, const PlanPiece& piece, std::vector<DiagonalRun>& runs) {
    runs.clear();
    const BandDiagonal* diagonals = job.plan->bandDiagonals.data() + piece.first;
    const std::uint64_t* words = job.plan->masks.data() + piece.mask;
    for (std::int64_t e = 0; e < piece.count; ++e) {
        DiagonalRun* last = runs.empty() ? nullptr : &runs.back();
        if (last && diagonals[e].run == last->run && diagonals[e].offset == last->offset + last->count) {
            ++last->count;
            last->rows |= words[e];
        } else {
            runs.push_back({e, 1, diagonals[e].run, diagonals[e].offset, words[e]});
        }
    }
}

} // namespace

namespace {

// Transposes run `run` (its places 16 at a time copied as rows, zeros for no key, past the run and past d).
void transposeRun(const BlockJob& job, const BandRun& run, const float* zero, float* rows, float* keys) {
    const std::int64_t d = job.inputs->k->cols, depth = paddedWidth(d), width = paddedWidth(run.count);
    const std::int64_t* columns = job.plan->columns.data() + run.first;
    for (std::int64_t c0 = 0; c0 < width; c0 += kLanes) {
        for (std::int64_t c = 0; c < kLanes; ++c) {
            const bool key = c0 + c < run.count && columns[c0 + c] >= 0;
            tile::scaledCopy(key ? job.inputs->k->row(job.kvHead, columns[c0 + c]) : zero, d, 1.0f,
                             rows + c * depth, depth);
        }
        for (std::int64_t p = 0; p < depth; p += kLanes)
            tile::transpose16(rows + p, depth, keys + p * width + c0, width);
    }
}

// The slot holding `run` of this call and head, or a slot to fill: the least recently used one that no run of
// this block holds (a new one when all are).
std::size_t slotFor(const BlockJob& job, const BandRun& run, Workspace& ws, bool& filled) {
    const std::int64_t* columns = job.plan->columns.data() + run.first;
    const float* head = job.inputs->k->head(job.kvHead);
    std::size_t oldest = ws.bandSlots.size();
    for (std::size_t s = 0; s < ws.bandSlots.size(); ++s) {
        BandKeySlot& slot = ws.bandSlots[s];
        if (slot.call == job.call && slot.head == head &&
            slot.columns.size() == static_cast<std::size_t>(run.count) && slot.columns[0] == columns[0] &&
            std::equal(slot.columns.begin(), slot.columns.end(), columns)) {
            filled = true;
            return s;
        }
        if (slot.lastUsed != ws.bandBlocks &&
            (oldest == ws.bandSlots.size() || slot.lastUsed < ws.bandSlots[oldest].lastUsed))
            oldest = s;
    }
    if (oldest == ws.bandSlots.size()) ws.bandSlots.emplace_back();
    BandKeySlot& slot = ws.bandSlots[oldest];
    slot.call = job.call;
    slot.head = head;
    slot.columns.assign(columns, columns + run.count);
    filled = false;
    return oldest;
}

} // namespace

void loadBandKeys(const BlockJob& job, Workspace& ws) {
    const std::int64_t d = job.inputs->k->cols, dv = job.inputs->v->cols;
    const BlockPlan& plan = *job.plan;
    ++ws.bandBlocks;
    float* rows = ws.bandRows.reserve(static_cast<std::size_t>(kLanes * paddedWidth(d)));
    float* zero = ws.zeroRow.reserve(static_cast<std::size_t>(paddedWidth(std::max(d, dv))));
    std::fill(zero, zero + paddedWidth(std::max(d, dv)), 0.0f);
    ws.bandRunSlot.clear();
    ws.bandRunValues.clear();
    ws.bandValueRows.clear();
    for (std::int64_t r = job.block->bandRunBegin; r < job.block->bandRunEnd; ++r) {
        const BandRun& run = plan.bandRuns[static_cast<std::size_t>(r)];
        bool filled = false;
        const std::size_t s = slotFor(job, run, ws, filled);
        BandKeySlot& slot = ws.bandSlots[s];
        slot.lastUsed = ws.bandBlocks;
        if (!filled)
            transposeRun(
                job, run, zero, rows,
                slot.keys.reserve(static_cast<std::size_t>(paddedWidth(d) * paddedWidth(run.count))));
        ws.bandRunSlot.push_back(s);
        ws.bandRunValues.push_back(static_cast<std::int64_t>(ws.bandValueRows.size()));
        const std::int64_t* columns = plan.columns.data() + run.first;
        for (std::int64_t c = 0; c < run.count; ++c)
            ws.bandValueRows.push_back(columns[c] >= 0 ? job.inputs->v->row(job.kvHead, columns[c]) : zero);
    }
}

#if defined(__AVX512F__)

namespace {

// scores[(e)·kQueryBlock + 16·strips[s] + l] = Σ_p queryT[p][16·strips[s] + l] · keys[p·keyStride + e + l]
// for s < Strips, e < Diagonals: each key vector is loaded once for all the strips.
template <int Strips, int Diagonals>
void bandTile(const float* queryT, const int* strips, const float* keys, std::int64_t keyStride,
              std::int64_t depth, float* scores, tile::PrefetchQueue& queue) {
    const char* const* pending = queue.next;
    __m512 acc[Strips][Diagonals];
#pragma GCC unroll 4
    for (int s = 0; s < Strips; ++s)
#pragma GCC unroll 8
        for (int e = 0; e < Diagonals; ++e)
            acc[s][e] = _mm512_setzero_ps();
    for (std::int64_t p = 0; p < depth; ++p, keys += keyStride, queryT += kQueryBlock) {
        if ((p & 1) == 0 && pending != queue.end) __builtin_prefetch(*pending++, 0, 2);
        __m512 q[Strips];
#pragma GCC unroll 4
        for (int s = 0; s < Strips; ++s)
            q[s] = _mm512_load_ps(queryT + strips[s] * kLanes);
#pragma GCC unroll 8
        for (int e = 0; e < Diagonals; ++e) {
            const __m512 k = _mm512_loadu_ps(keys + e);
#pragma GCC unroll 4
            for (int s = 0; s < Strips; ++s)
                acc[s][e] = _mm512_fmadd_ps(q[s], k, acc[s][e]);
        }
    }
#pragma GCC unroll 4
    for (int s = 0; s < Strips; ++s)
#pragma GCC unroll 8
        for (int e = 0; e < Diagonals; ++e)
            _mm512_store_ps(scores + e * kQueryBlock + strips[s] * kLanes, acc[s][e]);
    queue.next = pending;
}

// Diagonals per tile for a number of strips: acc, the strips' query vectors and one key vector in 32
// registers.
constexpr int maxTileDiagonals(int strips) {
    return strips >= 4 ? 6 : 8;
}

// f(std::integral_constant<int, k>{}) for k = count clamped to [1, Max]: a count known at run time as the
// template argument of the kernel it selects.
template <int Max, typename F> void withCount(int count, F&& f) {
    const int k = std::clamp(count, 1, Max);
    [&]<int... K>(std::integer_sequence<int, K...>) {
        (void)((k == K + 1 ? (f(std::integral_constant<int, K + 1>{}), true) : false) || ...);
    }(std::make_integer_sequence<int, Max>{});
}

void scoreTile(int stripCount, int diagonals, const float* queryT, const int* strips, const float* keys,
               std::int64_t keyStride, std::int64_t depth, float* scores, tile::PrefetchQueue& queue) {
    withCount<4>(stripCount, [&](auto stripsOf) {
        constexpr int Strips = decltype(stripsOf)::value;
        withCount<maxTileDiagonals(Strips)>(diagonals, [&](auto diagonalsOf) {
            bandTile<Strips, decltype(diagonalsOf)::value>(queryT, strips, keys, keyStride, depth, scores, queue);
        });
    });
}

// Rows row and row + 1 (Rows = 2) or row alone, columns [0, 16·Vectors) of dv, over a piece's diagonal runs:
// on the run's keys offset + l + t, row row takes diagonal first + t, row + 1 diagonal first + t − 1.
template <int Rows, int Vectors>
void bandUpdateRows(const float* scores, int row, const std::vector<DiagonalRun>& runs,
                    const float* const* const* runValues, std::int64_t column, __mmask16 lastMask, float* out,
                    std::int64_t outStride, const float* rowScale, bool scaleAndAdd) {
    __m512 acc[Rows][Vectors];
#pragma GCC unroll 2
    for (int i = 0; i < Rows; ++i)
#pragma GCC unroll 4
        for (int v = 0; v < Vectors; ++v)
            acc[i][v] = _mm512_setzero_ps();
    const int lane = row % kLanes;
    auto step = [&](const float* value, const float* weights, bool first, bool second) {
        __m512 b[Vectors];
#pragma GCC unroll 4
        for (int v = 0; v + 1 < Vectors; ++v)
            b[v] = _mm512_loadu_ps(value + v * kLanes);
        b[Vectors - 1] = _mm512_maskz_loadu_ps(lastMask, value + (Vectors - 1) * kLanes);
        if (first) {
            const __m512 a = _mm512_set1_ps(weights[row]);
#pragma GCC unroll 4
            for (int v = 0; v < Vectors; ++v)
                acc[0][v] = _mm512_fmadd_ps(a, b[v], acc[0][v]);
        }
        if (Rows == 2 && second) {
            const __m512 a = _mm512_set1_ps(weights[row + 1 - kQueryBlock]);
#pragma GCC unroll 4
            for (int v = 0; v < Vectors; ++v)
                acc[Rows - 1][v] = _mm512_fmadd_ps(a, b[v], acc[Rows - 1][v]);
        }
    };
    const std::uint64_t rowBits = (Rows == 2 ? std::uint64_t{3} : std::uint64_t{1}) << row;
    for (const DiagonalRun& run : runs) {
        if ((run.rows & rowBits) == 0) continue;
        const float* const* values = runValues[run.run] + run.offset + lane;
        const float* weights = scores + run.first * kQueryBlock;
        step(values[0] + column, weights, true, false);
        for (std::int64_t t = 1; t < run.count; ++t)
            step(values[t] + column, weights + t * kQueryBlock, true, true);
        if (Rows == 2) step(values[run.count] + column, weights + run.count * kQueryBlock, false, true);
    }
#pragma GCC unroll 2
    for (int i = 0; i < Rows; ++i) {
        float* c = out + (row + i) * outStride + column;
        const __m512 scale = _mm512_set1_ps(scaleAndAdd ? rowScale[row + i] : 1.0f);
#pragma GCC unroll 4
        for (int v = 0; v < Vectors; ++v)
            _mm512_storeu_ps(c + v * kLanes,
                             _mm512_fmadd_ps(_mm512_loadu_ps(c + v * kLanes), scale, acc[i][v]));
    }
}

template <int Rows>
void bandUpdateOf(int vectors, const float* scores, int row, const std::vector<DiagonalRun>& runs,
                  const float* const* const* runValues, std::int64_t column, __mmask16 lastMask, float* out,
                  std::int64_t outStride, const float* rowScale, bool scaleAndAdd) {
    withCount<4>(vectors, [&](auto vectorsOf) {
        bandUpdateRows<Rows, decltype(vectorsOf)::value>(scores, row, runs, runValues, column, lastMask, out,
                                                         outStride, rowScale, scaleAndAdd);
    });
}

} // namespace

#else // portable fallback: the same sums one lane at a time

namespace {

constexpr int maxTileDiagonals(int) {
    return 8;
}

void scoreTile(int stripCount, int diagonals, const float* queryT, const int* strips, const float* keys,
               std::int64_t keyStride, std::int64_t depth, float* scores, tile::PrefetchQueue&) {
    for (int s = 0; s < stripCount; ++s)
        for (int e = 0; e < diagonals; ++e)
            for (int l = 0; l < kLanes; ++l) {
                float sum = 0;
                for (std::int64_t p = 0; p < depth; ++p)
                    sum += queryT[p * kQueryBlock + strips[s] * kLanes + l] * keys[p * keyStride + e + l];
                scores[e * kQueryBlock + strips[s] * kLanes + l] = sum;
            }
}

} // namespace

#endif

void bandPieceScores(const BlockJob& job, const PlanPiece& piece, Workspace& ws) {
    std::vector<DiagonalRun>& runs = ws.diagonalRuns;
    findDiagonalRuns(job, piece, runs);
    const std::int64_t d = job.inputs->q->cols;
    const BlockPlan& plan = *job.plan;
    for (const DiagonalRun& run : runs) {
        const unsigned vectors = vectorsOf(run.rows);
        int strips[kQueryBlock / kLanes], count = 0;
        for (int g = 0; g < kQueryBlock / kLanes; ++g)
            if ((vectors >> g) & 1u) strips[count++] = g;
        const BandRun& keysRun = plan.bandRuns[static_cast<std::size_t>(job.block->bandRunBegin + run.run)];
        const std::int64_t stride = paddedWidth(keysRun.count);
        const float* keys =
            ws.bandSlots[ws.bandRunSlot[static_cast<std::size_t>(run.run)]].keys.data() + run.offset;
        // Tiles of about equal size, at most maxTileDiagonals each.
        const int most = maxTileDiagonals(count);
        const std::int64_t tiles = (run.count + most - 1) / most;
        for (std::int64_t t = 0, e = 0; t < tiles; ++t) {
            const std::int64_t end = (t + 1) * run.count / tiles;
            scoreTile(count, static_cast<int>(end - e), ws.queryT.data(), strips, keys + e, stride, d,
                      ws.scores.data() + (run.first + e) * kQueryBlock, ws.prefetchQueue);
            e = end;
        }
    }
}

void bandPieceUpdate(const BlockJob& job, Workspace& ws, const float* rowScale, bool scaleAndAdd) {
    const std::vector<DiagonalRun>& runs = ws.diagonalRuns; // as bandPieceScores found them
    const std::int64_t dv = job.inputs->v->cols, outStride = paddedWidth(dv);
    ws.bandRunValuePointers.clear();
    for (const std::int64_t first : ws.bandRunValues)
        ws.bandRunValuePointers.push_back(ws.bandValueRows.data() + first);
    const float* const* const* runValues = ws.bandRunValuePointers.data();
#if defined(__AVX512F__)
    const std::int64_t tileWidth = tile::kTileVectors * kLanes;
    for (std::int64_t column = 0; column < dv; column += tileWidth) {
        const std::int64_t width = std::min(tileWidth, dv - column);
        const int vectors = static_cast<int>((width + kLanes - 1) / kLanes);
        const auto lastMask = static_cast<__mmask16>((1u << (width - (vectors - 1) * kLanes)) - 1u);
        for (int row = 0; row < job.rows(); row += 2)
            if (row + 1 < job.rows())
                bandUpdateOf<2>(vectors, ws.scores.data(), row, runs, runValues, column, lastMask,
                                ws.output.data(), outStride, rowScale, scaleAndAdd);
            else
                bandUpdateOf<1>(vectors, ws.scores.data(), row, runs, runValues, column, lastMask,
                                ws.output.data(), outStride, rowScale, scaleAndAdd);
    }
#else
    for (std::int64_t row = 0; row < job.rows(); ++row) {
        float* out = ws.output.data() + row * outStride;
        for (std::int64_t x = 0; x < dv; ++x)
            out[x] *= scaleAndAdd ? rowScale[row] : 1.0f;
        for (const DiagonalRun& run : runs)
            for (std::int64_t t = 0; t < run.count; ++t) {
                const float weight = ws.scores.data()[(run.first + t) * kQueryBlock + row];
                const float* value = runValues[run.run][run.offset + t + row % kLanes];
                for (std::int64_t x = 0; x < dv; ++x)
                    out[x] += weight * value[x];
            }
    }
#endif
}

} // namespace attnlab::block
