#include "core/kernels/row_group.h"
#include "core/kernels/row_dots_avx512.h"
#include "core/kernels/finite_lanes.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab::tile {

#if defined(__AVX512F__)

using namespace avx512;

namespace {

// Rows ahead of the one computing whose far K and V rows a row group requests into L1.
constexpr int kFarAhead = 4;
// The K and V rows of row r's far columns (farColumn), but not a column the row before requested at the
// same place in its list (a global column every row sees, which the first row's request already brought in).
[[gnu::always_inline]] inline void requestFarRows(const RowGroup& group, int r) {
    if (r >= group.rows) return;
    const ColumnRows& keys = group.keys[r];
    const ColumnRows& values = group.values[r];
    const std::int64_t* before = r > 0 ? group.keys[r - 1].columns : nullptr;
    const std::int64_t shared = r > 0 ? std::min(group.counts[r], group.counts[r - 1]) : 0;
    for (std::int64_t c = 0; c < group.counts[r]; ++c) {
        const std::int64_t j = keys.columns[c];
        if (!farColumn(keys.columns, group.counts[r], c, group.positions[r]) || (c < shared && before[c] == j))
            continue;
        prefetchRow<false, 3>(keys.base + j * keys.stride, keys.stride);
        prefetchRow<false, 3>(values.base + j * values.stride, values.stride);
    }
}

// The newest of row r's near columns (its window's last key, the K and V row no earlier row read), or −1.
[[gnu::always_inline]] inline std::int64_t newestNearColumn(const RowGroup& group, int r) {
    const std::int64_t i = group.positions[r];
    for (std::int64_t c = group.counts[r] - 1; c >= 0; --c) {
        const std::int64_t j = group.keys[r].columns[c];
        if (j < i + kNearColumns) return j > i - kNearColumns ? j : -1;
    }
    return -1;
}

// The rows a group streams through, requested ahead: while row r of a group computes its scores, the V row
// its window adds (read by the group's values a moment later), and row r of the next group's query and
// newest K row. The hardware prefetcher, seeing each stream in bursts of 16 rows, runs behind
// (docs/execution_plans.md, "Row-wise blocks (bigbird)").
[[gnu::always_inline]] inline void requestStreamRows(const RowGroup& group, const RowGroup* next, int r,
                                                     std::int64_t depth) {
    if (r < group.rows) {
        const std::int64_t j = newestNearColumn(group, r);
        const ColumnRows& values = group.values[r];
        if (j >= 0) prefetchRow<false, 3>(values.base + j * values.stride, values.stride);
    }
    if (next && next->rows > 0) {
        // The plan's columns of the group after `next` (two lines per row cover 16 columns of 8 bytes):
        // without the request, their loads stall the newest-column searches above.
        const int last = next->rows - 1;
        const char* after = reinterpret_cast<const char*>(next->keys[last].columns + next->counts[last]);
        __builtin_prefetch(after + 128 * r, 0, 3);
        __builtin_prefetch(after + 128 * r + 64, 0, 3);
    }
    if (next && r < next->rows) {
        prefetchRow<false, 3>(next->queries[r], depth);
        const std::int64_t j = newestNearColumn(*next, r);
        if (j >= 0) prefetchRow<false, 3>(next->keys[r].base + j * next->keys[r].stride, depth);
    }
}

template <int Vectors>
void groupScoresOfDepth(const RowGroup& group, const RowGroup* next, bool requestAhead, float scale,
                        std::int64_t depth, std::int64_t keys, float* scoresT, float* scratch) {
    const std::int64_t padded = paddedWidth(depth);
    float* query = scratch + kLanes * keys;
    const __m512 factor = _mm512_set1_ps(scale);
    const __m512 masked = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    for (int r = 0; r < kLanes; ++r) {
        if (requestAhead) {
            if (r + kFarAhead < kLanes)
                requestFarRows(group, r + kFarAhead);
            else if (next)
                requestFarRows(*next, r + kFarAhead - kLanes);
            requestStreamRows(group, next, r, depth);
        }
        float* row = scratch + r * keys;
        std::int64_t count = 0;
        if (r < group.rows) {
            // The scaled query as loadQueries writes it (q·scale rounded to float), zero past depth.
            for (std::int64_t p = 0; p < padded; p += kLanes)
                _mm512_store_ps(query + p, _mm512_mul_ps(_mm512_maskz_loadu_ps(firstLanes(depth - p),
                                                                               group.queries[r] + p),
                                                         factor));
            count = group.counts[r];
            dotsOfDepth<Vectors>(query, ColumnList{group.keys[r]}, count, depth, row);
        }
        // Only the lanes past the row's columns are stored: reading back the dot products' masked
        // stores to blend them waited for the stores.
        for (std::int64_t c = count / kLanes * kLanes; c < keys; c += kLanes) {
            const __mmask16 kept = c < count ? firstLanes(count - c) : __mmask16(0);
            _mm512_mask_storeu_ps(row + c, static_cast<__mmask16>(~kept), masked);
        }
    }
    for (std::int64_t c = 0; c < keys; c += kLanes)
        transpose16(scratch + c, keys, scoresT + c * kQueryBlock, kQueryBlock);
}

} // namespace

void rowGroupScores(const RowGroup& group, const RowGroup* next, bool requestAhead, float scale, std::int64_t depth,
                    std::int64_t keys, float* scoresT, float* scratch) {
    withUnrolledWidth(depth, [&](auto vectors) {
        groupScoresOfDepth<vectors()>(group, next, requestAhead, scale, depth, keys, scoresT, scratch);
    });
}

namespace {

// out[0, dv) = scale · Σ_{c<count} weights[c·kQueryBlock] · values row c [0, dv), out's earlier contents
// unread; with `stream`, stored with non-temporal stores (then out is 64-byte aligned and dv a multiple of
// 16). With Vectors > 0, dv is exactly Vectors·kLanes: unrolled, without lane masks; with 0, any dv, 4
// vectors at a time. Returns whether every value stored is finite.
template <int Vectors>
bool weightedValues(const float* weights, const ColumnRows& values, std::int64_t count, std::int64_t dv,
                    float scale, float* out, bool stream) {
    constexpr int kVectors = Vectors > 0 ? Vectors : 4;
    const ColumnList rows{values};
    auto load = [](__mmask16 lanes, const float* from) {
        if constexpr (Vectors > 0) return _mm512_loadu_ps(from);
        else return _mm512_maskz_loadu_ps(lanes, from);
    };
    __mmask16 bad = 0;
    for (std::int64_t x = 0; x < dv; x += kVectors * kLanes) {
        __mmask16 lanes[kVectors];
        // Two sets of sums over alternate keys: each chain of fused multiply-adds is half as long.
        __m512 even[kVectors], odd[kVectors];
#pragma GCC unroll 8
        for (int v = 0; v < kVectors; ++v) {
            lanes[v] = Vectors > 0 ? __mmask16(0xFFFF) : firstLanes(std::max<std::int64_t>(0, dv - x - v * kLanes));
            even[v] = odd[v] = _mm512_setzero_ps();
        }
        std::int64_t c = 0;
        for (; c + 1 < count; c += 2) {
            const __m512 w0 = _mm512_set1_ps(weights[c * kQueryBlock]),
                         w1 = _mm512_set1_ps(weights[(c + 1) * kQueryBlock]);
            const float* row0 = rows[c] + x;
            const float* row1 = rows[c + 1] + x;
#pragma GCC unroll 8
            for (int v = 0; v < kVectors; ++v) {
                even[v] = _mm512_fmadd_ps(w0, load(lanes[v], row0 + v * kLanes), even[v]);
                odd[v] = _mm512_fmadd_ps(w1, load(lanes[v], row1 + v * kLanes), odd[v]);
            }
        }
        if (c < count) {
            const __m512 w0 = _mm512_set1_ps(weights[c * kQueryBlock]);
            const float* row0 = rows[c] + x;
#pragma GCC unroll 8
            for (int v = 0; v < kVectors; ++v) even[v] = _mm512_fmadd_ps(w0, load(lanes[v], row0 + v * kLanes), even[v]);
        }
        const __m512 factor = _mm512_set1_ps(scale);
#pragma GCC unroll 8
        for (int v = 0; v < kVectors; ++v) {
            if (lanes[v] == 0) break;
            const __m512 total = _mm512_mul_ps(_mm512_add_ps(even[v], odd[v]), factor);
            bad |= static_cast<__mmask16>(nonFiniteLanes(total) & lanes[v]);
            if (stream)
                _mm512_stream_ps(out + x + v * kLanes, total);
            else if constexpr (Vectors > 0)
                _mm512_storeu_ps(out + x + v * kLanes, total);
            else
                _mm512_mask_storeu_ps(out + x + v * kLanes, lanes[v], total);
        }
    }
    return bad == 0;
}

} // namespace

bool rowGroupValues(const RowGroup& group, const float* weightsT, const float* norms, std::int64_t dv,
                    bool stream) {
    bool finite = true;
    withUnrolledWidth(dv, [&](auto vectors) {
        for (int r = 0; r < group.rows; ++r)
            finite &= weightedValues<vectors()>(weightsT + r, group.values[r], group.counts[r], dv, norms[r],
                                                group.outputs[r], stream);
    });
    return finite;
}

#else // portable fallback

void rowGroupScores(const RowGroup& group, const RowGroup*, bool, float scale, std::int64_t depth,
                    std::int64_t keys, float* scoresT, float* scratch) {
    const std::int64_t padded = paddedWidth(depth);
    float* query = scratch + kLanes * keys;
    for (int r = 0; r < kLanes; ++r) {
        std::int64_t count = 0;
        if (r < group.rows) {
            scaledCopy(group.queries[r], depth, scale, query, padded);
            count = group.counts[r];
            columnDots(query, group.keys[r], count, depth, scratch + r * keys);
        }
        for (std::int64_t c = count; c < keys; ++c)
            scratch[r * keys + c] = -std::numeric_limits<float>::infinity();
    }
    for (std::int64_t c = 0; c < keys; ++c)
        for (int r = 0; r < kLanes; ++r)
            scoresT[c * kQueryBlock + r] = scratch[r * keys + c];
}

bool rowGroupValues(const RowGroup& group, const float* weightsT, const float* norms, std::int64_t dv, bool) {
    bool finite = true;
    for (int r = 0; r < group.rows; ++r) {
        const ColumnRows& values = group.values[r];
        for (std::int64_t e = 0; e < dv; ++e) {
            float sum = 0;
            for (std::int64_t c = 0; c < group.counts[r]; ++c)
                sum += weightsT[c * kQueryBlock + r] * values.base[values.columns[c] * values.stride + e];
            group.outputs[r][e] = sum * norms[r];
            finite = finite && std::isfinite(group.outputs[r][e]);
        }
    }
    return finite;
}

#endif

} // namespace attnlab::tile
