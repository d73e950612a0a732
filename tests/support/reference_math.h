#pragma once

// Independent double-precision helpers for the tests: random inputs and explicit n×n formulas. They
// share nothing with core/ except the Tensor3 container, so a bug in a kernel cannot hide here.

#include "core/tensor.h"

#include <cstdint>
#include <functional>
#include <vector>

namespace attnlab::testing {

// [h, n, d] with N(0, scale²) entries from a fixed seed (std::mt19937_64, independent of core's RNG).
Tensor3 randomTensor(int heads, std::int64_t n, std::int64_t d, std::uint64_t seed, double scale = 1.0);

// Row-major n × n double matrix.
using DenseMatrix = std::vector<double>;

// out_i = Σ_j M_ij exp(s_ij) v_j / Σ_j M_ij exp(s_ij) for one head, s given as an n×n matrix.
// Returns [n, dv] and fills `weights` (n × n) when not null.
std::vector<double> maskedSoftmax(const DenseMatrix& scores, const std::vector<std::uint8_t>& mask, const Tensor3& v,
                                  int head, DenseMatrix* weights = nullptr);

// s_ij = scale · q_i·k_j for one head.
DenseMatrix scaledScores(const Tensor3& q, const Tensor3& k, int head, double scale);

// Max |a − b| / max(1, max|b|) over two equal-length sequences.
double relativeError(const std::vector<float>& a, const std::vector<double>& b);
double maxAbsDifference(const std::vector<float>& a, const std::vector<float>& b);

} // namespace attnlab::testing
