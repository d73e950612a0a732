#pragma once

#include "core/patterns/pattern.h"
#include "core/variant.h"

#include <cstdint>
#include <vector>

namespace attnlab {

// Receptive field of a stack of layers that all use the same pattern M, with residual connections:
// after l layers the output at query i depends on input j iff j is within l hops of i in the graph
// with an edge i → k for every allowed (i, k). Hops are BFS distances over the pattern's row ranges.

// Row-major n × n: hops[i * n + j] = layers query i needs to see input j; 0 on the diagonal and
// `layers + 1` where j is not reachable within `layers` layers. layers ≤ 254.
struct HopMatrix {
    std::int64_t n = 0;
    int layers = 0;
    std::vector<std::uint8_t> hops;
    bool cancelled = false;
    std::uint8_t unreachable() const { return static_cast<std::uint8_t>(layers + 1); }
    std::uint8_t at(std::int64_t i, std::int64_t j) const { return hops[static_cast<std::size_t>(i * n + j)]; }
};

// Builds the hop matrix; O(n · (n + ranges)) time, n² bytes. Polls `cancelled` between rows.
HopMatrix hopMatrix(const Pattern& pattern, int layers, const CancelCheck& cancelled = {});

// How far a stack of 0 … layers layers reaches, over a set of source queries. Index l of every vector
// is "within l layers" (l = 0 is the query alone).
struct ReachCurve {
    std::int64_t n = 0;
    int layers = 0;
    std::vector<std::int64_t> sources;     // the query rows measured (all rows, or an even sample)
    std::vector<double> reachablePairs;    // Σ over sources of |inputs reachable within l layers|
    std::vector<double> fractionReachable; // reachablePairs / (sources · n)
    std::vector<double> meanReachDistance; // mean over sources of max |i − j| over reachable j
    std::vector<double> maxReachDistance;  // max over sources of the same
    bool cancelled = false;
};

// Every row when n ≤ maxSources, else maxSources rows spread evenly over [0, n) (first and last
// included). Each source costs one BFS that stops at depth `layers` or when everything is reached.
ReachCurve reachCurve(const Pattern& pattern, int layers, std::int64_t maxSources, const CancelCheck& cancelled = {});

// Hops from `source` to every input: a vector of n values, `layers + 1` where not reachable.
std::vector<std::uint8_t> hopsFrom(const Pattern& pattern, std::int64_t source, int layers);

} // namespace attnlab
