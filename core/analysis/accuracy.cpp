#include "core/analysis/accuracy.h"

#include "core/errors.h"
#include "core/job_limits.h"
#include "core/registry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace attnlab {

namespace {

// Runs variants on one set of inputs and compares them with the exact output computed once.
class Comparer {
public:
    Comparer(const AttentionInputs& inputs, const ProblemShape& shape, int threads, const CancelCheck& cancelled)
        : m_inputs(inputs), m_shape(shape), m_threads(threads), m_cancelled(cancelled) {
        const VariantInfo& full = requireVariant("full");
        const ParamSet params = prepareParams(full, shape, {});
        requireRunLimits(full, shape, params, false);
        const RunResult result = full.run(inputs, options(params));
        m_reference = result.out;
        m_valid = !result.cancelled;
    }

    bool cancelled() const { return !m_valid || (m_cancelled && m_cancelled()); }

    // nullopt when cancelled; throws InputError for parameters outside their range.
    std::optional<double> error(const VariantInfo& variant, const ParamOverrides& overrides) const {
        const ParamSet params = prepareParams(variant, m_shape, overrides);
        requireRunLimits(variant, m_shape, params, false);
        const bool needsKeys = !variant.needsKeys || variant.needsKeys(params);
        const RunResult result = variant.run(AttentionInputs{m_inputs.q, needsKeys ? m_inputs.k : nullptr, m_inputs.v}, options(params));
        if (result.cancelled || cancelled()) return std::nullopt;
        return relativeError(result.out, m_reference);
    }

private:
    RunOptions options(const ParamSet& params) const {
        RunOptions run;
        run.causal = m_shape.causal;
        run.params = params;
        run.threads = m_threads;
        run.cancelled = m_cancelled;
        return run;
    }

    AttentionInputs m_inputs;
    ProblemShape m_shape;
    int m_threads;
    CancelCheck m_cancelled;
    Tensor3 m_reference;
    bool m_valid = false;
};

double numberOf(const std::string& value) {
    try {
        return std::stod(value);
    } catch (const std::exception&) {
        return 0;
    }
}

std::optional<AccuracyMeasurement> measure(const Comparer& comparer, const VariantInfo& variant, const AccuracySweep& sweep,
                                           const std::string& value) {
    ParamOverrides overrides = sweep.fixed;
    overrides[sweep.parameter] = value;
    AccuracyMeasurement point{sweep.family, sweep.parameter, value, sweep.budget ? numberOf(value) : 0.0, 0,
                              std::numeric_limits<double>::infinity(), 0, sweep.seeded ? kAccuracySeeds : 1};
    for (int seed = 0; seed < point.seeds; ++seed) {
        if (sweep.seeded) overrides["seed"] = std::to_string(seed);
        const auto error = comparer.error(variant, overrides);
        if (!error) return std::nullopt;
        point.error += *error / point.seeds;
        point.minError = std::min(point.minError, *error);
        point.maxError = std::max(point.maxError, *error);
    }
    return point;
}

std::string joined(const std::vector<std::string>& values) {
    std::string text;
    for (const std::string& value : values) text += (text.empty() ? "" : ", ") + value;
    return text;
}

bool firstSweepOf(const RegisteredSweep& entry) { return entry.sweep == &entry.variant->accuracySweeps.front(); }

void measureSweep(AccuracyReport& report, const Comparer& comparer, const RegisteredSweep& entry, const ProblemShape& shape) {
    const VariantInfo& variant = *entry.variant;
    const AccuracySweep& sweep = *entry.sweep;
    if (shape.causal && variant.causalSupport == CausalSupport::BidirectionalOnly) {
        if (firstSweepOf(entry)) report.notes.push_back(variant.id + " is bidirectional only: left out for causal attention");
        return;
    }
    std::vector<std::string> values, leftOut;
    for (const std::string& value : sweep.values)
        (sweep.atMostN && numberOf(value) > static_cast<double>(shape.n) ? leftOut : values).push_back(value);
    if (!leftOut.empty() && firstSweepOf(entry))
        report.notes.push_back(variant.id + ": " + sweep.parameter + " = " + joined(leftOut) + " left out (" + sweep.parameter +
                               " > n = " + std::to_string(shape.n) + ")");
    for (const std::string& value : values) {
        if (comparer.cancelled()) return;
        try {
            if (auto point = measure(comparer, variant, sweep, value)) report.measurements.push_back(*point);
        } catch (const InputError& error) {
            report.notes.push_back(variant.id + " " + sweep.parameter + " = " + value + " left out: " + error.what());
        }
    }
}

} // namespace

double relativeError(const Tensor3& out, const Tensor3& reference) {
    double difference = 0, norm = 0;
    for (std::size_t c = 0; c < reference.values.size(); ++c) {
        const double r = reference.values[c], e = static_cast<double>(out.values[c]) - r;
        difference += e * e;
        norm += r * r;
    }
    return std::sqrt(difference) / std::sqrt(norm);
}

std::vector<RegisteredSweep> registeredAccuracySweeps() {
    std::vector<RegisteredSweep> curves, lines;
    for (const VariantInfo& variant : allVariants())
        for (const AccuracySweep& sweep : variant.accuracySweeps) (sweep.budget ? curves : lines).push_back({&variant, &sweep});
    curves.insert(curves.end(), lines.begin(), lines.end());
    return curves;
}

AccuracyReport measureAccuracy(const Tensor3& q, const Tensor3& k, const Tensor3& v, const ProblemShape& shape, int threads,
                               const CancelCheck& cancelled) {
    AccuracyReport report;
    const Comparer comparer(AttentionInputs{&q, &k, &v}, shape, threads, cancelled);
    for (const RegisteredSweep& entry : registeredAccuracySweeps()) {
        if (comparer.cancelled()) break;
        measureSweep(report, comparer, entry, shape);
    }
    report.cancelled = comparer.cancelled();
    return report;
}

} // namespace attnlab
