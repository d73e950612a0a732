#pragma once

#include "core/tensor.h"
#include "core/variant.h"

#include <string>
#include <vector>

namespace attnlab {

// Seeds 0 … kAccuracySeeds − 1 of a seeded sweep (random methods: performer, linformer gaussian, lsh).
inline constexpr int kAccuracySeeds = 3;

// What is compared with exact softmax attention: the outputs (‖out − out_full‖_F / ‖out_full‖_F over
// every head) or the effective weights (‖W − W_full‖_F / ‖W_full‖_F, W = the [h, n, n] matrix with
// out = W·V per head).
enum class AccuracyMeasure { Output, Weights };
std::string accuracyMeasureName(AccuracyMeasure measure);                 // "output", "weights"
AccuracyMeasure accuracyMeasureFromName(const std::string& name);         // throws InputError

// The input scales s of the error-vs-scale panel: Q and K multiplied by s, the logits q·k/√d by s².
inline const std::vector<double> kAccuracyScales = {0.0625, 0.125, 0.25, 0.5, 1, 2};

struct AccuracyOptions {
    double inputScale = 1; // Q and K multiplied by this for the budget sweeps (> 0)
    AccuracyMeasure measure = AccuracyMeasure::Output;
    std::vector<double> scales; // the error-vs-scale panel's scales (empty: no such panel)
    int threads = 1;            // OpenMP threads per kernel
};

// One measured value: the relative error (AccuracyMeasure) averaged over the seeds with their minimum
// and maximum.
struct AccuracyMeasurement {
    std::string family;    // AccuracySweep::family
    std::string parameter; // the swept key
    std::string value;     // as typed
    double x = 0;          // budget sweeps: the value as a number (0 for a reference line); scale sweeps: the scale
    double inputScale = 1; // the s the inputs were multiplied by
    double error = 0;
    double minError = 0;
    double maxError = 0;
    int seeds = 1;
};

struct AccuracyReport {
    std::vector<AccuracyMeasurement> measurements;      // budget sweeps and reference lines at options.inputScale
    std::vector<AccuracyMeasurement> scaleMeasurements; // each sweep at its scaleBudget over options.scales
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

// Runs exact softmax attention on Q, K, V ([h, n, d], [h, n, d], [h, n, dv]) — once per input scale —
// and every registered sweep against it. A value a variant rejects is named in the notes. Throws what
// the exact run throws, and InputError when the weights measure needs more memory than a job may use.
AccuracyReport measureAccuracy(const Tensor3& q, const Tensor3& k, const Tensor3& v, const ProblemShape& shape,
                               const AccuracyOptions& options, const CancelCheck& cancelled);

// ‖out − reference‖_F / ‖reference‖_F in double precision.
double relativeError(const Tensor3& out, const Tensor3& reference);

} // namespace attnlab
