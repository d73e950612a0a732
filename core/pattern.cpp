#include "core/pattern.h"

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

std::int64_t Pattern::nnz() const {
    std::int64_t total = 0;
    for (std::int64_t i = 0; i < m_n; ++i) total += rowCount(i);
    return total;
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

void clipRanges(std::vector<ColumnRange>& ranges, std::int64_t lastColumn) {
    while (!ranges.empty() && ranges.back().begin > lastColumn) ranges.pop_back();
    if (!ranges.empty()) ranges.back().end = std::min(ranges.back().end, lastColumn + 1);
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
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(n) * n, 0);
    std::vector<ColumnRange> ranges;
    for (std::int64_t i = 0; i < n; ++i) {
        ranges.clear();
        pattern.rowRanges(i, ranges);
        for (const auto& r : ranges) std::fill(mask.begin() + i * n + r.begin, mask.begin() + i * n + r.end, 1);
    }
    return mask;
}

std::vector<std::int64_t> rowCounts(const Pattern& pattern) {
    std::vector<std::int64_t> counts(static_cast<std::size_t>(pattern.size()));
    for (std::int64_t i = 0; i < pattern.size(); ++i) counts[i] = pattern.rowCount(i);
    return counts;
}

DensityImage densityImage(const Pattern& pattern, int bins) {
    return densityImageRegion(pattern, 0, pattern.size(), 0, pattern.size(), bins, bins);
}

DensityImage densityImageRegion(const Pattern& pattern, std::int64_t row0, std::int64_t row1, std::int64_t col0,
                                std::int64_t col1, int width, int height) {
    DensityImage image;
    image.width = width;
    image.height = height;
    image.density.assign(static_cast<std::size_t>(width) * height, 0.0f);
    if (row1 <= row0 || col1 <= col0 || width <= 0 || height <= 0) return image;
    const double rowsPerCell = static_cast<double>(row1 - row0) / height;
    const double colsPerCell = static_cast<double>(col1 - col0) / width;
    // A matrix cell counts towards the image cell holding its centre, so every matrix cell lands in
    // exactly one image cell; density = allowed cells / all cells mapped there.
    auto cellOfColumnFormula = [&](std::int64_t j) {
        return std::min<std::int64_t>(width - 1, static_cast<std::int64_t>((j - col0 + 0.5) / colsPerCell));
    };
    // The same mapping tabulated when the table is small (≤ 256 KiB to fill): two divisions per range
    // would otherwise dominate rows with hundreds of ranges.
    constexpr std::int64_t kCellTableLimit = std::int64_t{1} << 16;
    std::vector<std::int32_t> cellTable;
    if (col1 - col0 <= kCellTableLimit) {
        cellTable.resize(static_cast<std::size_t>(col1 - col0));
        for (std::int64_t j = col0; j < col1; ++j) cellTable[j - col0] = static_cast<std::int32_t>(cellOfColumnFormula(j));
    }
    auto cellOfColumn = [&](std::int64_t j) -> std::int64_t {
        return cellTable.empty() ? cellOfColumnFormula(j) : cellTable[j - col0];
    };
    auto firstColumnOfCell = [&](std::int64_t x) {
        std::int64_t j = col0 + static_cast<std::int64_t>(std::ceil(x * colsPerCell - 0.5));
        while (j > col0 && cellOfColumn(j - 1) >= x) --j;
        while (j < col1 && cellOfColumn(j) < x) ++j;
        return j;
    };
    std::vector<std::int64_t> columnsInCell(width, 0), rowsInCell(height, 0), cellStart(width + 1, col1);
    for (std::int64_t x = 0; x < width; ++x) cellStart[x] = firstColumnOfCell(x);
    for (std::int64_t x = 0; x < width; ++x) columnsInCell[x] = cellStart[x + 1] - cellStart[x];
    std::vector<double> hits(image.density.size(), 0.0);
    // Image cells a range covers completely are counted in a difference array per image row (O(1) per
    // range); only the two partly covered cells at its ends are added directly.
    std::vector<std::int64_t> coveredDiff(width + 1, 0);
    auto flushCovered = [&](std::int64_t y) {
        std::int64_t covered = 0;
        for (std::int64_t x = 0; x < width; ++x) {
            covered += coveredDiff[x];
            hits[y * width + x] += static_cast<double>(covered * columnsInCell[x]);
        }
        std::fill(coveredDiff.begin(), coveredDiff.end(), 0);
    };
    std::vector<ColumnRange> ranges;
    std::int64_t currentY = -1;
    for (std::int64_t i = row0; i < row1; ++i) {
        const auto y = std::min<std::int64_t>(height - 1, static_cast<std::int64_t>((i - row0 + 0.5) / rowsPerCell));
        if (y != currentY) {
            if (currentY >= 0) flushCovered(currentY);
            currentY = y;
        }
        ++rowsInCell[y];
        double* rowHits = hits.data() + y * width;
        ranges.clear();
        pattern.rowRanges(i, ranges);
        for (const auto& r : ranges) {
            const std::int64_t begin = std::max(r.begin, col0), end = std::min(r.end, col1);
            if (begin >= end) continue;
            const std::int64_t first = cellOfColumn(begin), last = cellOfColumn(end - 1);
            if (first == last) {
                rowHits[first] += static_cast<double>(end - begin);
                continue;
            }
            rowHits[first] += static_cast<double>(cellStart[first + 1] - begin);
            rowHits[last] += static_cast<double>(end - cellStart[last]);
            ++coveredDiff[first + 1];
            --coveredDiff[last];
        }
    }
    if (currentY >= 0) flushCovered(currentY);
    for (int y = 0; y < height; ++y)
        for (int x = 0; x < width; ++x) {
            const double area = static_cast<double>(rowsInCell[y]) * columnsInCell[x];
            const std::size_t c = static_cast<std::size_t>(y) * width + x;
            image.density[c] = area > 0 ? static_cast<float>(hits[c] / area) : 0.0f;
        }
    return image;
}

} // namespace attnlab
