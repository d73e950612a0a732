// Every job plans its memory and multiply-adds before it allocates, by the estimates `run` uses: a job
// over a limit ends in one line and exit 2 with no file, and the peak memory of the refused command stays
// small (it allocated nothing first). `cost` allocates nothing that grows with n.
#include "test_cli_harness.h"

#include <cmath>
#include <cstdlib>
#include <sys/resource.h>

namespace attnlab {
namespace {

using clitest::describe;
using clitest::Outcome;

// Refused or cost-only commands stay within this resident size (the program and its libraries). Under
// AddressSanitizer its shadow memory and quarantine add hundreds of MiB to a process that allocates
// little; the uninstrumented build is the one that holds the commands to the small figure.
#if defined(__SANITIZE_ADDRESS__)
constexpr long kSmallPeakKiB = 1024 * 1024;
#else
constexpr long kSmallPeakKiB = 256 * 1024;
#endif

// The largest resident size of any child this test process has waited for, in KiB. Each test runs in a
// process of its own, so this covers the commands of the current test.
long childrenPeakKiB() {
    struct rusage usage = {};
    ::getrusage(RUSAGE_CHILDREN, &usage);
    return usage.ru_maxrss;
}

class JobBudgetsTest : public clitest::CliTest {
protected:
    void expectRefused(const std::vector<std::string>& args, const std::vector<std::string>& expected) const {
        const Outcome outcome = run(args);
        EXPECT_TRUE(outcome.exited) << describe(args) << " ended by signal " << outcome.signal;
        EXPECT_EQ(outcome.exitCode, 2) << describe(args) << "\n" << outcome.err;
        EXPECT_EQ(outcome.errLines(), 1u) << describe(args) << "\n" << outcome.err;
        for (const auto& piece : expected)
            EXPECT_NE(outcome.err.find(piece), std::string::npos) << describe(args) << ": no '" << piece << "' in\n" << outcome.err;
        EXPECT_LT(childrenPeakKiB(), kSmallPeakKiB) << describe(args);
        EXPECT_TRUE(listing().count("out.npy") == 0 && listing().count("fig.png") == 0) << describe(args) << " wrote its output";
    }
};

TEST_F(JobBudgetsTest, PatternPlansLshHashingByItsRounds) {
    writeArray("q.npy", {16, 4}, clitest::gaussianValues(64, 5));
    expectRefused({"pattern", "--variant", "lsh", "--n", "16", "--set", "rounds=1000000000", "--q", "q.npy", "--out", "out.npy"},
                  {"variant 'lsh'", "over the job budget"});
    // A sane round count still works.
    succeed({"pattern", "--variant", "lsh", "--n", "16", "--set", "rounds=3", "--q", "q.npy", "--out", "out.npy"});
}

TEST_F(JobBudgetsTest, CostAllocatesNothingThatGrowsWithN) {
    for (const auto& variant : clitest::cliVariantIds(true)) {
        const std::vector<std::string> args = {"cost", "--variant", variant, "--decode", "--n", "400000000", "--d", "64", "--heads", "1"};
        succeed(args);
        EXPECT_LT(childrenPeakKiB(), kSmallPeakKiB) << describe(args);
    }
}

// A masked variant's cost keeps no count per row: at n = 10^8 a double per row would be 800 MB.
TEST_F(JobBudgetsTest, AMaskedCostKeepsNoMemoryPerRow) {
    const std::vector<std::string> args = {"cost", "--variant", "chunk", "--n", "100000000", "--d", "64", "--heads", "1", "--json"};
    const auto json = clitest::parseJson(succeed(args).out);
    EXPECT_LT(childrenPeakKiB(), kSmallPeakKiB) << describe(args);
    // Bidirectional chunks of c: n / c blocks of c² pairs (c divides n at its default here, checked by the count).
    const double c = json["terms"]["scores"].get<double>() / 64.0 / 1e8;
    EXPECT_EQ(c, std::round(c));
    EXPECT_EQ(static_cast<std::int64_t>(1e8) % static_cast<std::int64_t>(c), 0);
}

// Counting an expression's cells at the asked n is estimated from a sample of rows first: one with
// many ranges per row and no count runs is refused at once, naming the estimate, the limit and how to
// raise it, and allocates nothing that grows with its rows; under the limit the count is exact.
// (stride(2) alone is counted by runs; `| prefix(0)` adds no cell and no range but takes them away.)
TEST_F(JobBudgetsTest, CountingManyRangesPerRowIsEstimatedAndRefusedFirst) {
    for (const char* n : {"1000000", "2147483647"}) {
        expectRefused({"cost", "--variant", "custom", "--n", n, "--d", "64", "--heads", "1", "--set", "expr=stride(2) | prefix(0)"},
                      {"at n = " + std::string(n), "column ranges of work (estimated from 64 of its rows)",
                       "range limit of 4294967296", "--max-ranges N or ATTNLAB_MAX_RANGES"});
        expectRefused({"cost", "--variant", "custom", "--n", n, "--d", "64", "--heads", "1", "--set", "expr=random(100000,1)",
                       "--block-size", "64"},
                      {"range limit of 4294967296"});
    }
    expectRefused({"pattern", "--variant", "custom", "--n", "4000", "--set", "expr=stride(2) | prefix(0)", "--max-ranges", "1000000", "--out", "out.npy"},
                  {"needs about 8.01e+06 column ranges", "range limit of 1000000"}); // 8e6 ranges, 2 a row of 4000
    // stride(2) at n = 1000: 500 keys per row, each its own range.
    const std::vector<std::string> args = {"cost", "--variant", "custom", "--n", "1000", "--d", "4", "--heads", "1",
                                           "--set", "expr=stride(2) | prefix(0)", "--json"};
    EXPECT_EQ(clitest::parseJson(succeed(args).out)["terms"]["scores"].get<double>(), 1000.0 * 500 * 4);
    std::vector<std::string> tight = args;
    tight.insert(tight.end(), {"--max-ranges", "400000"});
    // 500 ranges in each of 1000 rows, and each row counted one by one two ranges' work of its own.
    expectRefused(tight, {"needs about 5.02e+05 column ranges", "range limit of 400000"});
    tight.back() = "502000";
    EXPECT_EQ(clitest::parseJson(succeed(tight).out)["terms"]["scores"].get<double>(), 1000.0 * 500 * 4);
}

// stride(2) alone is counted by runs of rows of one parity: exact at the largest n, under the default
// range limit and in a small part of a second; n = 2m + 1 rows see m + 1 or m columns.
TEST_F(JobBudgetsTest, AStrideIsCountedInClosedFormAtTheLargestN) {
    const std::vector<std::string> args = {"cost", "--variant", "custom", "--n", "2147483647", "--d", "1", "--heads", "1",
                                           "--set", "expr=stride(2)", "--json"};
    const double m = 1073741823;
    EXPECT_EQ(clitest::parseJson(succeed(args).out)["terms"]["scores"].get<double>(), (m + 1) * (m + 1) + m * m);
    EXPECT_LT(childrenPeakKiB(), kSmallPeakKiB) << describe(args);
}

TEST_F(JobBudgetsTest, BadRangeLimitsAreOneLine) {
    for (const char* bad : {"0", "-1", "abc", "1e9", "+5", " 5", "", "99999999999999999999"})
        expectRefused({"cost", "--variant", "full", "--n", "8", "--d", "4", "--heads", "1", "--max-ranges", bad},
                      {"--max-ranges expects a positive integer", "'" + std::string(bad) + "'"});
    expectRefused({"cost", "--variant", "full", "--n", "8", "--d", "4", "--heads", "1", "--max-ranges"}, {"--max-ranges needs a value"});
    ::setenv("ATTNLAB_MAX_RANGES", "lots", 1);
    expectRefused({"cost", "--variant", "custom", "--n", "8", "--d", "4", "--heads", "1"}, {"ATTNLAB_MAX_RANGES = 'lots'"});
    ::setenv("ATTNLAB_MAX_RANGES", "100", 1);
    expectRefused({"cost", "--variant", "custom", "--n", "1000", "--d", "4", "--heads", "1", "--set", "expr=stride(2) | prefix(0)"},
                  {"range limit of 100 "});
    ::unsetenv("ATTNLAB_MAX_RANGES");
}

TEST_F(JobBudgetsTest, FigurePanelsPlanTheirPatterns) {
#ifndef ATTNLAB_TESTS_WITH_GUI
    GTEST_SKIP() << "attnlab is built without the GUI: no figure command";
#endif
    // At the figure's n = 256 the hashing's work is refused first; at n = 16 its rotations' memory.
    expectRefused({"figure", "pattern", "--panel", "lsh rounds=1000000000", "-o", "fig.png"}, {"variant 'lsh'", "work limit"});
    expectRefused({"figure", "pattern", "--compare", "lsh,full", "--set", "rounds=1000000000", "-o", "fig.png"},
                  {"variant 'lsh'", "work limit"});
    expectRefused({"figure", "pattern", "--n", "16", "--d", "4", "--panel", "lsh rounds=1000000000", "-o", "fig.png"},
                  {"variant 'lsh'", "over the job budget"});
    expectRefused({"figure", "reach", "--variant", "lsh", "--set", "rounds=1000000000", "-o", "fig.png"}, {"variant 'lsh'"});
}

// A pattern figure's CSV lists every range of every row (or every weight): its size is estimated before
// it is built, so a CSV of a billion ranges (every other key of 65,536 rows, about 40 GB of text) is refused
// at once, allocating nothing first, under a budget it would fill for minutes before passing it.
TEST_F(JobBudgetsTest, APatternCsvIsSizedBeforeItIsBuilt) {
#ifndef ATTNLAB_TESTS_WITH_GUI
    GTEST_SKIP() << "attnlab is built without the GUI: no figure command";
#endif
    expectRefused({"figure", "pattern", "--variant", "custom", "--set", "expr=stride(2)", "--n", "65536", "--memory-budget",
                   "2G", "-o", "fig.csv"},
                  {"the pattern figure's CSV (about", "over the job budget"});
    expectRefused({"figure", "pattern", "--n", "2048", "--weights", "--memory-budget", "96M", "-o", "fig.csv"},
                  {"the pattern figure's CSV (about", "over the job budget"});
    EXPECT_TRUE(listing().empty()) << "a file or temporary was left behind";
    // Within the budget the same CSVs are written.
    succeed({"figure", "pattern", "--variant", "custom", "--set", "expr=stride(2)", "--n", "512", "--memory-budget", "64M", "-o", "fig.csv"});
    EXPECT_NE(clitest::readBytes(file("fig.csv")).find("\n1,custom,511,"), std::string::npos);
}

} // namespace
} // namespace attnlab
