#pragma once

#include "core/tensor.h"
#include "core/variant.h"

#include <string>
#include <vector>

namespace attnlab {

// Seeds 0 … kAccuracySeeds − 1 of a seeded sweep (random methods: performer, linformer gaussian, lsh).
inline constexpr int kAccuracySeeds = 3;

// One measured value of a sweep: ‖out − out_full‖_F / ‖out_full‖_F over every head, averaged over the
// seeds with their minimum and maximum.
struct AccuracyMeasurement {
    std::string family;    // AccuracySweep::family
    std::string parameter; // the swept key
    std::string value;     // as typed
    double x = 0;          // the value as a number (0 for a reference line's value)
    double error = 0;
    double minError = 0;
    double maxError = 0;
    int seeds = 1;
};

struct AccuracyReport {
    std::vector<AccuracyMeasurement> measurements;
    std::vector<std::string> notes; // values and variants left out, and why
    bool cancelled = false;
};

// A registered variant's sweep.
struct RegisteredSweep {
    const VariantInfo* variant = nullptr;
    const AccuracySweep* sweep = nullptr;
};
// Every variant's accuracy sweeps in registry order: the budget curves first, then the reference lines.
std::vector<RegisteredSweep> registeredAccuracySweeps();

// Runs exact softmax attention once on Q, K, V ([h, n, d], [h, n, d], [h, n, dv]) and every registered
// sweep against it; `threads` OpenMP threads per kernel. A value a variant rejects is named in the
// notes. Throws what the exact run throws.
AccuracyReport measureAccuracy(const Tensor3& q, const Tensor3& k, const Tensor3& v, const ProblemShape& shape, int threads,
                               const CancelCheck& cancelled);

// ‖out − reference‖_F / ‖reference‖_F in double precision.
double relativeError(const Tensor3& out, const Tensor3& reference);

} // namespace attnlab
