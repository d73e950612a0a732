#include "core/patterns/count_runs.h"

#include <algorithm>

namespace attnlab {

long double CountRun::total() const {
    const auto rows = static_cast<long double>(length) * static_cast<long double>(repeats);
    const auto repeatPairs = static_cast<long double>(repeats) * static_cast<long double>(repeats - 1) / 2;
    const auto rowPairs = static_cast<long double>(length) * static_cast<long double>(length - 1) / 2;
    return rows * static_cast<long double>(start) + repeatPairs * static_cast<long double>(length) * static_cast<long double>(perRepeat) +
           rowPairs * static_cast<long double>(repeats) * static_cast<long double>(perRow);
}

std::int64_t CountRun::longest() const {
    return start + std::max<std::int64_t>(0, (repeats - 1) * perRepeat) + std::max<std::int64_t>(0, (length - 1) * perRow);
}

CountRun consecutiveRun(std::int64_t first, std::int64_t length, std::int64_t start, std::int64_t perRow) {
    CountRun run;
    run.first = first;
    run.length = length;
    run.period = length;
    run.start = start;
    run.perRow = perRow;
    return run;
}

namespace {

// The rows of period k of `run` with t in [t0, t1), shifted by −shift.
CountRun partOfPeriod(const CountRun& run, std::int64_t k, std::int64_t t0, std::int64_t t1, std::int64_t shift) {
    return consecutiveRun(run.row(k, t0) - shift, t1 - t0, run.count(k, t0), run.perRow);
}

// Periods [k0, k1) of `run` whole, shifted by −shift.
CountRun periods(const CountRun& run, std::int64_t k0, std::int64_t k1, std::int64_t shift) {
    CountRun part = run;
    part.first = run.row(k0, 0) - shift;
    part.repeats = k1 - k0;
    part.start = run.count(k0, 0);
    return part;
}

} // namespace

void visitClipped(const CountRun& run, std::int64_t lo, std::int64_t hi, const CountRunVisitor& visit) {
    if (run.length <= 0 || run.repeats <= 0 || lo >= hi) return;
    // Periods wholly below lo or from hi on are skipped; the at most two periods cut by lo or hi give
    // their rows in [lo, hi) as consecutive runs; those between stay whole.
    const auto floorDiv = [](std::int64_t a, std::int64_t b) { return a >= 0 ? a / b : -((-a + b - 1) / b); };
    const std::int64_t kLo = std::max<std::int64_t>(0, floorDiv(lo - run.first, run.period));
    const std::int64_t kHi = std::min(run.repeats - 1, floorDiv(hi - 1 - run.first, run.period));
    std::int64_t wholeFrom = kLo, wholeTo = kHi + 1;
    for (const std::int64_t k : {kLo, kHi}) {
        if (k > kHi || k < kLo) continue;
        const std::int64_t t0 = std::clamp<std::int64_t>(lo - run.row(k, 0), 0, run.length);
        const std::int64_t t1 = std::clamp<std::int64_t>(hi - run.row(k, 0), 0, run.length);
        if (t0 == 0 && t1 == run.length) continue;
        if (k == kLo) wholeFrom = kLo + 1;
        if (k == kHi) wholeTo = kHi;
        if (t0 < t1) visit(partOfPeriod(run, k, t0, t1, lo));
        if (kLo == kHi) return;
    }
    if (wholeFrom < wholeTo) visit(periods(run, wholeFrom, wholeTo, lo));
}

void affineRuns(std::int64_t rows, std::vector<std::int64_t> breaks, const std::function<std::int64_t(std::int64_t)>& count,
                const CountRunVisitor& visit) {
    breaks.push_back(0);
    breaks.push_back(rows);
    std::sort(breaks.begin(), breaks.end());
    breaks.erase(std::unique(breaks.begin(), breaks.end()), breaks.end());
    for (std::size_t k = 0; k + 1 < breaks.size(); ++k) {
        const std::int64_t begin = breaks[k], end = breaks[k + 1];
        if (begin < 0 || end > rows) continue;
        const std::int64_t start = count(begin);
        visit(consecutiveRun(begin, end - begin, start, end - begin > 1 ? count(begin + 1) - start : 0));
    }
}

} // namespace attnlab
