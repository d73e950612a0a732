// `attnlab bench` and the job limits: every mode checks each point's memory (against --memory-budget)
// and multiply-adds (against --max-macs) before it allocates or times anything, so an impossible point
// refuses the run at once with the limit and how to raise it; and each mode refuses the options it
// does not take instead of ignoring them (`--targets --dv none`).
#include "test_cli_harness.h"

namespace attnlab {
namespace {

using clitest::describe;
using clitest::Outcome;

class BenchLimitsTest : public clitest::CliTest {
protected:
    // A refusal: non-zero exit, nothing on stdout, one error line holding every piece of `expected`.
    void expectRefused(const std::vector<std::string>& args, const std::vector<std::string>& expected) const {
        std::vector<std::string> full = {"bench"};
        full.insert(full.end(), args.begin(), args.end());
        const Outcome outcome = run(full);
        EXPECT_TRUE(outcome.exited) << describe(full) << " ended by signal " << outcome.signal;
        EXPECT_EQ(outcome.exitCode, 2) << describe(full) << "\n" << outcome.err;
        EXPECT_EQ(outcome.out, "") << describe(full);
        EXPECT_EQ(outcome.errLines(), 1u) << describe(full) << "\n" << outcome.err;
        for (const auto& piece : expected)
            EXPECT_NE(outcome.err.find(piece), std::string::npos) << describe(full) << ": no '" << piece << "' in\n" << outcome.err;
    }
};

TEST_F(BenchLimitsTest, AMillionTokensAreRefusedBeforeAnyAllocation) {
    // Full attention at n = 10^6: about 1.6e15 multiply-adds, over the default work limit of 1e13.
    expectRefused({"--variant", "full", "--n", "1000000"}, {"n=1000000", "work limit", "--max-macs"});
    // Linear attention's work is small, but its inputs and output (12 GB) exceed a 1 GiB budget.
    expectRefused({"--variant", "linear", "--n", "1000000", "--memory-budget", "1G"},
                  {"over the job budget", "--memory-budget"});
    // The first points fit; the last one refuses the run before the first is timed.
    expectRefused({"--variant", "full", "--n", "64,128,1000000"}, {"n=1000000", "work limit"});
    expectRefused({"--variant", "full", "--set", "impl=dense", "--n", "1000000", "--heads", "1", "--d", "8"},
                  {"work limit", "--max-macs"});
}

TEST_F(BenchLimitsTest, LshWithAHugeRoundCountIsRefusedByTheWorkLimit) {
    expectRefused({"--variant", "lsh", "--n", "1024", "--set", "rounds=1000000000"}, {"variant 'lsh'", "work limit"});
    expectRefused({"--roofline", "--variant", "lsh", "--n", "1024", "--set", "rounds=1000000000"}, {"work limit"});
    expectRefused({"--decode", "--variant", "full", "--n", "16777216", "--memory-budget", "64M"},
                  {"decoding step", "over the job budget", "--memory-budget"});
}

TEST_F(BenchLimitsTest, DecodingAndTheTriadPlanTheirMemoryToo) {
    // lsh hashes with rounds × d × b/2 rotation entries: 10^9 rounds is refused before hashing, by its
    // work at the default shape and by its memory where the work would pass.
    expectRefused({"--decode", "--variant", "lsh", "--n", "1024", "--set", "rounds=1000000000"},
                  {"decoding step", "variant 'lsh'", "work limit"});
    expectRefused({"--decode", "--variant", "lsh", "--n", "64", "--heads", "1", "--d", "4", "--set", "rounds=1000000000"},
                  {"decoding step", "variant 'lsh'", "over the job budget"});
    // The STREAM triad's three arrays of 7000 MiB against a 1 GiB budget.
    expectRefused({"--peak", "--stream-mib", "7000", "--memory-budget", "1G"}, {"STREAM triad", "over the job budget"});
    expectRefused({"--targets", "--stream-mib", "7000", "--memory-budget", "1G"}, {"STREAM triad", "over the job budget"});
}

TEST_F(BenchLimitsTest, LayerModeChecksItsProjectionsAndCores) {
    expectRefused({"--layer", "--n", "1000000"}, {"work limit", "--max-macs"});
    // Within the work limit, the projections' matrices (n x 4hd floats) exceed a small budget.
    expectRefused({"--layer", "--n", "65536", "--heads", "1", "--d", "8", "--memory-budget", "4M"},
                  {"over the job budget"});
}

TEST_F(BenchLimitsTest, ModesRefuseOptionsTheyDoNotTake) {
    expectRefused({"--targets", "--dv", "none"}, {"--targets does not take --dv"});
    expectRefused({"--targets", "--n", "1024"}, {"--targets does not take --n"});
    expectRefused({"--targets", "--set", "window=8"}, {"--targets does not take --set"});
    expectRefused({"--targets", "--budget", "soon"}, {"--budget expects seconds"});
    expectRefused({"--layer", "--dv", "none"}, {"--layer does not take --dv"});
    expectRefused({"--layer", "--dv", "64"}, {"--layer does not take --dv"});
    expectRefused({"--layer", "--budget", "-2"}, {"--budget expects seconds"});
    expectRefused({"--decode", "--dv", "32"}, {"--decode does not take --dv"});
    expectRefused({"--peak", "--n", "1024"}, {"--peak does not take --n"});
    expectRefused({"--variant", "full", "--dv", "none"}, {"--dv"});
}

} // namespace
} // namespace attnlab
