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

// ⌊a / b⌋ for b > 0, without overflow for any a and b.
std::int64_t floorDiv(std::int64_t a, std::int64_t b) { return a / b - (a % b < 0 ? 1 : 0); }

// Rows i0 + k·step for k < repeats, whose columns ≡ i0 (mod step) in their windows number raw0 + d·k where
// that is positive, else none, and then 1 (the empty-row rule): at most three runs.
void pushResidueRuns(std::int64_t i0, std::int64_t step, std::int64_t repeats, std::int64_t raw0, std::int64_t d,
                     std::vector<CountRun>& runs) {
    const auto push = [&](std::int64_t k0, std::int64_t k1, std::int64_t start, std::int64_t perRepeat) {
        if (k1 <= k0) return;
        CountRun run = consecutiveRun(i0 + k0 * step, 1, start);
        run.period = step;
        run.repeats = k1 - k0;
        run.perRepeat = perRepeat;
        runs.push_back(run);
    };
    std::int64_t from = 0, to = repeats; // the k with raw0 + d·k ≥ 1
    if (d == 0 && raw0 < 1) to = 0;
    if (d > 0) from = std::clamp<std::int64_t>(1 - raw0, 0, repeats);
    if (d < 0) to = std::clamp<std::int64_t>(raw0, 0, repeats);
    push(0, from, 1, 0);
    push(from, to, raw0 + d * from, d);
    push(std::max(from, to), repeats, 1, 0);
}

// Where on rows [a, b) an end that is the maximum (lower end) or minimum (upper end) of ends moving by 0 or
// 1 per row changes its slope (at most once: a maximum goes from 0 to 1, a minimum from 1 to 0), from the
// end at rows a, a + 1 and b − 1; `ok` false when the ends do not behave so.
std::int64_t slopeChange(std::int64_t a, std::int64_t b, std::int64_t atA, std::int64_t atNext, std::int64_t atLast, bool lower,
                         bool& ok) {
    const std::int64_t rows = b - 1 - a, slope = atNext - atA, rise = atLast - atA;
    ok = (slope == 0 || slope == 1) && rise >= 0 && rise <= rows;
    if (!ok || rise == slope * rows) return b;
    const std::int64_t change = lower ? a + (rows - rise) : a + rise + 1;
    ok = (lower ? slope == 0 : slope == 1) && change > a && change < b;
    return change;
}

} // namespace

ColumnRange ExpressionPattern::congruentWindow(std::int64_t i) const {
    thread_local RangeList row;
    const std::int64_t n = size();
    ColumnRange window{0, rowEnd(i)};
    for (const std::size_t w : m_congruent->windows) {
        wholePrimitiveRow(m_primitives[w], i, n, row);
        if (row.empty()) return {0, 0};
        window = {std::max(window.begin, row.front().begin), std::min(window.end, row.front().end)};
    }
    const CompiledPrimitive& p = m_primitives[m_congruent->congruent];
    if (p.kind == Primitive::Dilated) { // the columns ≡ i (mod δ) of dilated(w, δ) are those of band(w·δ)
        const std::int64_t reach = p.a > INT64_MAX / p.b ? INT64_MAX : p.a * p.b;
        window = {std::max(window.begin, i - std::min(i, reach)), std::min(window.end, i + std::min(n - 1 - i, reach) + 1)};
    }
    return window;
}

bool ExpressionPattern::congruentRuns(const CountRunVisitor& visit) const {
    const std::int64_t n = size(), step = congruentStep();
    std::vector<std::int64_t> breaks = {0, n};
    for (const std::size_t w : m_congruent->windows)
        if (!appendPrimitiveBreaks(m_primitives[w], n, breaks)) return false;
    const CompiledPrimitive& p = m_primitives[m_congruent->congruent];
    if (p.kind == Primitive::Dilated) {
        const std::int64_t reach = std::min(n, p.a > INT64_MAX / p.b ? INT64_MAX : p.a * p.b);
        breaks.insert(breaks.end(), {reach, n - 1 - reach});
    }
    std::sort(breaks.begin(), breaks.end());
    breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
    breaks.erase(std::remove_if(breaks.begin(), breaks.end(), [n](std::int64_t c) { return c < 0 || c > n; }), breaks.end());
    // Between two breaks the window's ends are the maximum and minimum of ends moving by 0 or 1 per row;
    // cut where their slopes change, each piece has both ends affine in the row, and the rows of one
    // residue mod step in it count raw0 + d·k columns (d: the window's growth per row).
    std::vector<CountRun> runs;
    for (std::size_t k = 0; k + 1 < breaks.size(); ++k) {
        const std::int64_t a = breaks[k], b = breaks[k + 1];
        if (b - a < 1) continue;
        const ColumnRange atA = congruentWindow(a), atNext = congruentWindow(std::min(a + 1, b - 1)), atLast = congruentWindow(b - 1);
        bool lowerOk = true, upperOk = true;
        const std::int64_t lowerChange = b - a < 3 ? b : slopeChange(a, b, atA.begin, atNext.begin, atLast.begin, true, lowerOk);
        const std::int64_t upperChange = b - a < 3 ? b : slopeChange(a, b, atA.end, atNext.end, atLast.end, false, upperOk);
        if (!lowerOk || !upperOk) return false;
        std::vector<std::int64_t> cuts = {a, lowerChange, upperChange, b};
        std::sort(cuts.begin(), cuts.end());
        for (std::size_t c = 0; c + 1 < cuts.size(); ++c)
            if (cuts[c] < cuts[c + 1] && !appendCongruentRuns(cuts[c], cuts[c + 1], step, runs)) return false;
    }
    for (const CountRun& run : runs) visit(run);
    return true;
}

bool ExpressionPattern::appendCongruentRuns(std::int64_t a, std::int64_t b, std::int64_t step, std::vector<CountRun>& runs) const {
    const ColumnRange first = congruentWindow(a), last = congruentWindow(b - 1);
    const ColumnRange next = b - a > 1 ? congruentWindow(a + 1) : first;
    const std::int64_t lowerSlope = next.begin - first.begin, upperSlope = next.end - first.end;
    if (last.begin - first.begin != lowerSlope * (b - 1 - a) || last.end - first.end != upperSlope * (b - 1 - a)) return false;
    const std::int64_t residues = std::min(step, b - a);
    if (static_cast<std::int64_t>(runs.size()) + 3 * residues > kMaxAffineBreaks) return false;
    for (std::int64_t t = 0; t < residues; ++t) {
        const std::int64_t i = a + t, r = i % step;
        const ColumnRange window{first.begin + lowerSlope * t, first.end + upperSlope * t};
        const std::int64_t raw0 = floorDiv(window.end - 1 - r, step) - floorDiv(window.begin - 1 - r, step);
        pushResidueRuns(i, step, (b - 1 - i) / step + 1, raw0, upperSlope - lowerSlope, runs);
    }
    return true;
}

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
    if (m_congruent) return congruentRuns(visit);
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
