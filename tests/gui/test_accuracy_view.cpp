// The accuracy view: the errors of the approximations against exact softmax attention (the linear
// kernel's recomputed here in double precision), causal mode without bidirectional Linformer, what
// recomputes, and the input scale and error measure in every row.

#include "gui/csv_table.h"
#include "views/figures/accuracy_view.h"
#include "views/figures/figure_export.h"

#include "core/random/input_generator.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <string>
#include <vector>

namespace attnlab {
namespace {

using guitest::CsvRecord;
using guitest::csvRows;
using guitest::number;

constexpr int kIdleTimeoutMs = 120000;

const QStringList kAccuracyColumns = {"panel",         "family", "parameter", "value",     "input_scale",
                                     "error_measure", "relative_error", "seeds", "min_error", "max_error"};

LabSettings accuracySettings(bool causal) {
    LabSettings settings;
    settings.n = 128;
    settings.d = 16;
    settings.heads = 2;
    settings.causal = causal;
    settings.source = InputSource::RandomGaussian;
    settings.inputSeed = 1;
    settings.accuracyInputScale = 1.0; // the double-precision references below take the inputs unscaled
    return settings;
}

// Exact softmax attention and linear attention with φ = elu + 1, bidirectional, in double precision
// from the spec's formulas; returns ‖elu − softmax‖_F / ‖softmax‖_F over all heads.
double eluErrorInDouble(const GeneratedInputs& inputs) {
    const Tensor3 &q = inputs.q, &k = inputs.k, &v = inputs.v;
    const auto phi = [](double x) { return x > 0 ? x + 1 : std::exp(x); };
    double difference = 0, norm = 0;
    for (int h = 0; h < q.heads; ++h)
        for (std::int64_t i = 0; i < q.rows; ++i) {
            std::vector<double> scores(static_cast<std::size_t>(k.rows)), kernel(static_cast<std::size_t>(k.rows));
            double top = -std::numeric_limits<double>::infinity();
            for (std::int64_t j = 0; j < k.rows; ++j) {
                double dot = 0, feature = 0;
                for (std::int64_t c = 0; c < q.cols; ++c) {
                    dot += static_cast<double>(q.at(h, i, c)) * k.at(h, j, c);
                    feature += phi(q.at(h, i, c)) * phi(k.at(h, j, c));
                }
                scores[j] = dot / std::sqrt(static_cast<double>(q.cols));
                kernel[j] = feature;
                top = std::max(top, scores[j]);
            }
            double softmaxSum = 0, kernelSum = 0;
            for (std::int64_t j = 0; j < k.rows; ++j) {
                scores[j] = std::exp(scores[j] - top);
                softmaxSum += scores[j];
                kernelSum += kernel[j];
            }
            for (std::int64_t c = 0; c < v.cols; ++c) {
                double exact = 0, linear = 0;
                for (std::int64_t j = 0; j < k.rows; ++j) {
                    exact += scores[j] * v.at(h, j, c);
                    linear += kernel[j] * v.at(h, j, c);
                }
                exact /= softmaxSum;
                linear /= kernelSum;
                difference += (linear - exact) * (linear - exact);
                norm += exact * exact;
            }
        }
    return std::sqrt(difference / norm);
}

// The values a variant declares for its sweep `family` (VariantInfo::accuracySweeps).
std::vector<std::string> sweepValues(const char* family) {
    for (const RegisteredSweep& entry : registeredAccuracySweeps())
        if (entry.sweep->family == family) return entry.sweep->values;
    ADD_FAILURE() << "no accuracy sweep " << family;
    return {};
}

std::size_t linformerCount(std::int64_t n) {
    const auto values = sweepValues("linformer_gaussian");
    return static_cast<std::size_t>(std::count_if(values.begin(), values.end(), [n](const std::string& k) { return std::stoll(k) <= n; }));
}

class AccuracyViewTest : public ::testing::Test {
protected:
    void SetUp() override { view.show(); }

    // The rows of `panel` ("budget": each method's budget sweep; "scale": the error-vs-scale panel).
    std::vector<CsvRecord> show(const LabSettings& settings, const char* panel = "budget") {
        view.setSettings(settings);
        EXPECT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs)) << "the accuracy view stayed busy";
        return rowsOf(panel);
    }

    std::vector<CsvRecord> rowsOf(const char* panel) const {
        std::vector<CsvRecord> selected;
        for (const auto& row : csvRows(view.csvData(), kAccuracyColumns))
            if (row.at("panel") == QLatin1String(panel)) selected.push_back(row);
        return selected;
    }

    static std::vector<CsvRecord> family(const std::vector<CsvRecord>& rows, const char* name) {
        std::vector<CsvRecord> selected;
        for (const auto& row : rows)
            if (row.at("family") == QLatin1String(name)) selected.push_back(row);
        return selected;
    }

    AccuracyView view;
};

TEST_F(AccuracyViewTest, ErrorsAgainstExactSoftmaxOnGaussianInputs) {
    const LabSettings settings = accuracySettings(false);
    const auto rows = show(settings);
    const std::size_t kept = linformerCount(settings.n);
    EXPECT_LT(kept, sweepValues("linformer_gaussian").size()) << "the test should see a k > n left out";
    EXPECT_EQ(rows.size(), sweepValues("performer").size() + 2 * kept + sweepValues("lsh").size() + sweepValues("linear").size());
    for (const auto& row : rows) {
        EXPECT_NE(row.at("family"), QStringLiteral("full")) << "exact attention is the reference, not a measurement";
        EXPECT_TRUE(std::isfinite(number(row, "relative_error")));
        EXPECT_LE(number(row, "min_error"), number(row, "relative_error"));
        EXPECT_GE(number(row, "max_error"), number(row, "relative_error"));
    }

    const auto performer = family(rows, "performer");
    const auto features = sweepValues("performer");
    ASSERT_EQ(performer.size(), features.size());
    EXPECT_EQ(performer.front().at("value").toStdString(), features.front());
    EXPECT_EQ(performer.back().at("value").toStdString(), features.back());
    EXPECT_LT(number(performer.back(), "relative_error"), number(performer.front(), "relative_error"));
    EXPECT_EQ(number(performer.front(), "seeds"), kAccuracySeeds);

    // Pooling with k = n averages single keys: it is exact attention up to float32 rounding.
    for (const auto& row : family(rows, "linformer_pool")) {
        if (row.at("value").toLongLong() == settings.n) {
            EXPECT_LT(number(row, "relative_error"), 1e-5);
        } else {
            EXPECT_GT(number(row, "relative_error"), 1e-3);
        }
    }
    EXPECT_EQ(family(rows, "lsh").size(), sweepValues("lsh").size());

    const auto linear = family(rows, "linear");
    ASSERT_EQ(linear.size(), sweepValues("linear").size());
    for (const auto& row : linear) EXPECT_GT(number(row, "relative_error"), 0.0) << row.at("value").toStdString();
    const GeneratedInputs inputs = generateInputs(GeneratedKind::Gaussian, settings.heads, settings.n, settings.d, settings.d,
                                                  settings.inputSeed);
    const double elu = number(linear.front(), "relative_error");
    EXPECT_EQ(linear.front().at("value"), QStringLiteral("elu"));
    EXPECT_NEAR(elu, eluErrorInDouble(inputs), 1e-4 * elu);
}

// The view opens where the random-feature methods change regime: at the default input scale performer's
// error falls with its features (to under a third from m = 16 to m = 4096); at s = 1 it stays flat, near
// the error of an all-zero output.
TEST_F(AccuracyViewTest, OpensOnTheRegimeChange) {
    LabSettings settings;
    const auto opening = family(show(settings), "performer");
    ASSERT_GE(opening.size(), 2u);
    EXPECT_LT(number(opening.back(), "relative_error"), 0.3 * number(opening.front(), "relative_error"))
        << "s = " << settings.accuracyInputScale;
    settings.accuracyInputScale = 1.0;
    const auto flat = family(show(settings), "performer");
    ASSERT_GE(flat.size(), 2u);
    EXPECT_GT(number(flat.back(), "relative_error"), 0.6 * number(flat.front(), "relative_error"));
    EXPECT_GT(number(flat.back(), "relative_error"), 0.5);
}

TEST_F(AccuracyViewTest, CausalAttentionLeavesOutBidirectionalLinformer) {
    const auto rows = show(accuracySettings(true));
    EXPECT_TRUE(family(rows, "linformer_gaussian").empty());
    EXPECT_TRUE(family(rows, "linformer_pool").empty());
    EXPECT_EQ(rows.size(), sweepValues("performer").size() + sweepValues("lsh").size() + sweepValues("linear").size());
}

TEST_F(AccuracyViewTest, OnlyInputChangesRecompute) {
    LabSettings settings = accuracySettings(false);
    const auto before = show(settings);
    settings.variant = "longformer";
    settings.layers = 7;
    view.setSettings(settings);
    EXPECT_FALSE(view.busy()) << "the variant does not change the inputs or the reference";
    settings.inputSeed = 2;
    view.setSettings(settings);
    EXPECT_TRUE(view.busy());
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    const auto after = rowsOf("budget");
    ASSERT_EQ(after.size(), before.size());
    EXPECT_NE(after.front().at("relative_error"), before.front().at("relative_error")) << "new inputs, new errors";
}

// The input scale and the error measure recompute, are stated in every row, and the scale panel holds
// each method at its fixed budget for every scale.
TEST_F(AccuracyViewTest, InputScaleAndErrorMeasure) {
    LabSettings settings = accuracySettings(false);
    settings.accuracyInputScale = 0.25;
    const auto quarter = show(settings);
    ASSERT_FALSE(quarter.empty());
    for (const auto& row : quarter) {
        EXPECT_DOUBLE_EQ(number(row, "input_scale"), 0.25);
        EXPECT_EQ(row.at("error_measure"), QStringLiteral("output"));
    }
    const auto scale = rowsOf("scale");
    for (const double s : kAccuracyScales) {
        const auto atScale = std::count_if(scale.begin(), scale.end(), [&](const auto& row) {
            return row.at("family") == QLatin1String("performer") && number(row, "input_scale") == s;
        });
        EXPECT_EQ(atScale, 1) << "performer at its fixed budget for s = " << s;
    }
    settings.accuracyOnWeights = true;
    view.setSettings(settings);
    EXPECT_TRUE(view.busy()) << "the error measure changes what is computed";
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    for (const auto& row : rowsOf("budget")) EXPECT_EQ(row.at("error_measure"), QStringLiteral("weights"));
    EXPECT_TRUE(view.caption().contains(QStringLiteral("W_full"))) << view.caption().toStdString();
}

} // namespace
} // namespace attnlab
