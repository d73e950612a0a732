// Log-log slopes of exact power laws, and the cost model's exponents for the growth laws a lecture
// states: n² for full attention, n^1.5 for the Sparse Transformer at l = √n, n for a fixed window and
// for linear attention.
#include "core/analysis/scaling.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attnlab {
namespace {

TEST(Scaling, SlopeOfAPowerLawIsItsExponent) {
    std::vector<double> xs, ys;
    for (double x = 64; x <= 65536; x *= 2) {
        xs.push_back(x);
        ys.push_back(3e-9 * std::pow(x, 1.5));
    }
    EXPECT_NEAR(*logLogSlope(xs, ys), 1.5, 1e-12);
    ys[3] = 0; // a point without a measurement is left out, not read as log(0)
    EXPECT_NEAR(*logLogSlope(xs, ys), 1.5, 1e-12);
}

TEST(Scaling, TooFewPointsHaveNoSlope) {
    EXPECT_FALSE(logLogSlope({}, {}));
    EXPECT_FALSE(logLogSlope({8}, {1}));
    EXPECT_FALSE(logLogSlope({8, 8}, {1, 2}));
}

TEST(Scaling, SlopeOfNoisyPointsIsTheLeastSquaresFit) {
    // log2 y = 2·log2 x ± 0.1 alternating: the fit through symmetric noise stays near 2.
    std::vector<double> xs, ys;
    for (int k = 0; k < 8; ++k) {
        xs.push_back(std::pow(2.0, k));
        ys.push_back(std::pow(2.0, 2 * k + (k % 2 ? 0.1 : -0.1)));
    }
    EXPECT_NEAR(*logLogSlope(xs, ys), 2.0, 0.05);
}

ProblemShape shape(bool causal = false) {
    ProblemShape s;
    s.heads = 4;
    s.d = 32;
    s.dv = 32;
    s.causal = causal;
    return s;
}

TEST(Scaling, CostModelExponentsFollowTheGrowthLaws) {
    auto exponent = [](const char* id, const ParamOverrides& overrides, bool causal = false) {
        return *costModelExponent(requireVariant(id), shape(causal), overrides, 1024, 16384);
    };
    EXPECT_NEAR(exponent("full", {}), 2.0, 1e-9);
    EXPECT_NEAR(exponent("full", {}, true), 2.0, 0.01);
    EXPECT_NEAR(exponent("strided", {}), 1.5, 0.05);
    // fixed's summary columns: one per block keeps n·(l + n/l) ~ n^1.5; the default c = l/8 adds
    // c·n²/(2l) = n²/16 pairs, so the default pattern is quadratic with a small constant.
    EXPECT_NEAR(exponent("fixed", {{"summary", "1"}}, true), 1.5, 0.05);
    EXPECT_GT(exponent("fixed", {}, true), 1.9);
    EXPECT_NEAR(exponent("longformer", {{"window", "64"}}), 1.0, 0.01);
    EXPECT_NEAR(exponent("linear", {}), 1.0, 1e-9);
    // A user-fixed stride no longer follows √n: the strided columns make it quadratic again.
    EXPECT_GT(exponent("strided", {{"stride", "16"}}), 1.8);
}

} // namespace
} // namespace attnlab
