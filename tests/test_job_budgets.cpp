// Every job plans its memory and multiply-adds before it allocates, by the estimates `run` uses: a job
// over a limit ends in one line and exit 2 with no file, and the peak memory of the refused command stays
// small (it allocated nothing first). `cost` allocates nothing that grows with n.
#include "test_cli_harness.h"

#include <sys/resource.h>

namespace attnlab {
namespace {

using clitest::describe;
using clitest::Outcome;

// Refused or cost-only commands stay within this resident size (the program and its libraries).
constexpr long kSmallPeakKiB = 256 * 1024;

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

} // namespace
} // namespace attnlab
