// The accuracy comparison as a lesson (core/analysis/accuracy.h): the input scale multiplies Q and K,
// the error-vs-scale sweep agrees with the budget sweeps run at that scale, FAVOR+ works for small
// logits and breaks for large ones, and the effective-weights measure against the weights computed here.

#include "core/analysis/accuracy.h"
#include "core/errors.h"
#include "core/random/input_generator.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace attnlab {
namespace {

const AccuracyMeasurement* find(const std::vector<AccuracyMeasurement>& points, const std::string& family, const std::string& value,
                                double scale) {
    for (const AccuracyMeasurement& point : points)
        if (point.family == family && point.value == value && point.inputScale == scale) return &point;
    return nullptr;
}

Tensor3 times(const Tensor3& tensor, double factor) {
    Tensor3 copy = tensor;
    for (float& value : copy.values) value = static_cast<float>(value * factor);
    return copy;
}

TEST(AccuracyScale, MultipliesQAndKOnly) {
    const std::int64_t n = 64, d = 16;
    const GeneratedInputs inputs = generateInputs(GeneratedKind::Gaussian, 1, n, d, d, 5);
    const ProblemShape shape{1, n, d, d, false};
    AccuracyOptions half;
    half.inputScale = 0.5;
    const AccuracyReport scaled = measureAccuracy(inputs.q, inputs.k, inputs.v, shape, half, {});
    const AccuracyReport given =
        measureAccuracy(times(inputs.q, 0.5), times(inputs.k, 0.5), inputs.v, shape, AccuracyOptions{}, {});
    ASSERT_EQ(scaled.measurements.size(), given.measurements.size());
    for (std::size_t p = 0; p < scaled.measurements.size(); ++p) {
        EXPECT_EQ(scaled.measurements[p].family, given.measurements[p].family);
        EXPECT_DOUBLE_EQ(scaled.measurements[p].error, given.measurements[p].error) << scaled.measurements[p].family;
        EXPECT_EQ(scaled.measurements[p].inputScale, 0.5);
    }
}

TEST(AccuracyScale, ScaleSweepMatchesTheBudgetSweepAtThatScale) {
    const std::int64_t n = 64, d = 16;
    const GeneratedInputs inputs = generateInputs(GeneratedKind::Gaussian, 1, n, d, d, 2);
    const ProblemShape shape{1, n, d, d, false};
    AccuracyOptions options;
    options.inputScale = 0.25;
    options.scales = {0.25, 1};
    const AccuracyReport report = measureAccuracy(inputs.q, inputs.k, inputs.v, shape, options, {});
    int compared = 0;
    for (const RegisteredSweep& entry : registeredAccuracySweeps()) {
        const std::vector<std::string> values =
            entry.sweep->budget ? std::vector<std::string>{entry.sweep->scaleBudget} : entry.sweep->values;
        for (const std::string& value : values) {
            if (entry.sweep->atMostN && std::stod(value) > static_cast<double>(n)) continue;
            const AccuracyMeasurement* atScale = find(report.scaleMeasurements, entry.sweep->family, value, 0.25);
            const AccuracyMeasurement* inBudget = find(report.measurements, entry.sweep->family, value, 0.25);
            ASSERT_NE(atScale, nullptr) << entry.sweep->family << " " << value;
            if (!inBudget) continue; // the fixed budget need not be one of the sweep's values
            EXPECT_DOUBLE_EQ(atScale->error, inBudget->error) << entry.sweep->family << " " << value;
            EXPECT_DOUBLE_EQ(atScale->x, 0.25);
            ++compared;
        }
    }
    EXPECT_GE(compared, 4);
    EXPECT_NE(find(report.scaleMeasurements, "performer", "256", 1.0), nullptr);
}

// FAVOR+'s estimator has a variance that grows like exp(‖q‖² + ‖k‖²): with unit Gaussian Q, K and d = 64
// it is far off at any m, with Q, K × 1/4 close.
TEST(AccuracyScale, PerformerWorksForSmallLogitsAndBreaksForLargeOnes) {
    const std::int64_t n = 256, d = 64;
    const GeneratedInputs inputs = generateInputs(GeneratedKind::Gaussian, 1, n, d, d, 0);
    const ProblemShape shape{1, n, d, d, false};
    AccuracyOptions options;
    options.scales = {0.25, 1};
    const AccuracyReport report = measureAccuracy(inputs.q, inputs.k, inputs.v, shape, options, {});
    const AccuracyMeasurement* unit = find(report.scaleMeasurements, "performer", "256", 1.0);
    const AccuracyMeasurement* quarter = find(report.scaleMeasurements, "performer", "256", 0.25);
    ASSERT_TRUE(unit && quarter);
    EXPECT_GT(unit->error, 1.0);
    EXPECT_LT(quarter->error, 0.1);
    // More features help only a little at s = 1.
    const AccuracyMeasurement* few = find(report.measurements, "performer", "16", 1.0);
    const AccuracyMeasurement* many = find(report.measurements, "performer", "4096", 1.0);
    ASSERT_TRUE(few && many);
    EXPECT_GT(many->error, 0.3 * few->error);
    EXPECT_LT(many->error, few->error);
}

// ‖W_elu − W_softmax‖_F / ‖W_softmax‖_F in double precision from the formulas, bidirectional.
double eluWeightsError(const GeneratedInputs& inputs) {
    const Tensor3 &q = inputs.q, &k = inputs.k;
    const auto phi = [](double x) { return x > 0 ? x + 1 : std::exp(x); };
    double difference = 0, norm = 0;
    for (std::int64_t i = 0; i < q.rows; ++i) {
        std::vector<double> softmax(static_cast<std::size_t>(k.rows)), kernel(static_cast<std::size_t>(k.rows));
        double top = -std::numeric_limits<double>::infinity(), softmaxSum = 0, kernelSum = 0;
        for (std::int64_t j = 0; j < k.rows; ++j) {
            double dot = 0, feature = 0;
            for (std::int64_t c = 0; c < q.cols; ++c) {
                dot += static_cast<double>(q.at(0, i, c)) * k.at(0, j, c);
                feature += phi(q.at(0, i, c)) * phi(k.at(0, j, c));
            }
            softmax[j] = dot / std::sqrt(static_cast<double>(q.cols));
            kernel[j] = feature;
            top = std::max(top, softmax[j]);
        }
        for (std::int64_t j = 0; j < k.rows; ++j) {
            softmax[j] = std::exp(softmax[j] - top);
            softmaxSum += softmax[j];
            kernelSum += kernel[j];
        }
        for (std::int64_t j = 0; j < k.rows; ++j) {
            const double exact = softmax[j] / softmaxSum, linear = kernel[j] / kernelSum;
            difference += (linear - exact) * (linear - exact);
            norm += exact * exact;
        }
    }
    return std::sqrt(difference / norm);
}

TEST(AccuracyMeasure, WeightsErrorOfLinearAttentionMatchesTheFormula) {
    const std::int64_t n = 64, d = 8;
    const GeneratedInputs inputs = generateInputs(GeneratedKind::Gaussian, 1, n, d, d, 9);
    const ProblemShape shape{1, n, d, d, false};
    AccuracyOptions options;
    options.measure = AccuracyMeasure::Weights;
    const AccuracyReport weights = measureAccuracy(inputs.q, inputs.k, inputs.v, shape, options, {});
    const AccuracyReport outputs = measureAccuracy(inputs.q, inputs.k, inputs.v, shape, AccuracyOptions{}, {});
    const AccuracyMeasurement* elu = find(weights.measurements, "linear", "elu", 1.0);
    ASSERT_NE(elu, nullptr);
    const double expected = eluWeightsError(inputs);
    EXPECT_NEAR(elu->error, expected, 1e-4 * expected);
    EXPECT_NE(elu->error, find(outputs.measurements, "linear", "elu", 1.0)->error) << "a different measure";
    // Pooling with k = n is exact for the weights as well.
    const AccuracyMeasurement* pool = find(weights.measurements, "linformer_pool", std::to_string(n), 1.0);
    ASSERT_NE(pool, nullptr);
    EXPECT_LT(pool->error, 1e-5);
}

TEST(AccuracyMeasure, NamesAndBadScales) {
    EXPECT_EQ(accuracyMeasureFromName(accuracyMeasureName(AccuracyMeasure::Weights)), AccuracyMeasure::Weights);
    EXPECT_EQ(accuracyMeasureFromName("output"), AccuracyMeasure::Output);
    EXPECT_THROW(accuracyMeasureFromName("kl"), InputError);
    const GeneratedInputs inputs = generateInputs(GeneratedKind::Gaussian, 1, 8, 4, 4, 0);
    AccuracyOptions options;
    options.inputScale = 0;
    EXPECT_THROW(measureAccuracy(inputs.q, inputs.k, inputs.v, ProblemShape{1, 8, 4, 4, false}, options, {}), InputError);
}

} // namespace
} // namespace attnlab
