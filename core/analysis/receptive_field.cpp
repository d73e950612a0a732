#include "core/analysis/receptive_field.h"

#include "core/errors.h"

#include <algorithm>
#include <numeric>
#include <string>

namespace attnlab {

namespace {

// The inputs not yet reached, as "next unvisited index at or after j" links with path halving, so a
// BFS step over a column range costs O(newly reached + 1) instead of O(range length).
class UnvisitedSet {
public:
    explicit UnvisitedSet(std::int64_t n) : m_next(static_cast<std::size_t>(n + 1)) {
        std::iota(m_next.begin(), m_next.end(), std::int64_t{0});
    }
    // Smallest unvisited index ≥ j, or n when there is none.
    std::int64_t firstFrom(std::int64_t j) {
        while (m_next[j] != j) {
            m_next[j] = m_next[m_next[j]];
            j = m_next[j];
        }
        return j;
    }
    void remove(std::int64_t j) { m_next[j] = j + 1; }

private:
    std::vector<std::int64_t> m_next; // n + 1 links; index n is the end sentinel
};

// Calls visit(j, hop) once for every input within `layers` hops of `source`, in BFS order.
template <class Visit>
void breadthFirst(const Pattern& pattern, std::int64_t source, int layers, Visit&& visit) {
    const std::int64_t n = pattern.size();
    UnvisitedSet unvisited(n);
    unvisited.remove(source);
    visit(source, 0);
    std::int64_t reached = 1;
    std::vector<std::int64_t> frontier{source}, next;
    std::vector<ColumnRange> ranges;
    for (int hop = 1; hop <= layers && !frontier.empty() && reached < n; ++hop) {
        next.clear();
        for (const std::int64_t row : frontier) {
            ranges.clear();
            pattern.rowRanges(row, ranges);
            for (const ColumnRange& range : ranges) {
                for (std::int64_t j = unvisited.firstFrom(range.begin); j < range.end; j = unvisited.firstFrom(j + 1)) {
                    unvisited.remove(j);
                    visit(j, hop);
                    next.push_back(j);
                    ++reached;
                }
            }
        }
        frontier.swap(next);
    }
}

void checkLayers(int layers) {
    if (layers < 0 || layers > 254)
        throw InputError("layers must be in [0, 254], got " + std::to_string(layers));
}

std::vector<std::int64_t> sampleSources(std::int64_t n, std::int64_t maxSources) {
    const std::int64_t count = std::min(n, std::max<std::int64_t>(2, maxSources));
    std::vector<std::int64_t> sources(static_cast<std::size_t>(count));
    if (count == n) {
        std::iota(sources.begin(), sources.end(), std::int64_t{0});
        return sources;
    }
    for (std::int64_t k = 0; k < count; ++k) sources[k] = k * (n - 1) / (count - 1);
    return sources;
}

} // namespace

std::vector<std::uint8_t> hopsFrom(const Pattern& pattern, std::int64_t source, int layers) {
    checkLayers(layers);
    std::vector<std::uint8_t> hops(static_cast<std::size_t>(pattern.size()), static_cast<std::uint8_t>(layers + 1));
    breadthFirst(pattern, source, layers, [&](std::int64_t j, int hop) { hops[j] = static_cast<std::uint8_t>(hop); });
    return hops;
}

HopMatrix hopMatrix(const Pattern& pattern, int layers, const CancelCheck& cancelled) {
    checkLayers(layers);
    HopMatrix matrix;
    matrix.n = pattern.size();
    matrix.layers = layers;
    matrix.hops.assign(static_cast<std::size_t>(matrix.n * matrix.n), matrix.unreachable());
    for (std::int64_t i = 0; i < matrix.n; ++i) {
        if (cancelled && cancelled()) {
            matrix.cancelled = true;
            return matrix;
        }
        std::uint8_t* row = matrix.hops.data() + i * matrix.n;
        breadthFirst(pattern, i, layers, [row](std::int64_t j, int hop) { row[j] = static_cast<std::uint8_t>(hop); });
    }
    return matrix;
}

ReachCurve reachCurve(const Pattern& pattern, int layers, std::int64_t maxSources, const CancelCheck& cancelled) {
    checkLayers(layers);
    ReachCurve curve;
    curve.n = pattern.size();
    curve.layers = layers;
    curve.sources = sampleSources(curve.n, maxSources);
    const std::size_t depths = static_cast<std::size_t>(layers) + 1;
    curve.reachablePairs.assign(depths, 0.0);
    curve.meanReachDistance.assign(depths, 0.0);
    curve.maxReachDistance.assign(depths, 0.0);

    std::vector<std::int64_t> newAtHop(depths), farthestAtHop(depths);
    for (const std::int64_t source : curve.sources) {
        if (cancelled && cancelled()) {
            curve.cancelled = true;
            return curve;
        }
        std::fill(newAtHop.begin(), newAtHop.end(), 0);
        std::fill(farthestAtHop.begin(), farthestAtHop.end(), 0);
        breadthFirst(pattern, source, layers, [&](std::int64_t j, int hop) {
            ++newAtHop[hop];
            farthestAtHop[hop] = std::max(farthestAtHop[hop], j > source ? j - source : source - j);
        });
        std::int64_t count = 0, farthest = 0;
        for (std::size_t l = 0; l < depths; ++l) {
            count += newAtHop[l];
            farthest = std::max(farthest, farthestAtHop[l]);
            curve.reachablePairs[l] += static_cast<double>(count);
            curve.meanReachDistance[l] += static_cast<double>(farthest);
            curve.maxReachDistance[l] = std::max(curve.maxReachDistance[l], static_cast<double>(farthest));
        }
    }
    const double sourceCount = static_cast<double>(curve.sources.size());
    curve.fractionReachable.resize(depths);
    for (std::size_t l = 0; l < depths; ++l) {
        curve.fractionReachable[l] = curve.reachablePairs[l] / (sourceCount * static_cast<double>(curve.n));
        curve.meanReachDistance[l] /= sourceCount;
    }
    return curve;
}

} // namespace attnlab
