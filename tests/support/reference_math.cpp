#include "support/reference_math.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <random>

namespace attnlab::testing {

Tensor3 randomTensor(int heads, std::int64_t n, std::int64_t d, std::uint64_t seed, double scale) {
    Tensor3 t(heads, n, d);
    std::mt19937_64 engine(seed);
    std::normal_distribution<double> normal(0.0, scale);
    for (float& x : t.values) x = static_cast<float>(normal(engine));
    return t;
}

DenseMatrix scaledScores(const Tensor3& q, const Tensor3& k, int head, double scale) {
    const std::int64_t n = q.rows;
    DenseMatrix s(static_cast<std::size_t>(n * n));
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            double dot = 0;
            for (std::int64_t c = 0; c < q.cols; ++c) dot += static_cast<double>(q.at(head, i, c)) * k.at(head, j, c);
            s[i * n + j] = scale * dot;
        }
    return s;
}

std::vector<double> maskedSoftmax(const DenseMatrix& scores, const std::vector<std::uint8_t>& mask, const Tensor3& v,
                                  int head, DenseMatrix* weights) {
    const std::int64_t n = v.rows, dv = v.cols;
    std::vector<double> out(static_cast<std::size_t>(n * dv), 0.0);
    if (weights) weights->assign(static_cast<std::size_t>(n * n), 0.0);
    for (std::int64_t i = 0; i < n; ++i) {
        double best = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j < n; ++j)
            if (mask[i * n + j]) best = std::max(best, scores[i * n + j]);
        double total = 0;
        for (std::int64_t j = 0; j < n; ++j)
            if (mask[i * n + j]) total += std::exp(scores[i * n + j] - best);
        for (std::int64_t j = 0; j < n; ++j) {
            if (!mask[i * n + j]) continue;
            const double w = std::exp(scores[i * n + j] - best) / total;
            if (weights) (*weights)[i * n + j] = w;
            for (std::int64_t c = 0; c < dv; ++c) out[i * dv + c] += w * v.at(head, j, c);
        }
    }
    return out;
}

double relativeError(std::span<const float> a, const std::vector<double>& b) {
    double scale = 1.0, worst = 0.0;
    for (const double x : b) scale = std::max(scale, std::fabs(x));
    for (std::size_t e = 0; e < std::min(a.size(), b.size()); ++e) worst = std::max(worst, std::fabs(a[e] - b[e]));
    return a.size() == b.size() ? worst / scale : std::numeric_limits<double>::infinity();
}

double maxAbsDifference(std::span<const float> a, std::span<const float> b) {
    if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
    double worst = 0.0;
    for (std::size_t e = 0; e < a.size(); ++e) worst = std::max(worst, static_cast<double>(std::fabs(a[e] - b[e])));
    return worst;
}

} // namespace attnlab::testing

namespace attnlab::testing {

Matrix headMatrix(const Tensor3& t, int head) {
    Matrix m(t.rows, t.cols);
    for (std::int64_t r = 0; r < t.rows; ++r)
        for (std::int64_t c = 0; c < t.cols; ++c) m(r, c) = t.at(head, r, c);
    return m;
}

Matrix multiply(const Matrix& a, const Matrix& b) {
    Matrix product(a.rows, b.cols);
    for (std::int64_t r = 0; r < a.rows; ++r)
        for (std::int64_t t = 0; t < a.cols; ++t)
            for (std::int64_t c = 0; c < b.cols; ++c) product(r, c) += a(r, t) * b(t, c);
    return product;
}

Matrix transpose(const Matrix& a) {
    Matrix t(a.cols, a.rows);
    for (std::int64_t r = 0; r < a.rows; ++r)
        for (std::int64_t c = 0; c < a.cols; ++c) t(c, r) = a(r, c);
    return t;
}

Matrix rowProducts(const Matrix& a, const Matrix& b, double scale) {
    Matrix product(a.rows, b.rows);
    for (std::int64_t i = 0; i < a.rows; ++i)
        for (std::int64_t j = 0; j < b.rows; ++j) {
            double dot = 0;
            for (std::int64_t c = 0; c < a.cols; ++c) dot += a(i, c) * b(j, c);
            product(i, j) = scale * dot;
        }
    return product;
}

Mask maskFromRule(std::int64_t n, const CellRule& rule) {
    Mask mask(static_cast<std::size_t>(n * n), 0);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) mask[i * n + j] = rule(i, j) ? 1 : 0;
    return mask;
}

Mask allPairsMask(std::int64_t n, bool causal) {
    return maskFromRule(n, [causal](std::int64_t i, std::int64_t j) { return !causal || j <= i; });
}

Matrix softmaxWeights(const Matrix& scores, const Mask& mask) {
    const std::int64_t n = scores.rows;
    Matrix w(n, n);
    for (std::int64_t i = 0; i < n; ++i) {
        double best = -std::numeric_limits<double>::infinity();
        for (std::int64_t j = 0; j < n; ++j)
            if (mask[i * n + j]) best = std::max(best, scores(i, j));
        double total = 0;
        for (std::int64_t j = 0; j < n; ++j)
            if (mask[i * n + j]) total += std::exp(scores(i, j) - best);
        for (std::int64_t j = 0; j < n; ++j)
            if (mask[i * n + j]) w(i, j) = std::exp(scores(i, j) - best) / total;
    }
    return w;
}

Matrix normalisedWeights(const Matrix& kernel, const Mask& mask) {
    const std::int64_t n = kernel.rows, cols = kernel.cols;
    Matrix w(n, cols);
    for (std::int64_t i = 0; i < n; ++i) {
        double total = 0;
        for (std::int64_t j = 0; j < cols; ++j)
            if (mask[i * cols + j]) total += kernel(i, j);
        if (total == 0) continue;
        for (std::int64_t j = 0; j < cols; ++j)
            if (mask[i * cols + j]) w(i, j) = kernel(i, j) / total;
    }
    return w;
}

Matrix scaledOnMask(const Matrix& kernel, const Mask& mask, double divisor) {
    Matrix w(kernel.rows, kernel.cols);
    for (std::size_t e = 0; e < w.values.size(); ++e)
        if (mask[e]) w.values[e] = kernel.values[e] / divisor;
    return w;
}

std::vector<double> stackWeights(const std::vector<Matrix>& weights) {
    std::vector<double> stacked;
    for (const Matrix& w : weights) stacked.insert(stacked.end(), w.values.begin(), w.values.end());
    return stacked;
}

std::vector<double> stackOutputs(const std::vector<Matrix>& weights, const Tensor3& v) {
    std::vector<double> stacked;
    for (int h = 0; h < static_cast<int>(weights.size()); ++h) {
        const Matrix out = multiply(weights[h], headMatrix(v, h));
        stacked.insert(stacked.end(), out.values.begin(), out.values.end());
    }
    return stacked;
}

std::vector<double> weightsTimesValues(const Tensor3& weights, const Tensor3& v) {
    std::vector<double> stacked;
    for (int h = 0; h < weights.heads; ++h) {
        const Matrix out = multiply(headMatrix(weights, h), headMatrix(v, h));
        stacked.insert(stacked.end(), out.values.begin(), out.values.end());
    }
    return stacked;
}

} // namespace attnlab::testing
