// ExpressionPattern's row counts as runs (Pattern::countRuns): the rows where some primitive's ranges stop
// moving evenly cut the rows into segments whose counts are affine in the row.
#include "core/patterns/count_runs.h"
#include "core/patterns/expression_compiled.h"
#include "core/patterns/expression_pattern.h"

#include <algorithm>

namespace attnlab {

namespace {

// Rows where a primitive's row stops being a fixed set of ranges whose ends move by 0 or 1 per row: false
// for primitives whose rows are many ranges (stride, random, dilated with δ > 1, many columns) or on a grid.
constexpr std::size_t kMaxAffineColumns = 16;
constexpr std::int64_t kMaxAffineBreaks = std::int64_t{1} << 20;
// Work of checking the segments between those rows: the pairs of primitives compared, summed over them.
constexpr std::int64_t kMaxAffinePairs = std::int64_t{1} << 28;
bool appendPrimitiveBreaks(const CompiledPrimitive& p, std::int64_t n, std::vector<std::int64_t>& breaks) {
    const auto everyMultiple = [&](std::int64_t step) {
        if (n / step > kMaxAffineBreaks) return false;
        for (std::int64_t start = step; start < n; start += step) breaks.push_back(start);
        return true;
    };
    switch (p.kind) {
    case Primitive::All:
    case Primitive::Causal:
    case Primitive::Diag:
    case Primitive::Sink: return true;
    case Primitive::Dilated:
        if (p.b != 1) return false;
        [[fallthrough]];
    case Primitive::Band: // [i − r, i + r + 1) clipped to [0, n): clipped below up to row r, above from row n − 1 − r
        breaks.insert(breaks.end(), {std::min(p.a, n), n - 1 - std::min(p.a, n)});
        return true;
    case Primitive::Block:
    case Primitive::Segment: return everyMultiple(p.a);
    case Primitive::Prefix: breaks.push_back(std::min(p.a, n)); return true;
    case Primitive::Docs: breaks.insert(breaks.end(), p.indices.begin(), p.indices.end()); return true;
    case Primitive::Rows:
    case Primitive::Global:
        for (const std::int64_t g : p.indices) breaks.insert(breaks.end(), {g, g + 1});
        return p.columns.size() <= kMaxAffineColumns;
    case Primitive::Cols:
    case Primitive::Summary: return p.columns.size() <= kMaxAffineColumns;
    default: return false;
    }
}

// Every primitive's range ends in row i, and those of the row window (0, its end, n), into `ends`.
void rangeEnds(const std::vector<CompiledPrimitive>& primitives, std::int64_t i, std::int64_t n, std::int64_t rowEnd,
               std::vector<std::int64_t>& ends, RangeList& row) {
    ends.assign({0, rowEnd, n});
    for (const CompiledPrimitive& p : primitives) {
        wholePrimitiveRow(p, i, n, row);
        for (const ColumnRange& range : row) ends.insert(ends.end(), {range.begin, range.end});
    }
}

} // namespace

bool ExpressionPattern::segmentCuts(std::int64_t a, std::int64_t b, std::vector<std::int64_t>& cuts) const {
    thread_local std::vector<std::int64_t> at, next;
    thread_local RangeList row;
    const std::int64_t n = size();
    cuts.assign({a + 1, b - 1});
    if (b - a < 3) return true;
    rangeEnds(m_primitives, a, n, rowEnd(a), at, row);
    rangeEnds(m_primitives, a + 1, n, rowEnd(a + 1), next, row);
    if (at.size() != next.size()) return false;
    for (std::size_t x = 0; x < at.size(); ++x) {
        if (next[x] - at[x] != 0 && next[x] - at[x] != 1) return false;
        for (std::size_t y = 0; y < at.size(); ++y) {
            if ((next[x] - at[x]) - (next[y] - at[y]) != 1) continue; // x gains one row by row on y
            const std::int64_t meet = a + (at[y] - at[x]);
            if (meet > a && meet < b) cuts.insert(cuts.end(), {meet - 2, meet - 1, meet, meet + 1, meet + 2});
        }
    }
    return true;
}

bool ExpressionPattern::countRuns(const CountRunVisitor& visit) const {
    const std::int64_t n = size();
    std::vector<std::int64_t> breaks = {0, n};
    for (const CompiledPrimitive& p : m_primitives)
        if (!appendPrimitiveBreaks(p, n, breaks) || static_cast<std::int64_t>(breaks.size()) > kMaxAffineBreaks) return false;
    std::sort(breaks.begin(), breaks.end());
    breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
    breaks.erase(std::remove_if(breaks.begin(), breaks.end(), [n](std::int64_t c) { return c < 0 || c > n; }), breaks.end());
    // Between those rows every range end moves by 0 or 1 per row; the algebra's result, and so the count,
    // is affine in the row while no two ends cross (or touch). Two ends closing by one per row meet at one
    // row: it and its neighbours become segments of their own. So do the first and last row of every
    // segment, where an affine count may reach 0 and the empty-row rule adds the diagonal. Every segment
    // is checked before any is visited (false visits nothing); then each is cut and visited in turn.
    std::int64_t pairs = 0;
    std::vector<std::int64_t> cuts;
    for (std::size_t k = 0; k + 1 < breaks.size(); ++k) {
        pairs += static_cast<std::int64_t>(m_primitives.size() * m_primitives.size()) + 1;
        if (pairs > kMaxAffinePairs || !segmentCuts(breaks[k], breaks[k + 1], cuts)) return false;
    }
    for (std::size_t k = 0; k + 1 < breaks.size(); ++k) {
        const std::int64_t a = breaks[k], b = breaks[k + 1];
        segmentCuts(a, b, cuts);
        for (std::int64_t& cut : cuts) cut -= a;
        affineRuns(b - a, cuts, [this, a](std::int64_t i) { return rowCount(a + i); }, [&visit, a](CountRun run) {
            run.first += a;
            visit(run);
        });
    }
    return true;
}

} // namespace attnlab
