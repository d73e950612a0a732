#pragma once

// Every variant's effective weights W (out = W·V per head) written out from its definition in double
// precision, cell by cell. The registry-driven tests look references up by id: pattern variants through
// their scores (softmax over the pattern's own predicate), variants with no mask through
// maskFreeReference(). Only the seeded draws (performer Ω, linformer E/F, lsh R) come from core, since
// the contract fixes them by seed, not by formula.

#include "core/random/random.h"
#include "core/random/random_features.h"
#include "support/variant_runner.h"

#include <cmath>
#include <functional>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace attnlab::testing {

// Row-wise map of a head's [n, d] matrix.
template <typename RowMap>
Matrix mapRows(const Matrix& x, std::int64_t outCols, RowMap map) {
    Matrix out(x.rows, outCols);
    for (std::int64_t i = 0; i < x.rows; ++i) map(&x.values[static_cast<std::size_t>(i * x.cols)], &out(i, 0));
    return out;
}

inline Matrix eluPlusOne(const Matrix& x) {
    return mapRows(x, x.cols, [&x](const double* in, double* out) {
        for (std::int64_t c = 0; c < x.cols; ++c) out[c] = in[c] > 0 ? in[c] + 1 : std::exp(in[c]);
    });
}

// x/‖x‖ per row; a zero row stays zero.
inline Matrix unitRows(const Matrix& x) {
    return mapRows(x, x.cols, [&x](const double* in, double* out) {
        double norm = 0;
        for (std::int64_t c = 0; c < x.cols; ++c) norm += in[c] * in[c];
        norm = std::sqrt(norm);
        for (std::int64_t c = 0; c < x.cols; ++c) out[c] = norm > 0 ? in[c] / norm : 0.0;
    });
}

inline Matrix fromRowMajor(const std::vector<double>& values, std::int64_t rows, std::int64_t cols) {
    Matrix m(rows, cols);
    m.values = values;
    return m;
}

inline std::vector<Matrix> perHead(const Inputs& inputs,
                                   const std::function<Matrix(const Matrix& q, const Matrix& k)>& weights) {
    std::vector<Matrix> all;
    for (int h = 0; h < inputs.q.heads; ++h) all.push_back(weights(headMatrix(inputs.q, h), headMatrix(inputs.k, h)));
    return all;
}

// ---- linear: elu+1, efficient and 1+cos kernels over J_i (all j, or j ≤ i when causal) ----

inline Matrix linearWeights(const std::string& kernel, const Matrix& q, const Matrix& k, bool causal) {
    const std::int64_t n = q.rows, d = q.cols;
    const Mask within = allPairsMask(n, causal);
    if (kernel == "elu") return normalisedWeights(rowProducts(eluPlusOne(q), eluPlusOne(k)), within);
    if (kernel == "taylor") {
        Matrix kernelValues = rowProducts(unitRows(q), unitRows(k));
        for (double& x : kernelValues.values) x += 1.0;
        return normalisedWeights(kernelValues, within);
    }
    // efficient: W_ij = Σ_m softmax(q_i)_m · exp(k_jm) / Σ_{j'∈J_i} exp(k_j'm).
    Matrix w(n, n);
    for (std::int64_t i = 0; i < n; ++i) {
        double qTotal = 0;
        for (std::int64_t m = 0; m < d; ++m) qTotal += std::exp(q(i, m));
        for (std::int64_t m = 0; m < d; ++m) {
            double kTotal = 0;
            for (std::int64_t j = 0; j < n; ++j)
                if (within[i * n + j]) kTotal += std::exp(k(j, m));
            for (std::int64_t j = 0; j < n; ++j)
                if (within[i * n + j]) w(i, j) += std::exp(q(i, m)) / qTotal * std::exp(k(j, m)) / kTotal;
        }
    }
    return w;
}

// ---- performer: φ(x) = exp(ωᵀx' − ‖x'‖²/2)/√m with x' = x·d^(−1/4), then the elu formula with φ ----

inline Matrix favorFeatures(const Matrix& x, const std::vector<double>& omega, std::int64_t m) {
    const std::int64_t d = x.cols;
    const double inputScale = std::pow(static_cast<double>(d), -0.25);
    Matrix phi(x.rows, m);
    for (std::int64_t i = 0; i < x.rows; ++i) {
        double squaredNorm = 0;
        for (std::int64_t c = 0; c < d; ++c) squaredNorm += x(i, c) * inputScale * x(i, c) * inputScale;
        for (std::int64_t r = 0; r < m; ++r) {
            double projection = 0;
            for (std::int64_t c = 0; c < d; ++c) projection += omega[static_cast<std::size_t>(r * d + c)] * x(i, c) * inputScale;
            phi(i, r) = std::exp(projection - squaredNorm / 2) / std::sqrt(static_cast<double>(m));
        }
    }
    return phi;
}

inline std::vector<Matrix> performerReference(const Inputs& inputs, std::int64_t m, std::uint64_t seed, bool orthogonal,
                                              bool causal) {
    const auto omega = performerProjection(m, inputs.q.cols, seed, orthogonal);
    return perHead(inputs, [&](const Matrix& q, const Matrix& k) {
        return normalisedWeights(rowProducts(favorFeatures(q, omega, m), favorFeatures(k, omega, m)),
                                 allPairsMask(q.rows, causal));
    });
}

// ---- relu2 and mixed_chunk: relu(q·k)² without softmax ----

inline Matrix reluSquaredProducts(const Matrix& q, const Matrix& k) {
    Matrix s = rowProducts(q, k);
    for (double& x : s.values) x = x > 0 ? x * x : 0.0;
    return s;
}

inline Matrix mixedChunkWeights(const Matrix& q, const Matrix& k, std::int64_t c, bool causal) {
    const std::int64_t n = q.rows, d = q.cols;
    const Matrix quad = reluSquaredProducts(q, k), plain = rowProducts(q, k);
    Matrix w(n, n);
    for (std::int64_t i = 0; i < n; ++i) {
        const std::int64_t g = i / c;
        for (std::int64_t j = 0; j < n; ++j) {
            if (j / c == g && (!causal || j <= i)) w(i, j) += quad(i, j) / static_cast<double>(c * d);
            if (!causal) w(i, j) += plain(i, j) / static_cast<double>(n);
            else if (j < g * c) w(i, j) += plain(i, j) / static_cast<double>(g * c);
        }
    }
    return w;
}

// ---- linformer: W = softmax(Q (E K)ᵀ / √d) · F ----

// P_rj = 1/|B_r| for j ∈ B_r = [⌊r·n/k⌋, ⌊(r+1)·n/k⌋).
inline Matrix poolMatrix(std::int64_t k, std::int64_t n) {
    Matrix p(k, n);
    for (std::int64_t r = 0; r < k; ++r) {
        const std::int64_t begin = r * n / k, end = (r + 1) * n / k;
        for (std::int64_t j = begin; j < end; ++j) p(r, j) = 1.0 / static_cast<double>(end - begin);
    }
    return p;
}

inline Matrix linformerWeights(const Matrix& q, const Matrix& k, const Matrix& e, const Matrix& f) {
    const Matrix scores = rowProducts(q, multiply(e, k), 1.0 / std::sqrt(static_cast<double>(q.cols)));
    Matrix probabilities(scores.rows, scores.cols);
    for (std::int64_t i = 0; i < scores.rows; ++i) {
        double best = scores(i, 0), total = 0;
        for (std::int64_t r = 0; r < scores.cols; ++r) best = std::max(best, scores(i, r));
        for (std::int64_t r = 0; r < scores.cols; ++r) total += std::exp(scores(i, r) - best);
        for (std::int64_t r = 0; r < scores.cols; ++r) probabilities(i, r) = std::exp(scores(i, r) - best) / total;
    }
    return multiply(probabilities, f);
}

inline std::vector<Matrix> linformerReference(const Inputs& inputs, std::int64_t k, bool pool, std::uint64_t seed) {
    const std::int64_t n = inputs.q.rows;
    const Matrix e = pool ? poolMatrix(k, n) : fromRowMajor(linformerGaussian(k, n, seed, LinformerE), k, n);
    const Matrix f = pool ? e : fromRowMajor(linformerGaussian(k, n, seed, LinformerF), k, n);
    return perHead(inputs, [&](const Matrix& q, const Matrix& keys) { return linformerWeights(q, keys, e, f); });
}

// ---- lookup by id ----

// The effective weights of a variant with no mask, from its resolved parameters.
using WeightsReference = std::function<std::vector<Matrix>(const Inputs&, const ParamSet&, bool causal)>;

// Keyed by variant id. A new mask-free variant must add its reference here.
inline const std::map<std::string, WeightsReference>& maskFreeReferences() {
    static const std::map<std::string, WeightsReference> references = {
        {"linear",
         [](const Inputs& inputs, const ParamSet& params, bool causal) {
             return perHead(inputs, [&](const Matrix& q, const Matrix& k) {
                 return linearWeights(params.choice("kernel"), q, k, causal);
             });
         }},
        {"performer",
         [](const Inputs& inputs, const ParamSet& params, bool causal) {
             return performerReference(inputs, params.integer("features"),
                                       static_cast<std::uint64_t>(params.integer("seed")), params.flag("orthogonal"),
                                       causal);
         }},
        {"linformer",
         [](const Inputs& inputs, const ParamSet& params, bool) {
             return linformerReference(inputs, params.integer("k"), params.choice("proj") == "pool",
                                       static_cast<std::uint64_t>(params.integer("seed")));
         }},
        {"relu2",
         [](const Inputs& inputs, const ParamSet& params, bool causal) {
             const double n = static_cast<double>(inputs.q.rows), d = static_cast<double>(inputs.q.cols);
             const double z = params.choice("scale") == "n2" ? n * n : n * d;
             return perHead(inputs, [&](const Matrix& q, const Matrix& k) {
                 return scaledOnMask(reluSquaredProducts(q, k), allPairsMask(q.rows, causal), z);
             });
         }},
        {"mixed_chunk",
         [](const Inputs& inputs, const ParamSet& params, bool causal) {
             return perHead(inputs, [&](const Matrix& q, const Matrix& k) {
                 return mixedChunkWeights(q, k, params.integer("chunk"), causal);
             });
         }},
    };
    return references;
}

// nullptr when the tests know no reference for `id`.
inline const WeightsReference* maskFreeReference(const std::string& id) {
    const auto it = maskFreeReferences().find(id);
    return it == maskFreeReferences().end() ? nullptr : &it->second;
}

// ---- scores of the softmax pattern variants ----

// Transformer-XL's sinusoid table: row p = i − j ≥ 0 of d values.
inline Matrix sinusoidTable(std::int64_t n, std::int64_t d) {
    Matrix table(n, d);
    for (std::int64_t p = 0; p < n; ++p)
        for (std::int64_t k = 0; k < d / 2; ++k) {
            const double frequency = std::pow(10000.0, -2.0 * static_cast<double>(k) / static_cast<double>(d));
            table(p, k) = std::sin(static_cast<double>(p) * frequency);
            table(p, d / 2 + k) = std::cos(static_cast<double>(p) * frequency);
        }
    return table;
}

// s_ij of one head of a pattern variant: q_i·k_j/√d, except where a variant defines its own scores
// (xl's relative positions, lsh's shared query/key vectors). A new pattern variant with the standard
// scores needs nothing here.
inline Matrix patternScores(const std::string& id, const ParamSet& params, const Inputs& inputs, int head) {
    const Matrix q = headMatrix(inputs.q, head);
    const double scale = 1.0 / std::sqrt(static_cast<double>(q.cols));
    const bool sharedKeys = id == "lsh" && params.flag("shared_qk");
    Matrix scores = rowProducts(q, sharedKeys ? unitRows(q) : headMatrix(inputs.k, head), scale);
    if (id == "xl" && params.choice("relpos") == "sinusoid") {
        const Matrix relative = rowProducts(q, sinusoidTable(q.rows, q.cols), scale); // (i, p) = q_i·R_p
        for (std::int64_t i = 0; i < q.rows; ++i)
            for (std::int64_t j = 0; j <= i; ++j) scores(i, j) += relative(i, i - j);
    }
    return scores;
}

} // namespace attnlab::testing
