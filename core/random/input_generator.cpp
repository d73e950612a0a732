#include "core/random/input_generator.h"

#include "core/random/random.h"

#include <cmath>
#include <numbers>

namespace attnlab {

namespace {

void fillGaussian(Tensor3& t, SeededRandom& random, double scale) {
    for (float& x : t.values) x = static_cast<float>(random.normal() * scale);
}

// Adds a slowly rotating sinusoid of the position to every row: rows far apart in position point in
// different directions, so dot products fall off with |i − j| over a few tens of positions.
// Row i of t is position firstPosition + i.
void addPositionalSignal(Tensor3& t, double amplitude, std::int64_t firstPosition = 0) {
    const std::int64_t d = t.cols;
    for (int h = 0; h < t.heads; ++h)
        for (std::int64_t i = 0; i < t.rows; ++i)
            for (std::int64_t c = 0; c < d; ++c) {
                const double wavelength = 16.0 * std::pow(4.0, static_cast<double>(c / 2 % 4)) * (1.0 + 0.25 * h);
                const double phase = 2.0 * std::numbers::pi * static_cast<double>(firstPosition + i) / wavelength;
                t.at(h, i, c) += static_cast<float>(amplitude * (c % 2 == 0 ? std::sin(phase) : std::cos(phase)));
            }
}

} // namespace

GeneratedInputs generateInputs(GeneratedKind kind, int heads, std::int64_t n, std::int64_t d, std::int64_t dv,
                               std::uint64_t seed, int kvHeads, std::int64_t queryRows) {
    const int keyValueHeads = kvHeads > 0 ? kvHeads : heads;
    const std::int64_t m = queryRows > 0 ? queryRows : n;
    GeneratedInputs inputs{Tensor3(heads, m, d), Tensor3(keyValueHeads, n, d), Tensor3(keyValueHeads, n, dv)};
    SeededRandom random = SeededRandom::stream(seed, InputGeneration);
    const bool local = kind == GeneratedKind::LocalSimilarity;
    fillGaussian(inputs.q, random, local ? 0.3 : 1.0);
    fillGaussian(inputs.k, random, local ? 0.3 : 1.0);
    fillGaussian(inputs.v, random, 1.0);
    if (local) {
        addPositionalSignal(inputs.q, 1.0, n - m);
        addPositionalSignal(inputs.k, 1.0);
    }
    return inputs;
}

} // namespace attnlab
