#pragma once

#include <cstdint>
#include <vector>

namespace attnlab {

// FAVOR+ projection Ω: m rows ω_r ∈ R^d, row-major m × d. orthogonal=true draws d × d Gaussian blocks,
// orthonormalises each block's rows (modified Gram–Schmidt, double) and rescales every row to the norm
// of an independent N(0, I_d) vector (chi-distributed with d degrees of freedom); the last block keeps
// its first m mod d rows. orthogonal=false draws i.i.d. N(0, 1) entries. Deterministic in the seed.
std::vector<double> performerProjection(std::int64_t features, std::int64_t d, std::uint64_t seed, bool orthogonal);

// Linformer's projection E or F (k × n row-major): entries N(0, 1/k) (`gaussian`, drawn from the seed and
// the purpose) or the pooling matrix P_rj = 1/|B_r| for j ∈ B_r = [⌊r·n/k⌋, ⌊(r+1)·n/k⌋) (`pool`).
std::vector<double> linformerGaussian(std::int64_t k, std::int64_t n, std::uint64_t seed, std::uint64_t purpose);
std::vector<double> linformerPool(std::int64_t k, std::int64_t n);

// Reformer's random rotations for one round: R ∈ R^{d × b/2}, row-major, N(0, 1) entries.
std::vector<double> lshRotation(std::int64_t d, std::int64_t halfBuckets, std::uint64_t seed, std::int64_t round);

} // namespace attnlab
