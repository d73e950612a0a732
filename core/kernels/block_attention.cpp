#include "core/kernels/block_attention.h"

#include "core/kernels/tile_math.h"
#include "core/parallel_tasks.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace attnlab {

namespace {

using tile::kQueryBlock;

// Below this fraction of allowed cells among the cells of its touched key blocks, a query block
// runs on the per-row kernel (about this many times slower per pair than the block kernel).
constexpr double kSparseFallback = 8.0;

std::int64_t paddedWidth(std::int64_t dv) { return (dv + tile::kLanes - 1) / tile::kLanes * tile::kLanes; }

struct TouchedBlock {
    std::int64_t index = 0; // key block number: columns [index·kKeyBlock, …)
    std::int64_t allowed = 0;
};

// One thread's scratch, kept across calls (freshly mapped pages are slow to touch).
struct Workspace {
    tile::AlignedBuffer queryT;  // [d][kQueryBlock]: the query block transposed, times the score scale
    tile::AlignedBuffer scores;  // [kKeyBlock][kQueryBlock]: S^T, then P^T
    tile::AlignedBuffer output;  // [kQueryBlock][paddedWidth(dv)]: unnormalised output rows
    tile::AlignedBuffer rowStats; // rowMax, rowSum, rescale: kQueryBlock each
    std::vector<ColumnRange> ranges;      // the block's rows' ranges, row r at [rowStart[r], rowStart[r+1])
    std::vector<std::size_t> rowStart;
    std::vector<ColumnRange> rowRanges;   // one row's ranges as the pattern writes them
    std::vector<std::size_t> cursor;      // per row: first range that may reach the current key block
    std::vector<std::int64_t> multiRangeRows; // rows with several ranges in the key block being masked
    std::vector<std::int64_t> blockCount; // allowed cells per key block (all zero between query blocks)
    std::vector<TouchedBlock> touched;
    std::vector<float> rowWeights, rowAccumulator; // per-row kernel
    // Gathered mode: the block's rows share few columns spread over many key blocks (fixed's summary
    // columns, bigbird's globals): the union of their columns, ascending, and its K and V rows copied
    // together ([columns][d] and [columns][dv]), so key block b means union entries [b·kKeyBlock, …).
    bool gathered = false;
    std::vector<ColumnRange> unionOfRows;
    std::vector<std::int64_t> keyColumns;
    tile::AlignedBuffer keys, values;
};

Workspace& threadWorkspace() {
    static thread_local Workspace workspace;
    return workspace;
}

const Pattern& patternOf(const HeadPatterns& patterns, int head) {
    return *patterns[patterns.size() == 1 ? 0 : static_cast<std::size_t>(head)];
}

// Everything one query block needs to know about the problem.
struct BlockJob {
    const Tensor3* q;
    const Tensor3* k;
    const Tensor3* v;
    const Pattern* pattern;
    const MaskedScoring* scoring;
    Tensor3* out;
    Tensor3* weights; // may be null
    int head;
    std::int64_t row0;
    std::int64_t rows;
    bool softmax() const { return scoring->kind == MaskedScoring::Kind::Softmax; }
};

// Collects the block's row ranges and the key blocks they touch; returns the allowed pairs.
std::int64_t planQueryBlock(const BlockJob& job, Workspace& ws) {
    const std::int64_t n = job.q->rows;
    const std::size_t keyBlocks = static_cast<std::size_t>((n + kKeyBlock - 1) / kKeyBlock);
    if (ws.blockCount.size() < keyBlocks) ws.blockCount.resize(keyBlocks, 0);
    ws.ranges.clear();
    ws.rowStart.assign(1, 0);
    for (std::int64_t r = 0; r < job.rows; ++r) {
        // Patterns merge a new range into the vector's last one, so each row starts from an empty vector.
        ws.rowRanges.clear();
        job.pattern->rowRanges(job.row0 + r, ws.rowRanges);
        ws.ranges.insert(ws.ranges.end(), ws.rowRanges.begin(), ws.rowRanges.end());
        ws.rowStart.push_back(ws.ranges.size());
    }
    std::int64_t nnz = 0;
    for (const ColumnRange& range : ws.ranges)
        for (std::int64_t b = range.begin / kKeyBlock; b * kKeyBlock < range.end; ++b) {
            const std::int64_t overlap =
                std::min(range.end, (b + 1) * kKeyBlock) - std::max(range.begin, b * kKeyBlock);
            ws.blockCount[static_cast<std::size_t>(b)] += overlap;
            nnz += overlap;
        }
    ws.touched.clear();
    for (const ColumnRange& range : ws.ranges)
        for (std::int64_t b = range.begin / kKeyBlock; b * kKeyBlock < range.end; ++b) {
            std::int64_t& count = ws.blockCount[static_cast<std::size_t>(b)];
            if (count == 0) continue;
            ws.touched.push_back({b, count});
            count = 0;
        }
    std::sort(ws.touched.begin(), ws.touched.end(),
              [](const TouchedBlock& x, const TouchedBlock& y) { return x.index < y.index; });
    return nnz;
}

std::int64_t blockColumns(std::int64_t columns, std::int64_t block) {
    return std::min(kKeyBlock, columns - block * kKeyBlock);
}

// Columns the key blocks are cut from: all n keys, or the gathered union.
std::int64_t keyCount(const BlockJob& job, const Workspace& ws) {
    return ws.gathered ? static_cast<std::int64_t>(ws.keyColumns.size()) : job.q->rows;
}

const float* blockKeys(const BlockJob& job, Workspace& ws, std::int64_t block) {
    return ws.gathered ? ws.keys.data() + block * kKeyBlock * job.k->cols : job.k->row(job.head, block * kKeyBlock);
}

const float* blockValues(const BlockJob& job, Workspace& ws, std::int64_t block) {
    return ws.gathered ? ws.values.data() + block * kKeyBlock * job.v->cols : job.v->row(job.head, block * kKeyBlock);
}

std::int64_t columnOf(const Workspace& ws, std::int64_t block, std::int64_t c) {
    const std::int64_t position = block * kKeyBlock + c;
    return ws.gathered ? ws.keyColumns[static_cast<std::size_t>(position)] : position;
}

double touchedCells(const BlockJob& job, const Workspace& ws) {
    double cells = 0;
    for (const TouchedBlock& block : ws.touched)
        cells += static_cast<double>(job.rows) * static_cast<double>(blockColumns(job.q->rows, block.index));
    return cells;
}

// The sorted union of the block's rows' ranges into ws.unionOfRows; returns its number of columns.
std::int64_t unionColumns(Workspace& ws) {
    ws.unionOfRows = ws.ranges;
    std::sort(ws.unionOfRows.begin(), ws.unionOfRows.end(),
              [](const ColumnRange& x, const ColumnRange& y) { return x.begin < y.begin; });
    std::size_t kept = 0;
    for (const ColumnRange& range : ws.unionOfRows) {
        if (kept > 0 && range.begin <= ws.unionOfRows[kept - 1].end)
            ws.unionOfRows[kept - 1].end = std::max(ws.unionOfRows[kept - 1].end, range.end);
        else
            ws.unionOfRows[kept++] = range;
    }
    ws.unionOfRows.resize(kept);
    std::int64_t columns = 0;
    for (const ColumnRange& range : ws.unionOfRows) columns += range.size();
    return columns;
}

// Switches the block to gathered mode: copies the union's K and V rows and lists its key blocks.
void gatherKeys(const BlockJob& job, Workspace& ws) {
    const std::int64_t d = job.k->cols, dv = job.v->cols;
    ws.keyColumns.clear();
    for (const ColumnRange& range : ws.unionOfRows)
        for (std::int64_t j = range.begin; j < range.end; ++j) ws.keyColumns.push_back(j);
    const auto count = static_cast<std::int64_t>(ws.keyColumns.size());
    float* keys = ws.keys.reserve(static_cast<std::size_t>(count * d));
    float* values = ws.values.reserve(static_cast<std::size_t>(count * dv));
    for (std::int64_t g = 0; g < count; ++g) {
        const std::int64_t j = ws.keyColumns[static_cast<std::size_t>(g)];
        std::copy(job.k->row(job.head, j), job.k->row(job.head, j) + d, keys + g * d);
        std::copy(job.v->row(job.head, j), job.v->row(job.head, j) + dv, values + g * dv);
    }
    ws.gathered = true;
    ws.touched.clear();
    for (std::int64_t b = 0; b * kKeyBlock < count; ++b) ws.touched.push_back({b, -1}); // −1: always mask
}

// Writes `masked` into the cells of S^T [cols][kQueryBlock] (columns col0…) outside each row's ranges.
// Key blocks must be visited in increasing order after the cursors were reset.
void maskPartialBlock(Workspace& ws, std::int64_t rows, std::int64_t col0, std::int64_t cols, float masked) {
    float* scores = ws.scores.data();
    const std::int64_t col1 = col0 + cols;
    auto fill = [&](std::int64_t r, std::int64_t from, std::int64_t to) {
        for (std::int64_t c = from; c < to; ++c) scores[(c - col0) * kQueryBlock + r] = masked;
    };
    // Rows with at most one allowed range in the block (bands, chunks, causal edges: the common case)
    // are masked a column at a time over all 64 rows with a branch-free select; rows with several
    // ranges here get their gaps filled one by one afterwards. Bounds are relative to col0.
    constexpr std::int32_t kWhole = std::numeric_limits<std::int32_t>::max();
    std::int32_t begin[kQueryBlock], end[kQueryBlock];
    ws.multiRangeRows.clear();
    for (std::int64_t r = 0; r < kQueryBlock; ++r) {
        begin[r] = -kWhole;
        end[r] = kWhole;
        if (r >= rows) continue;
        const std::size_t last = ws.rowStart[static_cast<std::size_t>(r) + 1];
        std::size_t idx = ws.cursor[static_cast<std::size_t>(r)];
        while (idx < last && ws.ranges[idx].end <= col0) ++idx;
        ws.cursor[static_cast<std::size_t>(r)] = idx;
        if (idx == last || ws.ranges[idx].begin >= col1) {
            begin[r] = end[r] = 0;
        } else if (idx + 1 < last && ws.ranges[idx + 1].begin < col1) {
            ws.multiRangeRows.push_back(r);
        } else {
            begin[r] = static_cast<std::int32_t>(std::max<std::int64_t>(ws.ranges[idx].begin - col0, 0));
            end[r] = static_cast<std::int32_t>(std::min<std::int64_t>(ws.ranges[idx].end - col0, cols));
        }
    }
    for (std::int32_t c = 0; c < static_cast<std::int32_t>(cols); ++c) {
        float* column = scores + c * kQueryBlock;
        for (std::int64_t r = 0; r < kQueryBlock; ++r) column[r] = (c >= begin[r] && c < end[r]) ? column[r] : masked;
    }
    for (const std::int64_t r : ws.multiRangeRows) {
        const std::size_t last = ws.rowStart[static_cast<std::size_t>(r) + 1];
        std::int64_t position = col0;
        for (std::size_t idx = ws.cursor[static_cast<std::size_t>(r)]; idx < last && ws.ranges[idx].begin < col1; ++idx) {
            fill(r, position, std::min(ws.ranges[idx].begin, col1));
            position = std::max(position, ws.ranges[idx].end);
        }
        fill(r, position, col1);
    }
}

// maskPartialBlock for a gathered key block: its columns are keyColumns[g0, g0 + cols).
void maskGatheredBlock(Workspace& ws, std::int64_t rows, std::int64_t g0, std::int64_t cols, float masked) {
    float* scores = ws.scores.data();
    for (std::int64_t r = 0; r < rows; ++r) {
        const std::size_t end = ws.rowStart[static_cast<std::size_t>(r) + 1];
        std::size_t idx = ws.cursor[static_cast<std::size_t>(r)];
        for (std::int64_t c = 0; c < cols; ++c) {
            const std::int64_t column = ws.keyColumns[static_cast<std::size_t>(g0 + c)];
            while (idx < end && ws.ranges[idx].end <= column) ++idx;
            if (idx == end || ws.ranges[idx].begin > column) scores[c * kQueryBlock + r] = masked;
        }
        ws.cursor[static_cast<std::size_t>(r)] = idx;
    }
}

// S^T = K[col0, col0+cols) · Q_blockᵀ (already scaled), with the cells outside the pattern masked.
void blockScores(const BlockJob& job, Workspace& ws, const TouchedBlock& block) {
    const std::int64_t d = job.q->cols;
    const std::int64_t col0 = block.index * kKeyBlock, cols = blockColumns(keyCount(job, ws), block.index);
    tile::TileProduct product;
    product.depth = d;
    product.a = blockKeys(job, ws, block.index);
    product.aRowStride = d;
    product.aDepthStride = 1;
    product.b = ws.queryT.data();
    product.bRowStride = kQueryBlock;
    product.c = ws.scores.data();
    product.cRowStride = kQueryBlock;
    tile::multiplyBlock(product, cols, kQueryBlock);
    const float masked = job.softmax() ? -std::numeric_limits<float>::infinity() : 0.0f;
    if (ws.gathered)
        maskGatheredBlock(ws, job.rows, col0, cols, masked);
    else if (block.allowed != job.rows * cols)
        maskPartialBlock(ws, job.rows, col0, cols, masked);
}

void resetCursors(Workspace& ws, std::int64_t rows) {
    ws.cursor.assign(ws.rowStart.begin(), ws.rowStart.begin() + rows);
}

float queryScale(const MaskedScoring& scoring) {
    return scoring.kind == MaskedScoring::Kind::Softmax ? static_cast<float>(scoring.scale * std::numbers::log2e)
                                                        : 1.0f;
}

// Second pass for the effective weights, from the final row max and sum.
void writeBlockWeights(const BlockJob& job, Workspace& ws) {
    resetCursors(ws, job.rows);
    const float* rowMax = ws.rowStats.data();
    const float* rowSum = rowMax + kQueryBlock;
    const auto relu = static_cast<float>(1.0 / job.scoring->normalizer);
    for (const TouchedBlock& block : ws.touched) {
        blockScores(job, ws, block);
        const std::int64_t cols = blockColumns(keyCount(job, ws), block.index);
        for (std::int64_t r = 0; r < job.rows; ++r) {
            float* w = job.weights->row(job.head, job.row0 + r);
            for (std::int64_t c = 0; c < cols; ++c) {
                const float s = ws.scores.data()[c * kQueryBlock + r];
                w[columnOf(ws, block.index, c)] = job.softmax() ? tile::exp2Scalar(s - rowMax[r]) / rowSum[r]
                                     : std::max(s, 0.0f) * std::max(s, 0.0f) * relu;
            }
        }
    }
}

void attendBlock(const BlockJob& job, Workspace& ws) {
    const std::int64_t d = job.q->cols, dv = job.v->cols, width = paddedWidth(dv);
    float* queryT = ws.queryT.reserve(static_cast<std::size_t>(d * kQueryBlock));
    ws.scores.reserve(static_cast<std::size_t>(kKeyBlock * kQueryBlock));
    float* output = ws.output.reserve(static_cast<std::size_t>(kQueryBlock * width));
    float* rowMax = ws.rowStats.reserve(3 * kQueryBlock);
    float* rowSum = rowMax + kQueryBlock;
    float* rescale = rowSum + kQueryBlock;

    const float scale = queryScale(*job.scoring);
    for (std::int64_t p = 0; p < d; ++p)
        for (std::int64_t r = 0; r < kQueryBlock; ++r)
            queryT[p * kQueryBlock + r] = r < job.rows ? job.q->at(job.head, job.row0 + r, p) * scale : 0.0f;
    std::fill(rowMax, rowMax + kQueryBlock, tile::kNoMax);
    std::fill(rowSum, rowSum + kQueryBlock, 0.0f);
    std::fill(output, output + kQueryBlock * width, 0.0f);
    resetCursors(ws, job.rows);

    const auto reluFactor = static_cast<float>(1.0 / job.scoring->normalizer);
    tile::TileProduct update;
    update.a = ws.scores.data();
    update.aRowStride = 1;
    update.aDepthStride = kQueryBlock;
    update.bRowStride = dv;
    update.c = output;
    update.cRowStride = width;
    update.mode = job.softmax() ? tile::Accumulate::ScaleAndAdd : tile::Accumulate::Add;
    update.rowScale = rescale;
    for (const TouchedBlock& block : ws.touched) {
        const std::int64_t cols = blockColumns(keyCount(job, ws), block.index);
        blockScores(job, ws, block);
        if (job.softmax())
            tile::softmaxBlock(ws.scores.data(), cols, rowMax, rowSum, rescale);
        else
            tile::reluSquaredBlock(ws.scores.data(), cols, reluFactor);
        update.depth = cols;
        update.b = blockValues(job, ws, block.index);
        tile::multiplyBlock(update, job.rows, dv);
    }
    for (std::int64_t r = 0; r < job.rows; ++r) {
        const float norm = job.softmax() ? 1.0f / rowSum[r] : 1.0f;
        float* out = job.out->row(job.head, job.row0 + r);
        for (std::int64_t e = 0; e < dv; ++e) out[e] = output[r * width + e] * norm;
    }
    if (job.weights) writeBlockWeights(job, ws);
}

// Raw score of (i, j) before the softmax or relu²: q_i·k_j (+ q_i·R_{i−j}).
float rawScore(const BlockJob& job, const float* qi, std::int64_t i, std::int64_t j) {
    const std::int64_t d = job.q->cols;
    float s = tile::dot(qi, job.k->row(job.head, j), d);
    if (job.scoring->relativePositions) s += tile::dot(qi, job.scoring->relativePositions->data() + (i - j) * d, d);
    return s;
}

// The per-row kernel: each row's ranges visited directly, O(nnz · (d + dv)).
void attendRows(const BlockJob& job, Workspace& ws) {
    const std::int64_t dv = job.v->cols;
    const bool softmax = job.softmax();
    const auto scale = static_cast<float>(job.scoring->scale);
    ws.rowAccumulator.resize(static_cast<std::size_t>(dv));
    for (std::int64_t r = 0; r < job.rows; ++r) {
        const std::int64_t i = job.row0 + r;
        const float* qi = job.q->row(job.head, i);
        const auto first = ws.ranges.begin() + static_cast<std::ptrdiff_t>(ws.rowStart[static_cast<std::size_t>(r)]);
        const auto last = ws.ranges.begin() + static_cast<std::ptrdiff_t>(ws.rowStart[static_cast<std::size_t>(r) + 1]);
        ws.rowWeights.clear();
        float best = -std::numeric_limits<float>::infinity();
        for (auto range = first; range != last; ++range)
            for (std::int64_t j = range->begin; j < range->end; ++j) {
                ws.rowWeights.push_back(rawScore(job, qi, i, j));
                best = std::max(best, ws.rowWeights.back());
            }
        const auto count = static_cast<std::int64_t>(ws.rowWeights.size());
        if (softmax)
            tile::exp2Shifted(ws.rowWeights.data(), count, best, scale * std::numbers::log2e_v<float>);
        else
            for (float& w : ws.rowWeights)
                w = static_cast<float>(std::max(w, 0.0f) * static_cast<double>(std::max(w, 0.0f)) / job.scoring->normalizer);
        double total = 0;
        for (const float w : ws.rowWeights) total += w;
        const float norm = softmax ? static_cast<float>(1.0 / total) : 1.0f;
        std::fill(ws.rowAccumulator.begin(), ws.rowAccumulator.end(), 0.0f);
        float* weightRow = job.weights ? job.weights->row(job.head, i) : nullptr;
        std::size_t p = 0;
        for (auto range = first; range != last; ++range)
            for (std::int64_t j = range->begin; j < range->end; ++j, ++p) {
                const float w = ws.rowWeights[p] * norm;
                const float* vj = job.v->row(job.head, j);
                for (std::int64_t c = 0; c < dv; ++c) ws.rowAccumulator[static_cast<std::size_t>(c)] += w * vj[c];
                if (weightRow) weightRow[j] = w;
            }
        std::copy(ws.rowAccumulator.begin(), ws.rowAccumulator.end(), job.out->row(job.head, i));
    }
}

// Chooses the cheapest of three ways by the cells each computes: the touched key blocks in place, the
// union of the rows' columns gathered together (copying it costs about as much as two of its rows),
// or, when both waste more than kSparseFallback cells per allowed pair, the per-row kernel.
void attendQueryBlock(const BlockJob& job) {
    Workspace& ws = threadWorkspace();
    ws.gathered = false;
    const auto nnz = static_cast<double>(planQueryBlock(job, ws));
    if (job.scoring->relativePositions) return attendRows(job, ws);
    const double inPlace = touchedCells(job, ws);
    const double gathered = static_cast<double>(job.rows + 2) * static_cast<double>(unionColumns(ws));
    if (std::min(inPlace, gathered) > kSparseFallback * nnz) return attendRows(job, ws);
    if (1.25 * gathered < inPlace) gatherKeys(job, ws); // in place when about equal: no copy
    attendBlock(job, ws);
}

} // namespace

double blockAttentionWorkspaceBytes(std::int64_t d, std::int64_t dv) {
    return 4.0 * static_cast<double>(kQueryBlock) *
           static_cast<double>(d + kKeyBlock + paddedWidth(dv) + 3);
}

RunResult runBlockAttention(const AttentionInputs& inputs, const HeadPatterns& patterns, const MaskedScoring& scoring,
                            const RunOptions& options) {
    RunResult result = makeResult(*inputs.v, options);
    const std::int64_t n = inputs.q->rows;
    const std::int64_t blocks = (n + kQueryBlock - 1) / kQueryBlock;
    const std::int64_t tasks = blocks * inputs.q->heads;
    result.cancelled = !runTasks(tasks, options.threads, options.cancelled, [&](std::int64_t task) {
        BlockJob job{inputs.q, inputs.k, inputs.v, nullptr, &scoring, &result.out,
                     result.weights ? &*result.weights : nullptr, static_cast<int>(task / blocks),
                     (task % blocks) * kQueryBlock, 0};
        job.pattern = &patternOf(patterns, job.head);
        job.rows = std::min<std::int64_t>(kQueryBlock, n - job.row0);
        attendQueryBlock(job);
    });
    return result;
}

} // namespace attnlab
