#pragma once

#include <cmath>
#include <cstdint>
#include <numbers>

namespace attnlab {

// A small counter-free generator (SplitMix64) with a Box–Muller normal, so that "same seed, same
// numbers" holds across compilers and standard libraries (std::normal_distribution does not).
class SeededRandom {
public:
    explicit SeededRandom(std::uint64_t seed) : m_state(seed) {}

    // Derives an independent stream for a purpose (e.g. "E matrix", "round r", "row i").
    static SeededRandom stream(std::uint64_t seed, std::uint64_t purpose, std::uint64_t index = 0) {
        SeededRandom mixer(seed ^ (purpose * 0x9E3779B97F4A7C15ull) ^ (index * 0xD1B54A32D192ED03ull));
        return SeededRandom(mixer.nextBits());
    }

    std::uint64_t nextBits() {
        std::uint64_t z = (m_state += 0x9E3779B97F4A7C15ull);
        z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
        z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
        return z ^ (z >> 31);
    }

    // Uniform in [0, 1) with 53 random bits.
    double uniform() { return static_cast<double>(nextBits() >> 11) * 0x1.0p-53; }

    // Uniform integer in [0, bound), bound > 0 (rejection sampling, unbiased).
    std::uint64_t below(std::uint64_t bound) {
        const std::uint64_t limit = UINT64_MAX - UINT64_MAX % bound;
        std::uint64_t x;
        do {
            x = nextBits();
        } while (x >= limit);
        return x % bound;
    }

    double normal() {
        if (m_hasSpare) {
            m_hasSpare = false;
            return m_spare;
        }
        const double u1 = 1.0 - uniform(); // (0, 1]
        const double u2 = uniform();
        const double radius = std::sqrt(-2.0 * std::log(u1));
        m_spare = radius * std::sin(2.0 * std::numbers::pi * u2);
        m_hasSpare = true;
        return radius * std::cos(2.0 * std::numbers::pi * u2);
    }

private:
    std::uint64_t m_state;
    double m_spare = 0.0;
    bool m_hasSpare = false;
};

// Purposes for SeededRandom::stream, one per random object of the variants (docs/variants.md).
enum RandomPurpose : std::uint64_t {
    PerformerFeatures = 1,
    PerformerNorms = 2,
    LinformerE = 3,
    LinformerF = 4,
    LshRotation = 5,
    BigBirdRandomKeys = 6,
    InputGeneration = 7,
    ExpressionRandomColumns = 8,
};

} // namespace attnlab
