#pragma once

// What the timing-view tests share: the figure's CSV read back as rows, the settings of a sweep, the event
// loop run until a condition holds, and a fixture that shows a TimingView so it measures.

#include "gui/csv_table.h"
#include "views/figures/figure_export.h"
#include "views/figures/timing_view.h"

#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QElapsedTimer>
#include <QEventLoop>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace attnlab::timingviewtest {

inline constexpr int kSweepTimeoutMs = 60000;

// One CSV row as column name → text.
using CsvRow = std::map<std::string, std::string>;

inline std::vector<CsvRow> parseCsv(const QString& text) {
    const guitest::CsvTable table = guitest::readCsv(text);
    std::vector<CsvRow> rows;
    for (const QStringList& cells : table.rows) {
        EXPECT_EQ(cells.size(), table.header.size()) << cells.join(QLatin1Char(',')).toStdString();
        CsvRow row;
        for (qsizetype c = 0; c < std::min(cells.size(), table.header.size()); ++c)
            row[table.header[c].toStdString()] = cells[c].toStdString();
        rows.push_back(row);
    }
    return rows;
}

inline double number(const CsvRow& row, const std::string& column) {
    const auto found = row.find(column);
    if (found == row.end() || found->second.empty()) return std::nan("");
    return std::stod(found->second);
}

// Rows of one series keyed by n.
inline std::map<std::int64_t, CsvRow> seriesRows(const std::vector<CsvRow>& rows, const std::string& series) {
    std::map<std::int64_t, CsvRow> found;
    for (const CsvRow& row : rows)
        if (row.at("series") == series) found[static_cast<std::int64_t>(number(row, "n"))] = row;
    return found;
}

inline LabSettings sweepSettings(std::vector<std::string> variants, std::int64_t maxN, int heads = 1,
                                 std::int64_t d = 64) {
    LabSettings settings;
    settings.variant = variants.front();
    if (variants.size() > 1) settings.compareVariants = variants;
    settings.heads = heads;
    settings.d = d;
    settings.timingMaxN = maxN;
    return settings;
}

// Runs the event loop until `done` holds or the timeout passes; false on timeout.
template <class Predicate> bool processUntil(Predicate done, int timeoutMs) {
    QElapsedTimer clock;
    clock.start();
    while (!done()) {
        if (clock.elapsed() > timeoutMs) return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 5);
    }
    return true;
}

// A view on the offscreen platform: shown, so it measures.
class TimingViewTest : public ::testing::Test {
  protected:
    void SetUp() override {
        view.setAttribute(Qt::WA_DontShowOnScreen);
        view.resize(900, 600);
    }
    void measure(const LabSettings& settings) {
        view.setSettings(settings);
        view.show();
        ASSERT_TRUE(waitUntilIdle({&view}, kSweepTimeoutMs)) << "sweep did not finish";
    }

    TimingView view;
};

} // namespace attnlab::timingviewtest
