// The receptive-field and accuracy views: their CSV against core computed here independently, the
// heatmap's pixels against the hop matrix, the seed's reach formulas, compare mode, sampled queries for
// long sequences, stale jobs dropped on a settings change, and the errors of the approximations against
// exact softmax attention, with the linear kernel's recomputed in double precision.

#include "views/figures/accuracy_view.h"
#include "views/plot/colormap.h"
#include "views/figures/figure_export.h"
#include "views/figures/reach_snapshot.h"
#include "views/figures/receptive_field_view.h"

#include "core/input_generator.h"
#include "core/receptive_field.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QImage>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <memory>
#include <string>
#include <vector>

namespace attnlab {
namespace {

constexpr int kIdleTimeoutMs = 120000;

bool sameColor(QRgb a, QRgb b, int tolerance = 2) {
    return std::abs(qRed(a) - qRed(b)) <= tolerance && std::abs(qGreen(a) - qGreen(b)) <= tolerance &&
           std::abs(qBlue(a) - qBlue(b)) <= tolerance;
}

std::string colorText(QRgb c) { return QColor(c).name().toStdString(); }

// Fields of one CSV line; a field in double quotes may hold commas.
QStringList csvFields(const QString& line) {
    QStringList fields{QString()};
    bool quoted = false;
    for (const QChar c : line) {
        if (c == QLatin1Char('"'))
            quoted = !quoted;
        else if (c == QLatin1Char(',') && !quoted)
            fields << QString();
        else
            fields.last() += c;
    }
    return fields;
}

// The CSV's rows as column name → text, header checked against `columns`.
std::vector<std::map<QString, QString>> csvRows(const QString& csv, const QStringList& columns) {
    QStringList lines = csv.split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    EXPECT_FALSE(lines.isEmpty());
    if (lines.isEmpty()) return {};
    EXPECT_EQ(csvFields(lines.takeFirst()), columns);
    std::vector<std::map<QString, QString>> rows;
    for (const QString& line : lines) {
        const QStringList fields = csvFields(line);
        EXPECT_EQ(fields.size(), columns.size()) << line.toStdString();
        std::map<QString, QString> row;
        for (qsizetype c = 0; c < std::min(fields.size(), columns.size()); ++c) row[columns[c]] = fields[c];
        rows.push_back(std::move(row));
    }
    return rows;
}

double number(const std::map<QString, QString>& row, const char* column) {
    bool ok = false;
    const double value = row.at(QString::fromLatin1(column)).toDouble(&ok);
    EXPECT_TRUE(ok) << column << " = " << row.at(QString::fromLatin1(column)).toStdString();
    return value;
}

LabSettings reachSettings(const std::string& variant, std::int64_t n, int layers, bool causal, ParamOverrides params = {}) {
    LabSettings settings;
    settings.variant = variant;
    settings.params = std::move(params);
    settings.n = n;
    settings.layers = layers;
    settings.causal = causal;
    return settings;
}

std::unique_ptr<Pattern> corePattern(const LabSettings& settings, const VariantChoice& choice) {
    const VariantInfo& variant = requireVariant(choice.variant);
    const ProblemShape shape = problemShape(settings, variant);
    return buildPattern(variant, shape, prepareParams(variant, shape, choice.params));
}

const QStringList kReachColumns = {"layer", "variant", "params", "fraction_reachable", "mean_reach", "max_reach", "sources"};
const QStringList kAccuracyColumns = {"panel",         "family", "parameter", "value",     "input_scale",
                                     "error_measure", "relative_error", "seeds", "min_error", "max_error"};

// The CSV rows of one variant must be the core's reach curve for its pattern, value for value.
void expectCurveRows(const std::vector<std::map<QString, QString>>& rows, const std::string& variant, const ReachCurve& curve) {
    std::vector<std::map<QString, QString>> own;
    for (const auto& row : rows)
        if (row.at("variant") == QString::fromStdString(variant)) own.push_back(row);
    ASSERT_EQ(own.size(), curve.fractionReachable.size()) << variant;
    for (std::size_t l = 0; l < own.size(); ++l) {
        EXPECT_EQ(number(own[l], "layer"), static_cast<double>(l));
        EXPECT_EQ(number(own[l], "fraction_reachable"), curve.fractionReachable[l]) << variant << " l=" << l;
        EXPECT_EQ(number(own[l], "mean_reach"), curve.meanReachDistance[l]) << variant << " l=" << l;
        EXPECT_EQ(number(own[l], "max_reach"), curve.maxReachDistance[l]) << variant << " l=" << l;
        EXPECT_EQ(number(own[l], "sources"), static_cast<double>(curve.sources.size())) << variant;
    }
}

class ReceptiveFieldViewTest : public ::testing::Test {
protected:
    // Views work only while visible: the view is shown (offscreen) before any settings arrive.
    void SetUp() override { view.show(); }

    void show(const LabSettings& settings) {
        view.setSettings(settings);
        ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs)) << "the receptive field view stayed busy";
    }

    ReceptiveFieldView view;
};

TEST_F(ReceptiveFieldViewTest, LongformerReachGrowsByHalfTheWindowPerLayer) {
    const std::int64_t n = 200, window = 6, radius = window / 2;
    const int layers = 5;
    const LabSettings settings = reachSettings("longformer", n, layers, false, {{"window", std::to_string(window)}});
    show(settings);
    const auto rows = csvRows(view.csvData(), kReachColumns);
    ASSERT_EQ(rows.size(), static_cast<std::size_t>(layers + 1));
    EXPECT_TRUE(rows[0].at("params").contains(QStringLiteral("window=6"))) << rows[0].at("params").toStdString();

    const auto pattern = corePattern(settings, chosenVariants(settings).front());
    expectCurveRows(rows, "longformer", reachCurve(*pattern, layers, n));
    for (int l = 0; l <= layers; ++l) {
        // Bidirectional window r: (i, j) is within l hops iff |i − j| ≤ l·r; the farthest reach is l·r.
        const std::int64_t span = l * radius;
        double pairs = static_cast<double>(n);
        for (std::int64_t t = 1; t <= span; ++t) pairs += 2.0 * static_cast<double>(n - t);
        EXPECT_DOUBLE_EQ(number(rows[l], "fraction_reachable"), pairs / static_cast<double>(n * n)) << "l=" << l;
        EXPECT_EQ(number(rows[l], "max_reach"), static_cast<double>(span)) << "l=" << l;
    }
    LabSettings display = settings;
    display.flopsAsMacs = false;
    display.showWeights = true;
    view.setSettings(display);
    EXPECT_FALSE(view.busy()) << "display options of other views do not change the reach";
    display.layers = layers + 1;
    view.setSettings(display);
    EXPECT_TRUE(view.busy());
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    EXPECT_EQ(csvRows(view.csvData(), kReachColumns).size(), static_cast<std::size_t>(layers + 2));
}

TEST_F(ReceptiveFieldViewTest, CausalHeatmapPixelsAreTheHopMatrix) {
    const std::int64_t n = 64;
    const int layers = 3;
    const LabSettings settings = reachSettings("longformer", n, layers, true, {{"window", "8"}});
    show(settings);
    const HopMatrix hops = hopMatrix(*corePattern(settings, chosenVariants(settings).front()), layers);

    const QSizeF size(900, 600);
    const QImage image = renderFigure(view, size, 96);
    ASSERT_EQ(image.size(), size.toSize());
    const QRectF rect(QPointF(0, 0), size);
    const QRectF plot = view.heatmapRect(rect, 0);
    ASSERT_GT(plot.width() / static_cast<double>(n), 3.0) << "cells too small to sample their centres";
    std::vector<int> seen(layers + 2, 0);
    for (std::int64_t i = 0; i < n; ++i)
        for (std::int64_t j = 0; j < n; ++j) {
            const QPointF centre(plot.left() + (static_cast<double>(j) + 0.5) * plot.width() / static_cast<double>(n),
                                 plot.top() + (static_cast<double>(i) + 0.5) * plot.height() / static_cast<double>(n));
            const QRgb pixel = image.pixel(static_cast<int>(centre.x()), static_cast<int>(centre.y()));
            const int expected = hops.at(i, j);
            ++seen[expected];
            if (j > i) {
                ASSERT_EQ(expected, layers + 1) << "causal: j > i is never reachable";
            }
            ASSERT_TRUE(sameColor(pixel, ReceptiveFieldView::hopColor(expected, layers)))
                << "(" << i << ", " << j << ") hops " << expected << ": " << colorText(pixel);
            const auto cell = view.cellAt(rect, centre);
            ASSERT_TRUE(cell.has_value());
            EXPECT_EQ(cell->row0, i);
            EXPECT_EQ(cell->col0, j);
            EXPECT_EQ(cell->hops, expected);
        }
    for (int h = 0; h <= layers + 1; ++h) EXPECT_GT(seen[h], 0) << "no cell " << h << " hops away";
    EXPECT_TRUE(sameColor(ReceptiveFieldView::hopColor(layers + 1, layers), emptyCellColor()));
}

TEST_F(ReceptiveFieldViewTest, StridedAndFixedConnectEveryPairWithinTwoLayers) {
    LabSettings settings = reachSettings("strided", 256, 3, false);
    settings.compareVariants = {"strided", "fixed"};
    show(settings);
    EXPECT_EQ(view.panelCount(), 2);
    const auto rows = csvRows(view.csvData(), kReachColumns);
    ASSERT_EQ(rows.size(), 8u);
    for (const auto& choice : chosenVariants(settings)) {
        const auto pattern = corePattern(settings, choice);
        expectCurveRows(rows, choice.variant, reachCurve(*pattern, 3, 256));
        const HopMatrix hops = hopMatrix(*pattern, 3);
        EXPECT_EQ(*std::max_element(hops.hops.begin(), hops.hops.end()), 2) << choice.variant;
    }
    for (const auto& row : rows) {
        if (number(row, "layer") >= 2) {
            EXPECT_EQ(number(row, "fraction_reachable"), 1.0) << row.at("variant").toStdString();
        }
    }
}

TEST_F(ReceptiveFieldViewTest, LongSequencesAreMeasuredOnSampledQueries) {
    const std::int64_t n = 4096;
    const LabSettings settings = reachSettings("longformer", n, 4, false, {{"window", "16"}});
    view.setSettings(settings);
    EXPECT_TRUE(view.busy()) << "the work must run on a worker, not inside setSettings";
    ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
    const auto rows = csvRows(view.csvData(), kReachColumns);
    ASSERT_EQ(rows.size(), 5u);
    EXPECT_EQ(number(rows[0], "sources"), static_cast<double>(ReceptiveFieldView::kSampledQueries));
    expectCurveRows(rows, "longformer", reachCurve(*corePattern(settings, chosenVariants(settings).front()), 4,
                                                   ReceptiveFieldView::kSampledQueries));
    // The heatmap's rows are the sampled queries: the first cell row is query 0, the last query n − 1.
    const QRectF rect(0, 0, 900, 600);
    const QRectF plot = view.heatmapRect(rect, 0);
    const auto first = view.cellAt(rect, plot.topLeft() + QPointF(0.5, 0.5));
    const auto last = view.cellAt(rect, plot.bottomRight() - QPointF(0.5, 0.5));
    ASSERT_TRUE(first && last);
    EXPECT_EQ(first->row0, 0);
    EXPECT_EQ(first->hops, 0);
    EXPECT_EQ(last->row0, n - 1);
    EXPECT_EQ(last->col1, n);
}

// Sampled rows are as many as the heatmap's columns, so a sliding window's diagonal is one unbroken
// line: every sampled query y reaches its own column block in one layer, and so do its neighbours'
// blocks within the window (no dashes between rows).
TEST(ReachSnapshot, DiagonalOfALongSequenceIsUnbroken) {
    const std::int64_t n = 8192;
    const auto snapshot = buildReachSnapshot(reachSettings("longformer", n, 1, false), [] { return false; });
    ASSERT_EQ(snapshot.panels.size(), 1u);
    const auto& panel = snapshot.panels.front();
    ASSERT_TRUE(panel.error.isEmpty()) << panel.error.toStdString();
    ASSERT_TRUE(panel.sampledRows);
    ASSERT_EQ(panel.rows, panel.cols);
    for (int y = 0; y < panel.rows; ++y) {
        const std::int64_t query = sampledRow(y, panel.rows, n);
        const int own = static_cast<int>(query * panel.cols / n);
        EXPECT_EQ(own, y) << "sampled query " << query << " lies in column block " << own;
        EXPECT_LE(panel.cells[static_cast<std::size_t>(y) * panel.cols + own], 1) << "row " << y;
    }
}

TEST_F(ReceptiveFieldViewTest, ASettingsChangeDropsTheEarlierJob) {
    view.setSettings(reachSettings("fixed", 16384, 6, false));
    const LabSettings settings = reachSettings("chunk", 96, 2, false, {{"chunk", "8"}});
    show(settings);
    const auto rows = csvRows(view.csvData(), kReachColumns);
    ASSERT_EQ(rows.size(), 3u);
    for (const auto& row : rows) EXPECT_EQ(row.at("variant"), QStringLiteral("chunk"));
    // A chunk never reaches outside itself: 8 of 96 keys from layer 1 on.
    EXPECT_DOUBLE_EQ(number(rows[2], "fraction_reachable"), 8.0 / 96.0);
}

// ---------------------------------------------------------------------------------------------------
// Accuracy

LabSettings accuracySettings(bool causal) {
    LabSettings settings;
    settings.n = 128;
    settings.d = 16;
    settings.heads = 2;
    settings.causal = causal;
    settings.source = InputSource::RandomGaussian;
    settings.inputSeed = 1;
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
    std::vector<std::map<QString, QString>> show(const LabSettings& settings, const char* panel = "budget") {
        view.setSettings(settings);
        EXPECT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs)) << "the accuracy view stayed busy";
        return rowsOf(panel);
    }

    std::vector<std::map<QString, QString>> rowsOf(const char* panel) const {
        std::vector<std::map<QString, QString>> selected;
        for (const auto& row : csvRows(view.csvData(), kAccuracyColumns))
            if (row.at("panel") == QLatin1String(panel)) selected.push_back(row);
        return selected;
    }

    static std::vector<std::map<QString, QString>> family(const std::vector<std::map<QString, QString>>& rows, const char* name) {
        std::vector<std::map<QString, QString>> selected;
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
