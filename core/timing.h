#pragma once

#include "core/variant.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

// One timed configuration: a variant at a shape with parameter overrides (resolved per n).
struct TimingRequest {
    std::string variant;
    ProblemShape shape;
    ParamOverrides overrides;
    int threads = 1;
    double budgetSeconds = 0.5; // keep repeating until this much time is spent (after warm-up)
    int minRepeats = 3;
    int maxRepeats = 1000;
    bool useReference = false;
    CancelCheck cancelled; // polled between repeats and inside kernels
};

struct TimingResult {
    double medianSeconds = 0;
    double minSeconds = 0;
    double maxSeconds = 0;
    int repeats = 0;
    double attentionMacs = 0; // cost model's core MACs for this shape
    double gflops = 0;        // 2 · attentionMacs / medianSeconds / 1e9
    double peakExtraBytes = 0; // growth of the process's peak resident memory during the runs
    bool cancelled = false;
};

// Times variant.run on generated Gaussian inputs (generated once, outside the timed region).
// Throws InputError for an unknown variant or bad parameters.
TimingResult timeVariant(const TimingRequest& request);

} // namespace attnlab
