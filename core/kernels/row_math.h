#pragma once

// Row-wise building blocks of the block kernel: for pieces where each query row has its own few keys
// (row-wise pieces) and for blocks of so few rows that a tile of 16 query lanes would mostly compute
// nothing (global rows). Dot products run along d and several keys are reduced at once; the online
// softmax and the value update work one row at a time, sharing key and value loads between rows.

#include <cstdint>

namespace attnlab::tile {

// Query rows handled together (their key and value loads shared).
inline constexpr int kSharedLoadRows = 4;

// Rows of a matrix picked by column: row c is base + columns[c]·stride.
struct ColumnRows {
    const float* base;
    std::int64_t stride;
    const std::int64_t* columns;
};

// Keys whose dot products rowDots reduces together (one transposing reduction per chunk of this many).
inline constexpr int kDotKeys = 16;

// scores[r·scoreStride + c] = Σ_{p<depth} queries[r][p] · keys[c][p] for r < rows ≤ kSharedLoadRows, c < count,
// the same sums in the same order whoever asks (a run and its weights must agree to the last bit).
void rowDots(const float* const* queries, int rows, const float* const* keys, std::int64_t count, std::int64_t depth,
             float* scores, std::int64_t scoreStride);
// The same for one query and keys picked by column: scores[c] = query · keys row c for c < count.
void columnDots(const float* query, const ColumnRows& keys, std::int64_t count, std::int64_t depth, float* scores);

// One piece of a row's online softmax: scores[c] (log2 units, c < count, −inf where masked) become
// exp2(scores − newMax), rowMax and rowSum are updated (rowMax starts at kNoMax), and the result is
// exp2(oldMax − newMax), the factor that earlier output of the row must be multiplied by.
float softmaxRow(float* scores, std::int64_t count, float& rowMax, float& rowSum);

// scores[c] = max(scores, 0)² · factor for c < count.
void reluSquaredRow(float* scores, std::int64_t count, float factor);

// Where a product's weights are: weight (r, c) at data[r·rowStride + c·keyStride].
struct WeightLayout {
    const float* data;
    std::int64_t rowStride;
    std::int64_t keyStride;
};

// out_r[0, dv) = factor[r] · out_r + Σ_{c<count} weight(r, c) · values[c][0, dv) for r < rows ≤ kSharedLoadRows,
// out_r at out + r·outStride.
void accumulateRows(const WeightLayout& weights, int rows, const float* const* values, std::int64_t count,
                    std::int64_t dv, const float* factor, float* out, std::int64_t outStride);

} // namespace attnlab::tile
