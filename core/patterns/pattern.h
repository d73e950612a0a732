#pragma once

#include "core/patterns/count_runs.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace attnlab {

// Half-open column interval [begin, end) of one query row.
struct ColumnRange {
    std::int64_t begin = 0;
    std::int64_t end = 0;
    std::int64_t size() const { return end - begin; }
    bool operator==(const ColumnRange&) const = default;
};

// Columns begin, begin + step, … below end, begin < end, step ≥ 1 (step 1: the range [begin, end)). A row of
// one-column ranges j ≡ i (mod s) is one such range, and its columns in a block are a closed form.
struct StridedRange {
    std::int64_t begin = 0;
    std::int64_t end = 0;
    std::int64_t step = 1;
    // Its columns in [lo, hi), begin on the first of them; begin = end = lo when there are none.
    StridedRange clippedTo(std::int64_t lo, std::int64_t hi) const;
    std::int64_t columns() const { return begin < end ? (end - 1 - begin) / step + 1 : 0; }
    // The number of its columns in [lo, hi).
    std::int64_t countIn(std::int64_t lo, std::int64_t hi) const { return clippedTo(lo, hi).columns(); }
    bool operator==(const StridedRange&) const = default;
};

// The allowed set M of an n × n attention pattern, queried without ever building n × n storage.
// rowRanges() appends row i's allowed columns as sorted, disjoint, non-touching ranges; every row
// has at least one member. Cost of a full sweep over rows is O(number of ranges) ≤ O(nnz).
// A pattern may have fewer rows than columns (queries that are not the whole sequence: the last rows
// of an n × n pattern, core/patterns/query_rows.h); size() is always the number of key columns.
class Pattern {
public:
    explicit Pattern(std::int64_t n) : m_rows(n), m_n(n) {}
    Pattern(std::int64_t rows, std::int64_t n) : m_rows(rows), m_n(n) {}
    virtual ~Pattern() = default;
    Pattern(const Pattern&) = delete;
    Pattern& operator=(const Pattern&) = delete;

    std::int64_t size() const { return m_n; }
    std::int64_t rows() const { return m_rows; }
    virtual bool allowed(std::int64_t i, std::int64_t j) const = 0;
    virtual void rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const = 0;
    // Number of allowed columns of row i; subclasses override with a closed form where one exists.
    virtual std::int64_t rowCount(std::int64_t i) const;
    // Appends row i's columns (those of rowRanges) as strided ranges, sorted and disjoint; false, appending
    // nothing, when the pattern gives its rows as ranges only.
    virtual bool rowStrides(std::int64_t i, std::vector<StridedRange>& out) const;
    // Row counts as runs (core/patterns/count_runs.h) covering every row once, visited in any order; false,
    // visiting nothing, when the pattern has no such description (then only rowCount per row gives them).
    virtual bool countRuns(const CountRunVisitor& visit) const;
    // From countRuns when it answers, else from rowCount per row.
    std::int64_t nnz() const;

private:
    std::int64_t m_rows;
    std::int64_t m_n;
};

// A pattern defined by ranges computed per row, with membership answered by a predicate.
class RangePattern : public Pattern {
public:
    using RangeFunction = std::function<void(std::int64_t i, std::vector<ColumnRange>& out)>;
    using Predicate = std::function<bool(std::int64_t i, std::int64_t j)>;
    RangePattern(std::int64_t n, Predicate predicate, RangeFunction ranges);
    bool allowed(std::int64_t i, std::int64_t j) const override { return m_predicate(i, j); }
    void rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const override { m_ranges(i, out); }

private:
    Predicate m_predicate;
    RangeFunction m_ranges;
};

// A pattern whose rows are ranges, with rowCount given in closed form and, when given, countRuns.
class ClosedFormPattern : public RangePattern {
public:
    using CountFunction = std::function<std::int64_t(std::int64_t i)>;
    using RunsFunction = std::function<void(const CountRunVisitor&)>;
    ClosedFormPattern(std::int64_t n, Predicate predicate, RangeFunction ranges, CountFunction count, RunsFunction runs = {})
        : RangePattern(n, std::move(predicate), std::move(ranges)), m_count(std::move(count)), m_runs(std::move(runs)) {}
    std::int64_t rowCount(std::int64_t i) const override { return m_count(i); }
    bool countRuns(const CountRunVisitor& visit) const override;

private:
    CountFunction m_count;
    RunsFunction m_runs;
};

// Block-local pattern: ⌊i/c⌋ = ⌊j/c⌋ (∧ j ≤ i when causal), rows in closed form.
std::unique_ptr<Pattern> blockLocalPattern(std::int64_t n, std::int64_t c, bool causal);

// A data-dependent or random pattern stored as sorted ranges per row (CSR), O(ranges) memory.
class ExplicitPattern : public Pattern {
public:
    // rows[i] holds row i's sorted, disjoint ranges.
    ExplicitPattern(std::int64_t n, const std::vector<std::vector<ColumnRange>>& rows);
    bool allowed(std::int64_t i, std::int64_t j) const override;
    void rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const override;
    std::int64_t rowCount(std::int64_t i) const override { return m_rowCount[i]; }

private:
    std::vector<std::int64_t> m_rowStart; // n + 1 offsets into m_ranges
    std::vector<ColumnRange> m_ranges;
    std::vector<std::int64_t> m_rowCount;
};

// Sorted ranges of a sorted list of distinct columns.
std::vector<ColumnRange> rangesOfColumns(const std::vector<std::int64_t>& sortedColumns);

// Helpers for building ranges: append [begin, end) clipped to [0, limit), merging with the last range
// when they touch. Callers must append in increasing order of begin.
void appendRange(std::vector<ColumnRange>& out, std::int64_t begin, std::int64_t end, std::int64_t limit);
// Sorted union of two sorted range lists.
std::vector<ColumnRange> unionRanges(const std::vector<ColumnRange>& a, const std::vector<ColumnRange>& b);

// Row-major rows() × n uint8 mask (1 = allowed). Caller is responsible for n being affordable.
std::vector<std::uint8_t> denseMask(const Pattern& pattern);

// Per-row allowed counts, O(rows) calls of rowCount.
std::vector<std::int64_t> rowCounts(const Pattern& pattern);

// A bins × bins image (width = height = bins) of the fraction of allowed cells in each block of the n × n plane, computed
// from row ranges in O(ranges + touched bins) without an n × n buffer. Row-major, values in [0, 1].
// `threads` threads fold separate image rows (views pass their job's kernel threads, off the UI thread).
struct DensityImage {
    int width = 0;
    int height = 0;
    std::vector<float> density; // height rows of width values
};
DensityImage densityImage(const Pattern& pattern, int bins, int threads = 1);
// Same for a sub-rectangle of the plane [row0, row1) × [col0, col1) rendered to width × height cells.
DensityImage densityImageRegion(const Pattern& pattern, std::int64_t row0, std::int64_t row1, std::int64_t col0,
                                std::int64_t col1, int width, int height, int threads = 1);
// The same sub-rectangle folded in whole blocks of block × block cells (image cell (y, x) holds rows
// row0 + y·block … and columns col0 + x·block …; the last row and column of blocks may be partial):
// ⌈(col1 − col0) / block⌉ × ⌈(row1 − row0) / block⌉ cells. Every image cell folds the same number of
// matrix cells, so a periodic structure (strided's diagonals) keeps one density along its length
// instead of beating against a fractional bin width (moiré). Throws std::invalid_argument for block < 1.
DensityImage densityImageBlocks(const Pattern& pattern, std::int64_t row0, std::int64_t row1, std::int64_t col0, std::int64_t col1,
                                std::int64_t block, int threads = 1);
// The smallest whole block that folds `cells` plane cells into at most `pixels` image cells (≥ 1).
std::int64_t densityBlock(std::int64_t cells, int pixels);

} // namespace attnlab
