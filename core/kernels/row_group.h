#pragma once

// Row-wise attention of 16 query rows at a time, each over its own few key columns, from the queries to
// the output rows in one go: the block kernel's streamed row-wise blocks (row_pieces.cpp), where rows
// share no keys (bigbird's random keys, its narrow window).

#include "core/kernels/row_math.h"
#include "core/kernels/tile_math.h"

#include <cstdint>

namespace attnlab::tile {

// Column c of a row-wise row's sorted list of `count` is far when it is at least kNearColumns from the row
// and no neighbour of it in the list is next to it (random keys): no hardware prefetcher foresees its K and
// V rows, which the streamed kernel requests ahead (rowGroupScores). The rest are runs that the
// neighbouring rows read too (a window, global columns, a 2-D neighbourhood's key rows above its query).
inline constexpr std::int64_t kNearColumns = 16;
inline bool farColumn(const std::int64_t* columns, std::int64_t count, std::int64_t c, std::int64_t row) {
    const std::int64_t j = columns[c];
    return (j <= row - kNearColumns || j >= row + kNearColumns) && (c == 0 || columns[c - 1] != j - 1) &&
           (c + 1 == count || columns[c + 1] != j + 1);
}

// Up to kLanes query rows, each over its own key and value columns, taken from their queries to their
// output rows in one go (the block kernel's streamed row-wise blocks): one vector of S^T.
struct RowGroup {
    int rows = 0;
    const float* queries[kLanes]; // unscaled query rows
    ColumnRows keys[kLanes];
    ColumnRows values[kLanes];
    std::int64_t counts[kLanes];    // each row's columns
    std::int64_t positions[kLanes]; // each row's index i in the sequence
    float* outputs[kLanes];
};

// S^T[c][r] (rows kQueryBlock floats apart) = (scale·q_r) · k_{r,c} for c < counts[r], the same sums as
// rowDots over the scaled queries loadQueries makes; −inf for counts[r] ≤ c < keys and for rows past
// group.rows; keys is a multiple of kLanes. scratch holds kLanes·keys floats of row scores, then kLanes
// scaled queries of depth rounded up to whole vectors. With requestAhead, while a row computes, the K and V
// rows of the far columns (farColumn) of a row a few places on (in `next` past the group's end; next may be
// null) are requested into L1: random keys, whose misses no hardware prefetcher foresees; so are the rows the group streams through (each row's newest V row, the next group's queries
// and newest K rows) and the plan's columns two groups on.
void rowGroupScores(const RowGroup& group, const RowGroup* next, bool requestAhead, float scale, std::int64_t depth,
                    std::int64_t keys, float* scoresT, float* scratch);

// outputs[r][0, dv) = norms[r] · Σ_c P^T[c][r] · v_{r,c} over the row's columns, P^T as rowGroupScores lays
// out S^T; with `stream`, stored with non-temporal stores (outputs 64-byte aligned, dv a multiple of 16).
// Returns whether every value stored is finite.
bool rowGroupValues(const RowGroup& group, const float* weightsT, const float* norms, std::int64_t dv,
                    bool stream);

} // namespace attnlab::tile
