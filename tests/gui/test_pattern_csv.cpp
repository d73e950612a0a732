// The pattern figure's CSV from the real executable, read back as a spreadsheet reads it: the mask rows
// and the weights matrix labelled with the tokens (quoted where a token needs it), indices when the
// tokens do not label the axes, and weights that are the softmax of the given Q and K over the allowed keys.

#include "gui/csv_table.h"
#include "gui/figure_command_fixture.h"
#include "test_cli_harness.h"

#include <gtest/gtest.h>

#include <cmath>

namespace attnlab {
namespace {

using guitest::CsvTable;
using guitest::readCsv;

const QStringList kMaskHeader = {"panel", "variant", "query_i", "query_token", "allowed_count", "allowed_ranges"};
const QStringList kWords = {"The", "cat", "sat", "on", "the", "mat"};

// Longformer with window 2 (r = 1), bidirectional: key j is allowed for query i iff |i − j| ≤ 1.
bool bandOfOne(int i, int j) { return std::abs(i - j) <= 1; }

class PatternCsvTest : public FigureCommandTest {
protected:
    CsvTable exported(QStringList arguments, const QString& name) {
        arguments << QStringLiteral("-o") << path(name);
        const ProcessRun result = run(arguments);
        EXPECT_EQ(result.exitCode, 0) << result.err.toStdString();
        return readCsv(QString::fromUtf8(readAll(path(name))));
    }

    // Q, K and V of one head (n × d, float32) written as NPY files; returns the figure's input options.
    QStringList writeInputs(int n, int d) {
        q = clitest::gaussianValues(static_cast<std::size_t>(n * d), 11);
        k = clitest::gaussianValues(static_cast<std::size_t>(n * d), 12);
        const std::vector<float> v = clitest::gaussianValues(static_cast<std::size_t>(n * d), 13);
        clitest::writeNpy(path(QStringLiteral("q.npy")).toStdString(), {n, d}, q);
        clitest::writeNpy(path(QStringLiteral("k.npy")).toStdString(), {n, d}, k);
        clitest::writeNpy(path(QStringLiteral("v.npy")).toStdString(), {n, d}, v);
        return {"--q", path(QStringLiteral("q.npy")), "--k", path(QStringLiteral("k.npy")), "--v", path(QStringLiteral("v.npy"))};
    }

    // softmax_j(q_i · k_j / √d) over the keys `allowed(i, j)`, in double precision.
    std::vector<double> expectedWeights(int n, int d, bool (*allowed)(int, int)) const {
        std::vector<double> weights(static_cast<std::size_t>(n * n), 0.0);
        for (int i = 0; i < n; ++i) {
            std::vector<double> logits(static_cast<std::size_t>(n), -INFINITY);
            double largest = -INFINITY;
            for (int j = 0; j < n; ++j) {
                if (!allowed(i, j)) continue;
                double dot = 0;
                for (int c = 0; c < d; ++c) dot += double(q[static_cast<std::size_t>(i * d + c)]) * k[static_cast<std::size_t>(j * d + c)];
                logits[static_cast<std::size_t>(j)] = dot / std::sqrt(double(d));
                largest = std::max(largest, logits[static_cast<std::size_t>(j)]);
            }
            double sum = 0;
            for (int j = 0; j < n; ++j) sum += allowed(i, j) ? std::exp(logits[static_cast<std::size_t>(j)] - largest) : 0.0;
            for (int j = 0; j < n; ++j)
                if (allowed(i, j)) weights[static_cast<std::size_t>(i * n + j)] = std::exp(logits[static_cast<std::size_t>(j)] - largest) / sum;
        }
        return weights;
    }

    std::vector<float> q, k;
};

TEST_F(PatternCsvTest, MaskRowsCarryTheQueryTokenBesideTheIndex) {
    const CsvTable table = exported({"figure", "pattern", "--variant", "longformer", "--set", "window=2", "--n", "6", "--tokens",
                                     kWords.join(' ')},
                                    QStringLiteral("mask.csv"));
    EXPECT_EQ(table.header, kMaskHeader);
    ASSERT_EQ(table.rows.size(), 6u);
    for (int i = 0; i < 6; ++i) {
        const QStringList& row = table.rows[static_cast<std::size_t>(i)];
        ASSERT_EQ(row.size(), kMaskHeader.size());
        EXPECT_EQ(row[0], QStringLiteral("1"));
        EXPECT_EQ(row[1], QStringLiteral("longformer"));
        EXPECT_EQ(row[2].toInt(), i);
        EXPECT_EQ(row[3], kWords[i]);
        const int first = std::max(0, i - 1), last = std::min(5, i + 1);
        EXPECT_EQ(row[4].toInt(), last - first + 1);
        EXPECT_EQ(row[5], QStringLiteral("%1-%2").arg(first).arg(last));
    }
}

TEST_F(PatternCsvTest, WeightsAreAMatrixWithTheTokensAsRowAndColumnLabels) {
    constexpr int n = 6, d = 4;
    QStringList arguments = {"figure", "pattern", "--variant", "longformer", "--set", "window=2", "--weights", "--tokens", kWords.join(' ')};
    arguments << writeInputs(n, d);
    const CsvTable table = exported(arguments, QStringLiteral("weights.csv"));
    EXPECT_EQ(table.header, QStringList({"panel", "variant", "query_i", "query_token"}) + kWords);
    ASSERT_EQ(table.rows.size(), static_cast<std::size_t>(n));
    const std::vector<double> expected = expectedWeights(n, d, bandOfOne);
    for (int i = 0; i < n; ++i) {
        SCOPED_TRACE(i);
        const QStringList& row = table.rows[static_cast<std::size_t>(i)];
        ASSERT_EQ(row.size(), 4 + n);
        EXPECT_EQ(row[2].toInt(), i);
        EXPECT_EQ(row[3], kWords[i]);
        for (int j = 0; j < n; ++j) {
            const QString& cell = row[4 + j];
            if (!bandOfOne(i, j)) {
                EXPECT_TRUE(cell.isEmpty()) << "masked key " << j << " holds '" << cell.toStdString() << "'";
                continue;
            }
            bool ok = false;
            const double weight = cell.toDouble(&ok);
            ASSERT_TRUE(ok) << "key " << j << ": '" << cell.toStdString() << "'";
            EXPECT_NEAR(weight, expected[static_cast<std::size_t>(i * n + j)], 1e-5) << "key " << j;
        }
    }
}

TEST_F(PatternCsvTest, TokensWithCommasQuotesAndChineseStayInTheirCells) {
    const QStringList words = {"a,b", "\"q\"", "x=1", "猫", "垫子", "end"};
    const CsvTable mask = exported({"figure", "pattern", "--variant", "longformer", "--set", "window=2", "--n", "6", "--tokens", words.join(' ')},
                                   QStringLiteral("mask.csv"));
    ASSERT_EQ(mask.rows.size(), 6u);
    for (int i = 0; i < 6; ++i) {
        ASSERT_EQ(mask.rows[static_cast<std::size_t>(i)].size(), kMaskHeader.size()) << "row " << i << " has a split cell";
        EXPECT_EQ(mask.rows[static_cast<std::size_t>(i)][3], words[i]);
    }
    const CsvTable weights = exported({"figure", "pattern", "--variant", "longformer", "--set", "window=2", "--n", "6", "--weights",
                                       "--tokens", words.join(' ')},
                                      QStringLiteral("weights.csv"));
    EXPECT_EQ(weights.header, QStringList({"panel", "variant", "query_i", "query_token"}) + words);
    for (const QStringList& row : weights.rows) EXPECT_EQ(row.size(), 4 + 6);
}

TEST_F(PatternCsvTest, WithoutOneTokenPerPositionTheCsvShowsIndices) {
    // Six words for n = 7: the axes show indices, and so does the CSV.
    const CsvTable mask = exported({"figure", "pattern", "--variant", "longformer", "--set", "window=2", "--n", "7", "--tokens", kWords.join(' ')},
                                   QStringLiteral("mask.csv"));
    ASSERT_EQ(mask.rows.size(), 7u);
    for (const QStringList& row : mask.rows) EXPECT_EQ(row.value(3), QString()) << "query " << row.value(2).toStdString();
    const CsvTable weights = exported({"figure", "pattern", "--variant", "longformer", "--set", "window=2", "--n", "7", "--weights",
                                       "--tokens", kWords.join(' ')},
                                      QStringLiteral("weights.csv"));
    QStringList header = {"panel", "variant", "query_i", "query_token"};
    for (int j = 0; j < 7; ++j) header << QStringLiteral("key_%1").arg(j);
    EXPECT_EQ(weights.header, header);
}

TEST_F(PatternCsvTest, ComparedPanelsAreNumberedInDrawingOrder) {
    constexpr int n = 6;
    const CsvTable table = exported({"figure", "pattern", "--compare", "full,longformer", "--set", "window=2", "--n", "6", "--weights",
                                     "--tokens", kWords.join(' ')},
                                    QStringLiteral("compare.csv"));
    ASSERT_EQ(table.rows.size(), 2u * n);
    for (int r = 0; r < 2 * n; ++r) {
        const QStringList& row = table.rows[static_cast<std::size_t>(r)];
        const int panel = r / n + 1, i = r % n;
        EXPECT_EQ(row[0].toInt(), panel);
        EXPECT_EQ(row[1], panel == 1 ? QStringLiteral("full") : QStringLiteral("longformer"));
        EXPECT_EQ(row[3], kWords[i]);
        // Each row of W is a distribution over its allowed keys; full attention allows every key.
        double sum = 0;
        for (int j = 0; j < n; ++j) {
            const bool allowed = panel == 1 || bandOfOne(i, j);
            EXPECT_EQ(row[4 + j].isEmpty(), !allowed) << "panel " << panel << " query " << i << " key " << j;
            sum += row[4 + j].toDouble();
        }
        EXPECT_NEAR(sum, 1.0, 1e-5) << "panel " << panel << " query " << i;
    }
}

} // namespace
} // namespace attnlab
