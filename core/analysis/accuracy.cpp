#include "core/analysis/accuracy.h"

#include "core/cost/job_limits.h"
#include "core/errors.h"
#include "core/jobs/memory_budget.h"
#include "core/registry.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <optional>

namespace attnlab {

namespace {

Tensor3 scaled(const Tensor3& tensor, double scale) {
    Tensor3 copy = tensor;
    if (scale != 1)
        for (float& value : copy.values) value = static_cast<float>(value * scale);
    return copy;
}

// Runs variants on one set of inputs (Q and K multiplied by the input scale) and compares them with
// the exact result computed once.
class Comparer {
public:
    Comparer(const Tensor3& q, const Tensor3& k, const Tensor3& v, const ProblemShape& shape, double inputScale,
             const AccuracyOptions& options, const CancelCheck& cancelled)
        : m_q(scaled(q, inputScale)), m_k(scaled(k, inputScale)), m_v(v), m_shape(shape), m_measure(options.measure),
          m_threads(options.threads), m_cancelled(cancelled) {
        const VariantInfo& full = requireVariant("full");
        const ParamSet params = prepareParams(full, shape, {});
        requireRunLimits(full, shape, params, m_measure == AccuracyMeasure::Weights);
        const RunResult result = full.run(inputs(true), runOptions(params));
        m_reference = compared(result);
        m_valid = !result.cancelled;
    }

    bool cancelled() const { return !m_valid || (m_cancelled && m_cancelled()); }

    // nullopt when cancelled; throws InputError for parameters outside their range.
    std::optional<double> error(const VariantInfo& variant, const ParamOverrides& overrides) const {
        const ParamSet params = prepareParams(variant, m_shape, overrides);
        requireRunLimits(variant, m_shape, params, m_measure == AccuracyMeasure::Weights);
        const bool needsKeys = !variant.needsKeys || variant.needsKeys(params);
        const RunResult result = variant.run(inputs(needsKeys), runOptions(params));
        if (result.cancelled || cancelled()) return std::nullopt;
        return relativeError(compared(result), m_reference);
    }

private:
    AttentionInputs inputs(bool withKeys) const { return AttentionInputs{&m_q, withKeys ? &m_k : nullptr, &m_v}; }

    RunOptions runOptions(const ParamSet& params) const {
        RunOptions run;
        run.causal = m_shape.causal;
        run.grid = m_shape.grid;
        run.params = params;
        run.threads = m_threads;
        run.cancelled = m_cancelled;
        run.wantWeights = m_measure == AccuracyMeasure::Weights;
        return run;
    }

    const Tensor3& compared(const RunResult& result) const {
        return m_measure == AccuracyMeasure::Weights && result.weights ? *result.weights : result.out;
    }

    Tensor3 m_q, m_k, m_v;
    ProblemShape m_shape;
    AccuracyMeasure m_measure;
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
                                           const std::string& value, double x, double inputScale) {
    ParamOverrides overrides = sweep.fixed;
    overrides[sweep.parameter] = value;
    AccuracyMeasurement point{sweep.family, sweep.parameter, value, x, inputScale, 0,
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

bool leftOutWhenCausal(const RegisteredSweep& entry, const ProblemShape& shape) {
    return shape.causal && entry.variant->causalSupport == CausalSupport::BidirectionalOnly;
}

bool aboveN(const AccuracySweep& sweep, const std::string& value, const ProblemShape& shape) {
    return sweep.atMostN && numberOf(value) > static_cast<double>(shape.n);
}

// Measures one point; a value the variant rejects becomes a note.
void measureInto(std::vector<AccuracyMeasurement>& into, AccuracyReport& report, const Comparer& comparer,
                 const RegisteredSweep& entry, const std::string& value, double x, double inputScale) {
    try {
        if (auto point = measure(comparer, *entry.variant, *entry.sweep, value, x, inputScale)) into.push_back(*point);
    } catch (const InputError& error) {
        report.notes.push_back(entry.variant->id + " " + entry.sweep->parameter + " = " + value + " left out: " + error.what());
    }
}

void measureSweep(AccuracyReport& report, const Comparer& comparer, const RegisteredSweep& entry, const ProblemShape& shape,
                  double inputScale) {
    const VariantInfo& variant = *entry.variant;
    const AccuracySweep& sweep = *entry.sweep;
    if (leftOutWhenCausal(entry, shape)) {
        if (firstSweepOf(entry)) report.notes.push_back(variant.id + " is bidirectional only: left out for causal attention");
        return;
    }
    std::vector<std::string> values, leftOut;
    for (const std::string& value : sweep.values) (aboveN(sweep, value, shape) ? leftOut : values).push_back(value);
    if (!leftOut.empty() && firstSweepOf(entry))
        report.notes.push_back(variant.id + ": " + sweep.parameter + " = " + joined(leftOut) + " left out (" + sweep.parameter +
                               " > n = " + std::to_string(shape.n) + ")");
    for (const std::string& value : values) {
        if (comparer.cancelled()) return;
        measureInto(report.measurements, report, comparer, entry, value, sweep.budget ? numberOf(value) : 0.0, inputScale);
    }
}

// Every sweep at its fixed budget (a reference line: every value) on inputs multiplied by `scale`.
void measureAtScale(AccuracyReport& report, const Comparer& comparer, const ProblemShape& shape, double scale) {
    for (const RegisteredSweep& entry : registeredAccuracySweeps()) {
        const AccuracySweep& sweep = *entry.sweep;
        if (leftOutWhenCausal(entry, shape)) continue;
        const std::vector<std::string> values = sweep.budget ? std::vector<std::string>{sweep.scaleBudget} : sweep.values;
        for (const std::string& value : values) {
            if (comparer.cancelled() || value.empty() || aboveN(sweep, value, shape)) continue;
            measureInto(report.scaleMeasurements, report, comparer, entry, value, scale, scale);
        }
    }
}

void requireWeightsMemory(const ProblemShape& shape, const AccuracyOptions& options) {
    if (options.measure != AccuracyMeasure::Weights) return;
    // The exact weights and one variant's weights, [h, n, n] float each.
    const double n = static_cast<double>(shape.n);
    requireMemory(2.0 * 4.0 * shape.heads * n * n, "the effective weights of the accuracy comparison");
}

} // namespace

std::string accuracyMeasureName(AccuracyMeasure measure) { return measure == AccuracyMeasure::Weights ? "weights" : "output"; }

AccuracyMeasure accuracyMeasureFromName(const std::string& name) {
    if (name == "output") return AccuracyMeasure::Output;
    if (name == "weights") return AccuracyMeasure::Weights;
    throw InputError("unknown error measure '" + name + "' (expected output or weights)");
}

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

AccuracyReport measureAccuracy(const Tensor3& q, const Tensor3& k, const Tensor3& v, const ProblemShape& shape,
                               const AccuracyOptions& options, const CancelCheck& cancelled) {
    if (!(options.inputScale > 0) || !std::isfinite(options.inputScale))
        throw InputError("the input scale must be a positive number, got " + std::to_string(options.inputScale));
    requireWeightsMemory(shape, options);
    AccuracyReport report;
    const Comparer comparer(q, k, v, shape, options.inputScale, options, cancelled);
    for (const RegisteredSweep& entry : registeredAccuracySweeps()) {
        if (comparer.cancelled()) break;
        measureSweep(report, comparer, entry, shape, options.inputScale);
    }
    report.cancelled = comparer.cancelled();
    for (const double scale : options.scales) {
        if (report.cancelled) break;
        const Comparer atScale(q, k, v, shape, scale, options, cancelled);
        measureAtScale(report, atScale, shape, scale);
        report.cancelled = atScale.cancelled();
    }
    return report;
}

} // namespace attnlab
