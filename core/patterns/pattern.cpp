#include "core/patterns/pattern.h"

#include "core/jobs/parallel_tasks.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace attnlab {

std::int64_t Pattern::rowCount(std::int64_t i) const {
    std::vector<ColumnRange> ranges;
    rowRanges(i, ranges);
    std::int64_t count = 0;
    for (const auto& r : ranges) count += r.size();
    return count;
}

bool Pattern::rowStrides(std::int64_t, std::vector<StridedRange>&) const { return false; }

bool Pattern::countRuns(const CountRunVisitor&) const { return false; }

StridedRange StridedRange::clippedTo(std::int64_t lo, std::int64_t hi) const {
    const std::int64_t from = std::max(lo, begin), to = std::min(hi, end);
    if (from >= to) return {lo, lo, step};
    // The first column at or after `from`, found without stepping past `to` (step may be near 2^63).
    const std::int64_t gap = (from - begin) % step;
    if (gap != 0 && step - gap >= to - from) return {lo, lo, step};
    return {gap == 0 ? from : from + (step - gap), to, step};
}

std::int64_t Pattern::nnz() const {
    long double runsTotal = 0;
    if (countRuns([&](const CountRun& run) { runsTotal += run.total(); })) return static_cast<std::int64_t>(runsTotal);
    std::int64_t total = 0;
    for (std::int64_t i = 0; i < m_rows; ++i) total += rowCount(i);
    return total;
}

bool ClosedFormPattern::countRuns(const CountRunVisitor& visit) const {
    if (!m_runs) return false;
    m_runs(visit);
    return true;
}

RangePattern::RangePattern(std::int64_t n, Predicate predicate, RangeFunction ranges)
    : Pattern(n), m_predicate(std::move(predicate)), m_ranges(std::move(ranges)) {}

ExplicitPattern::ExplicitPattern(std::int64_t n, const std::vector<std::vector<ColumnRange>>& rows) : Pattern(n) {
    if (static_cast<std::int64_t>(rows.size()) != n) throw std::logic_error("ExplicitPattern: one range list per row");
    m_rowStart.reserve(static_cast<std::size_t>(n) + 1);
    m_rowCount.reserve(static_cast<std::size_t>(n));
    m_rowStart.push_back(0);
    for (const auto& row : rows) {
        std::int64_t count = 0;
        for (const auto& r : row) {
            m_ranges.push_back(r);
            count += r.size();
        }
        m_rowStart.push_back(static_cast<std::int64_t>(m_ranges.size()));
        m_rowCount.push_back(count);
    }
}

bool ExplicitPattern::allowed(std::int64_t i, std::int64_t j) const {
    const auto first = m_ranges.begin() + m_rowStart[i];
    const auto last = m_ranges.begin() + m_rowStart[i + 1];
    const auto it = std::upper_bound(first, last, j, [](std::int64_t col, const ColumnRange& r) { return col < r.begin; });
    return it != first && j < std::prev(it)->end;
}

void ExplicitPattern::rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const {
    out.insert(out.end(), m_ranges.begin() + m_rowStart[i], m_ranges.begin() + m_rowStart[i + 1]);
}

std::vector<ColumnRange> rangesOfColumns(const std::vector<std::int64_t>& sortedColumns) {
    std::vector<ColumnRange> ranges;
    for (const std::int64_t j : sortedColumns) appendRange(ranges, j, j + 1, INT64_MAX);
    return ranges;
}

void appendRange(std::vector<ColumnRange>& out, std::int64_t begin, std::int64_t end, std::int64_t limit) {
    begin = std::max<std::int64_t>(begin, 0);
    end = std::min(end, limit);
    if (begin >= end) return;
    if (!out.empty() && begin <= out.back().end) {
        out.back().end = std::max(out.back().end, end);
        return;
    }
    out.push_back({begin, end});
}

std::vector<ColumnRange> unionRanges(const std::vector<ColumnRange>& a, const std::vector<ColumnRange>& b) {
    std::vector<ColumnRange> merged;
    merged.reserve(a.size() + b.size());
    std::size_t ia = 0, ib = 0;
    while (ia < a.size() || ib < b.size()) {
        const bool takeA = ib == b.size() || (ia < a.size() && a[ia].begin <= b[ib].begin);
        const ColumnRange& next = takeA ? a[ia++] : b[ib++];
        appendRange(merged, next.begin, next.end, INT64_MAX);
    }
    return merged;
}

std::vector<std::uint8_t> denseMask(const Pattern& pattern) {
    const std::int64_t n = pattern.size();
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(pattern.rows()) * static_cast<std::size_t>(n), 0);
    std::vector<ColumnRange> ranges;
    for (std::int64_t i = 0; i < pattern.rows(); ++i) {
        ranges.clear();
        pattern.rowRanges(i, ranges);
        for (const auto& r : ranges) std::fill(mask.begin() + i * n + r.begin, mask.begin() + i * n + r.end, 1);
    }
    return mask;
}

std::vector<std::int64_t> rowCounts(const Pattern& pattern) {
    std::vector<std::int64_t> counts(static_cast<std::size_t>(pattern.rows()));
    for (std::int64_t i = 0; i < pattern.rows(); ++i) counts[i] = pattern.rowCount(i);
    return counts;
}

DensityImage densityImage(const Pattern& pattern, int bins, int threads) {
    return densityImageRegion(pattern, 0, pattern.size(), 0, pattern.size(), bins, bins, threads);
}

namespace {

// How one axis of the plane [start, end) is folded into `bins` image cells: by centre (a matrix cell
// counts towards the image cell holding its centre) or, with block > 0, in whole blocks of `block`
// cells (the last one possibly partial), so every image cell folds the same number of matrix cells.
class AxisBins {
public:
    AxisBins(std::int64_t start, std::int64_t end, int bins, std::int64_t block)
        : m_start(start), m_end(end), m_bins(bins), m_block(block), m_perBin(static_cast<double>(end - start) / bins) {
        // The centre mapping tabulated when the table is small (≤ 256 KiB to fill): two divisions per
        // range would otherwise dominate rows with hundreds of ranges.
        constexpr std::int64_t kTableLimit = std::int64_t{1} << 16;
        if (m_block == 0 && end - start <= kTableLimit) {
            m_table.resize(static_cast<std::size_t>(end - start));
            for (std::int64_t j = start; j < end; ++j) m_table[j - start] = static_cast<std::int32_t>(centreBin(j));
        }
    }
    int bins() const { return m_bins; }
    std::int64_t binOf(std::int64_t j) const {
        if (m_block > 0) return (j - m_start) / m_block;
        return m_table.empty() ? centreBin(j) : m_table[j - m_start];
    }
    // First plane index of bin x (end for x = bins).
    std::int64_t firstOf(std::int64_t x) const {
        if (m_block > 0) return std::min(m_end, m_start + x * m_block);
        std::int64_t j = m_start + static_cast<std::int64_t>(std::ceil(x * m_perBin - 0.5));
        j = std::clamp(j, m_start, m_end);
        while (j > m_start && binOf(j - 1) >= x) --j;
        while (j < m_end && binOf(j) < x) ++j;
        return j;
    }

private:
    std::int64_t centreBin(std::int64_t j) const {
        return std::min<std::int64_t>(m_bins - 1, static_cast<std::int64_t>((j - m_start + 0.5) / m_perBin));
    }
    std::int64_t m_start, m_end;
    int m_bins;
    std::int64_t m_block;
    double m_perBin;
    std::vector<std::int32_t> m_table;
};

// A strided range's columns in [col0, col1) added to the image cells holding them: column by column when it
// has fewer columns there than cells it spans, else each spanned cell's closed-form count.
void foldStrided(const StridedRange& range, const AxisBins& colBins, const std::vector<std::int64_t>& cellStart, std::int64_t col0,
                 std::int64_t col1, double* rowHits) {
    const StridedRange clipped = range.clippedTo(col0, col1);
    const std::int64_t columns = clipped.columns();
    if (columns == 0) return;
    const std::int64_t firstCell = colBins.binOf(clipped.begin), lastCell = colBins.binOf(clipped.end - 1);
    if (columns <= lastCell - firstCell + 1) {
        for (std::int64_t k = 0; k < columns; ++k) rowHits[colBins.binOf(clipped.begin + k * range.step)] += 1.0;
        return;
    }
    for (std::int64_t x = firstCell; x <= lastCell; ++x)
        rowHits[x] += static_cast<double>(clipped.countIn(cellStart[x], cellStart[x + 1]));
}

// Allowed cells of plane rows [first, last) counted into one image row (rowHits, `width` cells whose
// first columns are cellStart). Image cells a range covers completely are counted in a difference array
// (O(1) per range); only the two partly covered cells at its ends are added directly.
void foldImageRow(const Pattern& pattern, const AxisBins& colBins, const std::vector<std::int64_t>& cellStart,
                  std::int64_t first, std::int64_t last, std::int64_t col0, std::int64_t col1, double* rowHits) {
    const std::int64_t width = colBins.bins();
    std::vector<std::int64_t> coveredDiff(static_cast<std::size_t>(width + 1), 0);
    std::vector<ColumnRange> ranges;
    std::vector<StridedRange> strides;
    for (std::int64_t i = first; i < last; ++i) {
        strides.clear();
        if (pattern.rowStrides(i, strides)) {
            for (const StridedRange& range : strides) foldStrided(range, colBins, cellStart, col0, col1, rowHits);
            continue;
        }
        ranges.clear();
        pattern.rowRanges(i, ranges);
        // A row with many ranges (stride(2): n / 2) finds their cells by walking the cells along the row
        // (its ranges are sorted; cell x starts at cellStart[x]) rather than mapping each end.
        const bool walk = static_cast<std::int64_t>(ranges.size()) >= width / 4;
        std::int64_t cell = 0;
        for (const auto& r : ranges) {
            const std::int64_t begin = std::max(r.begin, col0), end = std::min(r.end, col1);
            if (begin >= end) continue;
            if (walk)
                while (cellStart[cell + 1] <= begin) ++cell;
            const std::int64_t firstCell = walk ? cell : colBins.binOf(begin);
            const std::int64_t lastCell = walk && end <= cellStart[cell + 1] ? cell : colBins.binOf(end - 1);
            cell = lastCell;
            if (firstCell == lastCell) {
                rowHits[firstCell] += static_cast<double>(end - begin);
                continue;
            }
            rowHits[firstCell] += static_cast<double>(cellStart[firstCell + 1] - begin);
            rowHits[lastCell] += static_cast<double>(end - cellStart[lastCell]);
            ++coveredDiff[firstCell + 1];
            --coveredDiff[lastCell];
        }
    }
    std::int64_t covered = 0;
    for (std::int64_t x = 0; x < width; ++x) {
        covered += coveredDiff[x];
        rowHits[x] += static_cast<double>(covered * (cellStart[x + 1] - cellStart[x]));
    }
}

// density = allowed cells / all cells folded into each image cell; every matrix cell lands in exactly
// one image cell. Image rows are independent: `threads` threads fold them.
DensityImage foldDensity(const Pattern& pattern, const AxisBins& rowBins, const AxisBins& colBins, std::int64_t row0,
                         std::int64_t row1, std::int64_t col0, std::int64_t col1, int threads) {
    DensityImage image;
    image.width = colBins.bins();
    image.height = rowBins.bins();
    const int width = image.width, height = image.height;
    image.density.assign(static_cast<std::size_t>(width) * height, 0.0f);
    if (row1 <= row0 || col1 <= col0 || width <= 0 || height <= 0) return image;
    std::vector<std::int64_t> cellStart(static_cast<std::size_t>(width + 1));
    for (std::int64_t x = 0; x <= width; ++x) cellStart[x] = colBins.firstOf(x);
    std::vector<double> hits(image.density.size(), 0.0);
    runTasks(height, threads, {}, [&](std::int64_t y) {
        const std::int64_t first = rowBins.firstOf(y), last = rowBins.firstOf(y + 1);
        double* rowHits = hits.data() + y * width;
        foldImageRow(pattern, colBins, cellStart, first, last, col0, col1, rowHits);
        const auto rows = static_cast<double>(last - first);
        for (std::int64_t x = 0; x < width; ++x) {
            const double area = rows * static_cast<double>(cellStart[x + 1] - cellStart[x]);
            image.density[y * width + x] = area > 0 ? static_cast<float>(rowHits[x] / area) : 0.0f;
        }
    });
    return image;
}

int blockCount(std::int64_t cells, std::int64_t block) { return static_cast<int>((cells + block - 1) / block); }

} // namespace

DensityImage densityImageRegion(const Pattern& pattern, std::int64_t row0, std::int64_t row1, std::int64_t col0,
                                std::int64_t col1, int width, int height, int threads) {
    if (row1 <= row0 || col1 <= col0 || width <= 0 || height <= 0) {
        DensityImage image;
        image.width = std::max(width, 0);
        image.height = std::max(height, 0);
        image.density.assign(static_cast<std::size_t>(image.width) * image.height, 0.0f);
        return image;
    }
    return foldDensity(pattern, AxisBins(row0, row1, height, 0), AxisBins(col0, col1, width, 0), row0, row1, col0, col1,
                       threads);
}

std::int64_t densityBlock(std::int64_t cells, int pixels) {
    const std::int64_t available = std::max(1, pixels);
    return std::max<std::int64_t>(1, (cells + available - 1) / available);
}

DensityImage densityImageBlocks(const Pattern& pattern, std::int64_t row0, std::int64_t row1, std::int64_t col0, std::int64_t col1,
                                std::int64_t block, int threads) {
    if (block < 1) throw std::invalid_argument("densityImageBlocks: block must be at least 1");
    const int width = blockCount(std::max<std::int64_t>(0, col1 - col0), block);
    const int height = blockCount(std::max<std::int64_t>(0, row1 - row0), block);
    return foldDensity(pattern, AxisBins(row0, row1, height, block), AxisBins(col0, col1, width, block), row0, row1, col0,
                       col1, threads);
}

std::unique_ptr<Pattern> blockLocalPattern(std::int64_t n, std::int64_t c, bool causal) {
    auto rowEnd = [n, c, causal](std::int64_t i) { return causal ? i + 1 : std::min(n, (i / c + 1) * c); };
    // Every whole block alike (1 … c causal, else c each), then the partial last block of n mod c rows.
    auto runs = [n, c, causal](const CountRunVisitor& visit) {
        const std::int64_t whole = n / c, tail = n % c;
        if (whole > 0) {
            CountRun blocks = consecutiveRun(0, c, causal ? 1 : c, causal ? 1 : 0);
            blocks.repeats = whole;
            visit(blocks);
        }
        if (tail > 0) visit(consecutiveRun(whole * c, tail, causal ? 1 : tail, causal ? 1 : 0));
    };
    return std::make_unique<ClosedFormPattern>(
        n, [c, causal](std::int64_t i, std::int64_t j) { return i / c == j / c && (!causal || j <= i); },
        [c, rowEnd](std::int64_t i, std::vector<ColumnRange>& out) { out.push_back({(i / c) * c, rowEnd(i)}); },
        [c, rowEnd](std::int64_t i) { return rowEnd(i) - (i / c) * c; }, runs);
}

} // namespace attnlab
