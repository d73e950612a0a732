#include "core/timing.h"

#include "core/cost_model.h"
#include "core/input_generator.h"
#include "core/registry.h"

#include <algorithm>
#include <chrono>
#include <fstream>
#include <string>

namespace attnlab {

namespace {

// Peak resident set (VmHWM) of this process in bytes.
double peakResidentBytes() {
    std::ifstream status("/proc/self/status");
    std::string key;
    while (status >> key) {
        if (key == "VmHWM:") {
            double kib = 0;
            status >> kib;
            return kib * 1024.0;
        }
        status.ignore(1 << 20, '\n');
    }
    return 0;
}

} // namespace

TimingResult timeVariant(const TimingRequest& request) {
    const VariantInfo& variant = requireVariant(request.variant);
    const ParamSet params = prepareParams(variant, request.shape, request.overrides);
    const auto data = generateInputs(GeneratedKind::Gaussian, request.shape.heads, request.shape.n, request.shape.d,
                                     request.shape.dv, 1);
    const AttentionInputs inputs{&data.q, &data.k, &data.v};
    RunOptions options;
    options.causal = request.shape.causal;
    options.params = params;
    options.threads = request.threads;
    options.useReference = request.useReference;
    options.cancelled = request.cancelled;

    TimingResult result;
    result.attentionMacs = layerCost(variant, request.shape, params).attentionMacs;
    const double peakBefore = peakResidentBytes();
    if (variant.run(inputs, options).cancelled) { // warm-up
        result.cancelled = true;
        return result;
    }
    std::vector<double> seconds;
    double spent = 0;
    while (static_cast<int>(seconds.size()) < request.maxRepeats &&
           (static_cast<int>(seconds.size()) < request.minRepeats || spent < request.budgetSeconds)) {
        if (request.cancelled && request.cancelled()) {
            result.cancelled = true;
            return result;
        }
        const auto start = std::chrono::steady_clock::now();
        const bool cancelled = variant.run(inputs, options).cancelled;
        const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
        if (cancelled) {
            result.cancelled = true;
            return result;
        }
        seconds.push_back(elapsed);
        spent += elapsed;
    }
    std::sort(seconds.begin(), seconds.end());
    result.repeats = static_cast<int>(seconds.size());
    result.minSeconds = seconds.front();
    result.maxSeconds = seconds.back();
    result.medianSeconds = seconds[seconds.size() / 2];
    result.gflops = 2.0 * result.attentionMacs / result.medianSeconds / 1e9;
    result.peakExtraBytes = std::max(0.0, peakResidentBytes() - peakBefore);
    return result;
}

} // namespace attnlab
