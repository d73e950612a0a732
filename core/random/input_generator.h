#pragma once

#include "core/tensor.h"

#include <cstdint>

namespace attnlab {

// Q, K, V generated in memory for the GUI, benchmarks and tests.
struct GeneratedInputs {
    Tensor3 q, k, v;
};

enum class GeneratedKind {
    Gaussian,        // i.i.d. N(0, 1) entries
    LocalSimilarity, // smooth positional signal plus noise: q_i·k_j is largest for j near i, so weights
                     // look like trained attention (a bright diagonal band that fades with distance)
};

// [heads, n, d] for Q, [kvHeads, n, d] for K and [kvHeads, n, dv] for V (kvHeads 0: as many as heads,
// else grouped key/value heads dividing heads); the same seed gives the same numbers. With queryRows m > 0,
// Q holds the last m positions only, [heads, m, d] (K and V then differ from the m = n draw).
GeneratedInputs generateInputs(GeneratedKind kind, int heads, std::int64_t n, std::int64_t d, std::int64_t dv,
                               std::uint64_t seed, int kvHeads = 0, std::int64_t queryRows = 0);

} // namespace attnlab
