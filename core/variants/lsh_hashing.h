#pragma once

// The lsh variant's hash: h(x) = argmax([xR ; −xR]) with R ∈ R^{d×b/2} ~ N(0,1), one R per round drawn
// from the seed and shared by all heads. The definition is the argmax in double; the fast path
// computes it in float and falls back to double for rows whose two best candidates are too close for
// float rounding to be trusted, so both paths give the same buckets.

#include "core/param_schema.h"
#include "core/tensor.h"

#include <cstdint>
#include <memory>
#include <vector>

namespace attnlab {

// One round's rotation, d × b/2 row-major, in double (the definition) and float (the fast path).
struct LshRotation {
    std::int64_t halfBuckets = 0;
    std::vector<double> exact;  // d × b/2, row-major
    std::vector<float> single;  // the same rounded, rows singleStride apart
    std::int64_t singleStride = 0;
    double largest = 0; // max |R_ab|, for the float rounding bound
};

// The rotations of rounds 0 … rounds − 1, kept between calls for the last few (d, b, seed, rounds).
std::shared_ptr<const std::vector<LshRotation>> lshRotations(std::int64_t d, std::int64_t buckets, std::uint64_t seed,
                                                              std::int64_t rounds);

// buckets[i] = h(row i) for n rows of d values each. O(n · d · b/2) multiply-adds, no allocation after
// the calling thread's first call.
void hashRows(const float* rows, std::int64_t n, std::int64_t d, const LshRotation& rotation, std::int64_t* buckets);

// One head's buckets per round: query[r][i] and key[r][j]. Reused between calls (the vectors keep
// their storage).
struct HeadHashes {
    std::vector<std::vector<std::int64_t>> query, key;
};

// Hashes query head h of q and head keyHead of keys in every round into `hashes`.
void hashHead(const Tensor3& q, const Tensor3& keys, int h, int keyHead, const ParamSet& params, HeadHashes& hashes);

} // namespace attnlab
