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

double relativeError(const std::vector<float>& a, const std::vector<double>& b) {
    double scale = 1.0, worst = 0.0;
    for (const double x : b) scale = std::max(scale, std::fabs(x));
    for (std::size_t e = 0; e < std::min(a.size(), b.size()); ++e) worst = std::max(worst, std::fabs(a[e] - b[e]));
    return a.size() == b.size() ? worst / scale : std::numeric_limits<double>::infinity();
}

double maxAbsDifference(const std::vector<float>& a, const std::vector<float>& b) {
    if (a.size() != b.size()) return std::numeric_limits<double>::infinity();
    double worst = 0.0;
    for (std::size_t e = 0; e < a.size(); ++e) worst = std::max(worst, static_cast<double>(std::fabs(a[e] - b[e])));
    return worst;
}

} // namespace attnlab::testing
