#pragma once

// Independent double-precision helpers for the tests: random inputs and explicit n×n formulas. They
// share nothing with core/ except the Tensor3 container, so a bug in a kernel cannot hide here.

#include "core/tensor.h"

#include <cstdint>
#include <functional>
#include <span>
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
double relativeError(std::span<const float> a, const std::vector<double>& b);
double maxAbsDifference(std::span<const float> a, std::span<const float> b);

// Row-major rows × cols double matrix: element (r, c) lives at values[r * cols + c].
struct Matrix {
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    std::vector<double> values;

    Matrix() = default;
    Matrix(std::int64_t rowCount, std::int64_t colCount, double fill = 0.0)
        : rows(rowCount), cols(colCount), values(static_cast<std::size_t>(rowCount * colCount), fill) {}
    double& operator()(std::int64_t r, std::int64_t c) { return values[static_cast<std::size_t>(r * cols + c)]; }
    double operator()(std::int64_t r, std::int64_t c) const { return values[static_cast<std::size_t>(r * cols + c)]; }
};

// One head of a Tensor3 as an n × d double matrix.
Matrix headMatrix(const Tensor3& t, int head);
Matrix multiply(const Matrix& a, const Matrix& b);
Matrix transpose(const Matrix& a);
// scale · a · bᵀ (rows of a against rows of b).
Matrix rowProducts(const Matrix& a, const Matrix& b, double scale = 1.0);

// Row-major n × n membership (1 = allowed), built cell by cell from a rule.
using Mask = std::vector<std::uint8_t>;
using CellRule = std::function<bool(std::int64_t i, std::int64_t j)>;
Mask maskFromRule(std::int64_t n, const CellRule& rule);
// The all-pairs set, or j ≤ i when causal.
Mask allPairsMask(std::int64_t n, bool causal);

// W_ij = exp(s_ij) / Σ_{j'∈M_i} exp(s_ij') on M, zero elsewhere.
Matrix softmaxWeights(const Matrix& scores, const Mask& mask);
// W_ij = κ_ij / Σ_{j'∈M_i} κ_ij' on M, zero elsewhere; a row whose sum is zero is all zero.
Matrix normalisedWeights(const Matrix& kernel, const Mask& mask);
// κ restricted to M, divided by a constant.
Matrix scaledOnMask(const Matrix& kernel, const Mask& mask, double divisor);

// Per-head effective weights W_h stacked as [h, n, n], and the outputs W_h · V_h stacked as [h, n, dv].
std::vector<double> stackWeights(const std::vector<Matrix>& weights);
std::vector<double> stackOutputs(const std::vector<Matrix>& weights, const Tensor3& v);

// Σ_h W_h · V_h computed from float weights [h, n, n] in double, as [h, n, dv].
std::vector<double> weightsTimesValues(const Tensor3& weights, const Tensor3& v);

} // namespace attnlab::testing
