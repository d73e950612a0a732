// Output files: only regular files are replaced, symlinks are written through, an input is never
// overwritten, temporaries vanish on exceptions and signals and are swept after a kill -9, and a
// pair of outputs is all new or all old even when the process dies between the two renames.
#include "test_cli_harness.h"

#include "core/errors.h"
#include "core/io/output_file.h"

#include <csignal>
#include <functional>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/time.h>
#include <sys/wait.h>

namespace attnlab {
namespace {

namespace fs = std::filesystem;

class OutputSafetyTest : public clitest::CliTest {
protected:
    std::string path(const std::string& name) const { return file(name).string(); }
    std::string contents(const std::string& name) const { return clitest::readBytes(file(name)); }

    static void writeWhole(const std::string& destination, const std::string& text) {
        PendingFile out(destination);
        out.write(text.data(), text.size());
        out.commit();
    }

    void expectRefused(const std::string& name, const std::string& mention) const {
        try {
            PendingFile out(path(name));
            FAIL() << name << " was accepted as an output";
        } catch (const InputError& error) {
            EXPECT_NE(std::string(error.what()).find(mention), std::string::npos) << error.what();
        }
    }

    // Runs `body` in a child process and returns its wait status (the child never returns to gtest).
    static int inChild(const std::function<void()>& body) {
        const pid_t child = ::fork();
        if (child == 0) {
            body();
            ::_exit(0);
        }
        int status = 0;
        ::waitpid(child, &status, 0);
        return status;
    }

    static void age(const fs::path& where, int seconds) {
        struct timeval times[2];
        ::gettimeofday(&times[0], nullptr);
        times[0].tv_sec -= seconds;
        times[1] = times[0];
        ASSERT_EQ(::utimes(where.c_str(), times), 0);
    }
};

TEST_F(OutputSafetyTest, RefusesDirectoriesFifosAndDevicesAndLeavesThemInPlace) {
    fs::create_directory(file("dir.npy"));
    expectRefused("dir.npy", "a directory");
    ASSERT_EQ(::mkfifo(path("pipe.npy").c_str(), 0644), 0);
    expectRefused("pipe.npy", "a FIFO");
    EXPECT_TRUE(fs::is_fifo(file("pipe.npy")));
    std::set<std::string> expected = {"dir.npy", "pipe.npy"};
    if (::mknod(path("full").c_str(), S_IFCHR | 0666, makedev(1, 7)) == 0) { // a copy of /dev/full (needs root)
        expectRefused("full", "a character device");
        EXPECT_TRUE(fs::is_character_file(file("full")));
        expected.insert("full");
    }
    EXPECT_EQ(listing(), expected);
}

TEST_F(OutputSafetyTest, WritesThroughASymlinkAndKeepsTheLink) {
    clitest::writeBytes(file("real.npy"), "old");
    fs::create_symlink("real.npy", file("link.npy"));
    writeWhole(path("link.npy"), "new");
    EXPECT_TRUE(fs::is_symlink(file("link.npy")));
    EXPECT_EQ(contents("real.npy"), "new");
    fs::create_symlink("missing.npy", file("dangling.npy"));
    expectRefused("dangling.npy", "symlink to a missing file");
}

TEST_F(OutputSafetyTest, NamesUpToTheFileSystemsLimitAreWritten) {
    for (const std::size_t length : {231u, 232u, 250u, 255u}) {
        const std::string name = std::string(length - 4, 'n') + ".npy";
        writeWhole(path(name), "new");
        EXPECT_EQ(contents(name), "new") << length;
        EXPECT_EQ(listing(), std::set<std::string>{name}) << length;
        fs::remove(file(name));
    }
}

TEST_F(OutputSafetyTest, AnExceptionLeavesNoTemporaryAndTheOldFileIntact) {
    clitest::writeBytes(file("out.npy"), "old");
    try {
        PendingFile out(path("out.npy"));
        out.write("partial", 7);
        throw InputError("kernel failed");
    } catch (const InputError&) {
    }
    EXPECT_EQ(listing(), std::set<std::string>{"out.npy"});
    EXPECT_EQ(contents("out.npy"), "old");
}

TEST_F(OutputSafetyTest, SigtermAndSigintRemoveTheTemporaries) {
    for (const int signal : {SIGTERM, SIGINT}) {
        const std::string target = path("out.npy");
        const int status = inChild([&] {
            PendingFile out(target);
            PendingFile weights(target + ".w");
            out.write("partial", 7);
            ::raise(signal);
        });
        ASSERT_TRUE(WIFSIGNALED(status)) << "status " << status;
        EXPECT_EQ(WTERMSIG(status), signal);
        EXPECT_TRUE(listing().empty()) << *listing().begin();
    }
}

TEST_F(OutputSafetyTest, SweepsOnlyOurOwnStaleTemporariesOfDeadProcesses) {
    const pid_t dead = ::fork();
    if (dead == 0) ::_exit(0);
    ::waitpid(dead, nullptr, 0);
    const std::string deadPid = std::to_string(dead);
    const std::vector<std::string> stale = {"out.npy.partial-" + deadPid + "-0badcafe", "w.npy.partial-" + deadPid + "-12345678"};
    const std::vector<std::string> kept = {
        "fresh.npy.partial-" + deadPid + "-0badcafe", // dead but recent: maybe still being inspected
        "alive.npy.partial-1-0badcafe",                // pid 1 is alive
        "out.npy.partial-123456789",                   // not our exact pattern
        "notes.partial-" + deadPid + "-xyz",           // not hex
        "data.npy"};
    for (const auto& name : stale) clitest::writeBytes(file(name), "x");
    for (const auto& name : kept) clitest::writeBytes(file(name), "x");
    for (const auto& name : stale) age(file(name), kStaleSeconds + 60);
    for (const auto& name : {kept[1], kept[2], kept[3], kept[4]}) age(file(name), 3600);
    writeWhole(path("result.npy"), "new");
    std::set<std::string> expected(kept.begin(), kept.end());
    expected.insert("result.npy");
    EXPECT_EQ(listing(), expected);
}

TEST_F(OutputSafetyTest, AKillBetweenTheRenamesIsRolledForwardByTheNextRun) {
    clitest::writeBytes(file("out.npy"), "old out");
    clitest::writeBytes(file("w.npy"), "old w");
    const std::string outPath = path("out.npy"), weightsPath = path("w.npy");
    const int status = inChild([&] {
        PendingFile out(outPath), weights(weightsPath);
        out.write("new out", 7);
        weights.write("new w", 5);
        commitTogether({&out, &weights}, [](std::size_t renamed) {
            if (renamed == 0) ::_exit(9); // as kill -9 right after the first rename
        });
    });
    ASSERT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 9);
    // The window the journal exists for: one file new, the other old, the journal left behind.
    EXPECT_EQ(contents("out.npy"), "new out");
    EXPECT_EQ(contents("w.npy"), "old w");
    EXPECT_EQ(listing().size(), 4u);
    recoverInterruptedCommits(work().string());
    EXPECT_EQ(contents("out.npy"), "new out");
    EXPECT_EQ(contents("w.npy"), "new w");
    EXPECT_EQ(listing(), (std::set<std::string>{"out.npy", "w.npy"}));
}

TEST_F(OutputSafetyTest, ASignalBetweenTheRenamesFinishesThemInTheHandler) {
    clitest::writeBytes(file("out.npy"), "old out");
    clitest::writeBytes(file("w.npy"), "old w");
    const std::string outPath = path("out.npy"), weightsPath = path("w.npy");
    const int status = inChild([&] {
        PendingFile out(outPath), weights(weightsPath);
        out.write("new out", 7);
        weights.write("new w", 5);
        commitTogether({&out, &weights}, [](std::size_t renamed) {
            if (renamed == 0) ::raise(SIGTERM);
        });
    });
    ASSERT_TRUE(WIFSIGNALED(status));
    EXPECT_EQ(contents("out.npy"), "new out");
    EXPECT_EQ(contents("w.npy"), "new w");
    recoverInterruptedCommits(work().string()); // removes the journal; nothing left to rename
    EXPECT_EQ(listing(), (std::set<std::string>{"out.npy", "w.npy"}));
}

TEST_F(OutputSafetyTest, AnOutputThatIsAnInputIsRefusedByDeviceAndInode) {
    clitest::writeBytes(file("q.npy"), "q");
    fs::create_hard_link(file("q.npy"), file("hard.npy"));
    fs::create_symlink("q.npy", file("soft.npy"));
    fs::create_directory(file("sub"));
    for (const std::string out : {"hard.npy", "soft.npy", "sub/../q.npy"}) {
        EXPECT_THROW(refuseOverlappingFiles({{"--out", path(out)}}, {{"--q", path("q.npy")}}), InputError) << out;
    }
    EXPECT_THROW(refuseOverlappingFiles({{"--out", path("new.npy")}, {"--weights", path("sub/../new.npy")}}, {}), InputError);
    EXPECT_NO_THROW(refuseOverlappingFiles({{"--out", path("new.npy")}, {"--weights", path("w.npy")}}, {{"--q", path("q.npy")}}));
}

// The command line: `run` refuses to overwrite its own input or a FIFO, and writes through a symlink.
class RunOutputTest : public OutputSafetyTest {
protected:
    void SetUp() override {
        OutputSafetyTest::SetUp();
        for (const char* name : {"q.npy", "k.npy", "v.npy"}) writeArray(name, {4, 3}, clitest::gaussianValues(12, name[0]));
    }
    std::vector<std::string> runTo(const std::string& out) const {
        return {"run", "--variant", "full", "--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--out", out};
    }
    void expectOneLineFailure(const std::vector<std::string>& args, const std::string& mention) const {
        const auto outcome = run(args);
        EXPECT_TRUE(outcome.exited);
        EXPECT_NE(outcome.exitCode, 0) << clitest::describe(args);
        EXPECT_EQ(outcome.errLines(), 1u) << outcome.err;
        EXPECT_NE(outcome.err.find(mention), std::string::npos) << outcome.err;
    }
};

TEST_F(RunOutputTest, RefusesToOverwriteItsOwnInput) {
    const std::string before = contents("q.npy");
    expectOneLineFailure(runTo("q.npy"), "same file as the input --q");
    fs::create_hard_link(file("v.npy"), file("alias.npy"));
    expectOneLineFailure(runTo("./alias.npy"), "same file as the input --v");
    EXPECT_EQ(contents("q.npy"), before);
}

TEST_F(RunOutputTest, RefusesAFifoAndWritesThroughASymlink) {
    ASSERT_EQ(::mkfifo(path("pipe.npy").c_str(), 0644), 0);
    expectOneLineFailure(runTo("pipe.npy"), "a FIFO");
    EXPECT_TRUE(fs::is_fifo(file("pipe.npy")));
    clitest::writeBytes(file("real.npy"), "old");
    fs::create_symlink("real.npy", file("link.npy"));
    succeed(runTo("link.npy"));
    EXPECT_TRUE(fs::is_symlink(file("link.npy")));
    EXPECT_EQ(clitest::readNpyFile(file("real.npy")).shape, (std::vector<std::int64_t>{4, 3}));
}

// lsh with its own keys scores q·k unnormalised: q_2 = k_2 with an element of 1e20 gives a score of 1e40,
// past float32, whose softmax is finite (row 2 puts all its weight on key 2, which shares its bucket:
// out = v_2); the fast path computes that row again in double and matches the double reference path.
TEST_F(RunOutputTest, LshWithItsOwnKeysRecomputesOverflowingRowsInDouble) {
    std::vector<float> big = clitest::gaussianValues(12, 7);
    big[2 * 3 + 1] = 1e20f;
    writeArray("big.npy", {4, 3}, big);
    const std::vector<float> values = clitest::readNpyFile(file("v.npy")).floats();
    std::vector<std::vector<float>> outputs;
    for (const bool reference : {false, true}) {
        std::vector<std::string> args = {"run", "--variant", "lsh", "--set", "shared_qk=false", "--q", "big.npy",
                                         "--k", "big.npy", "--v", "v.npy", "--out", "out.npy"};
        if (reference) args.push_back("--reference");
        succeed(args);
        outputs.push_back(clitest::readNpyFile(file("out.npy")).floats());
        for (const float x : outputs.back()) EXPECT_TRUE(std::isfinite(x)) << clitest::describe(args);
        for (int c = 0; c < 3; ++c) EXPECT_FLOAT_EQ(outputs.back()[2 * 3 + c], values[2 * 3 + c]) << clitest::describe(args);
    }
    for (std::size_t e = 0; e < outputs[0].size(); ++e) EXPECT_NEAR(outputs[0][e], outputs[1][e], 1e-5) << e;
}

// mixed_chunk at n = 4 (one chunk of c = 4, d = 3): q_2 = k_2 with an element of 5.5e9 gives a score of
// 3e19 whose square passes float32, while relu(s)²/(c·d) · v stays within it. Every row matches the
// formula evaluated here in double.
TEST_F(RunOutputTest, MixedChunkRecomputesOverflowingRowsInDouble) {
    std::vector<float> big = clitest::gaussianValues(12, 9);
    big[2 * 3 + 1] = 5.5e9f;
    writeArray("big.npy", {4, 3}, big);
    const std::vector<float> v = clitest::readNpyFile(file("v.npy")).floats();
    const std::vector<float> q = clitest::readNpyFile(file("big.npy")).floats();
    std::vector<double> expected(12, 0.0), magnitude(12, 0.0); // magnitude: Σ |terms|, the scale of rounding
    for (int i = 0; i < 4; ++i)
        for (int j = 0; j < 4; ++j) {
            double s = 0;
            for (int e = 0; e < 3; ++e) s += static_cast<double>(q[i * 3 + e]) * q[j * 3 + e];
            const double weight = (s > 0 ? s * s / (4.0 * 3.0) : 0.0) + s / 4.0;
            for (int e = 0; e < 3; ++e) {
                expected[i * 3 + e] += weight * v[j * 3 + e];
                magnitude[i * 3 + e] += std::abs(weight * v[j * 3 + e]);
            }
        }
    ASSERT_GT(std::abs(expected[2 * 3]), 1e30) << "the case must reach float32's range";
    for (const bool reference : {false, true}) {
        std::vector<std::string> args = {"run", "--variant", "mixed_chunk", "--q", "big.npy", "--k", "big.npy",
                                         "--v", "v.npy", "--out", "out.npy"};
        if (reference) args.push_back("--reference");
        succeed(args);
        const std::vector<float> out = clitest::readNpyFile(file("out.npy")).floats();
        for (std::size_t e = 0; e < out.size(); ++e)
            EXPECT_NEAR(out[e], expected[e], 1e-5 * std::max(1.0, magnitude[e])) << clitest::describe(args) << " element " << e;
    }
}

// linformer projects the keys (E K), so q_2 = k_2 with an element of 1e20 gives projected scores near
// 1e40: the fast path computes that head again in double and matches the double reference path.
TEST_F(RunOutputTest, LinformerRecomputesAnOverflowingHeadInDouble) {
    std::vector<float> big = clitest::gaussianValues(12, 7);
    big[2 * 3 + 1] = 1e20f;
    writeArray("big.npy", {4, 3}, big);
    std::vector<std::vector<float>> outputs;
    for (const bool reference : {false, true}) {
        std::vector<std::string> args = {"run", "--variant", "linformer", "--q", "big.npy", "--k", "big.npy", "--v", "v.npy",
                                         "--out", "out.npy"};
        if (reference) args.push_back("--reference");
        succeed(args);
        outputs.push_back(clitest::readNpyFile(file("out.npy")).floats());
        for (const float x : outputs.back()) EXPECT_TRUE(std::isfinite(x)) << clitest::describe(args);
    }
    for (std::size_t e = 0; e < outputs[0].size(); ++e) EXPECT_NEAR(outputs[0][e], outputs[1][e], 1e-5) << e;
}

// Under a file-size limit (a shell's `ulimit -f`, SIGXFSZ at its default) a write past it is one line and
// exit 2 with the old file kept, not a silent death by the signal.
TEST_F(RunOutputTest, AFileSizeLimitKeepsTheOldFileAndSaysSoInOneLine) {
    clitest::writeBytes(file("out.npy"), "old");
    const auto names = listing();
    const clitest::Outcome outcome = clitest::runAttnlab(runTo("out.npy"), work(), work().parent_path() / "capture", 64);
    ASSERT_TRUE(outcome.exited) << "ended by signal " << outcome.signal;
    EXPECT_EQ(outcome.exitCode, 2);
    EXPECT_EQ(outcome.errLines(), 1u) << outcome.err;
    EXPECT_NE(outcome.err.find("out.npy: write failed: File too large"), std::string::npos) << outcome.err;
    EXPECT_EQ(contents("out.npy"), "old");
    EXPECT_EQ(listing(), names) << "a temporary was left behind";
}

// A result that cannot be written to stdout (here /dev/full) is a failure: one line, exit 2.
TEST_F(RunOutputTest, AResultThatCannotReachStdoutIsOneLineAndExitTwo) {
    if (!fs::exists("/dev/full")) GTEST_SKIP() << "no /dev/full here";
    const std::vector<std::vector<std::string>> commands = {
        {"cost", "--variant", "full", "--n", "64", "--d", "8", "--heads", "2"},
        {"cost", "--variant", "full", "--n", "64", "--d", "8", "--heads", "2", "--json"},
        {"variants", "--json"},
        {"variants"},
        {"--help"},
        {"cost", "--help"},
        {"run", "--help"},
        {"pattern", "--variant", "longformer", "--n", "16", "--print-expr"},
    };
    for (const auto& args : commands) {
        const clitest::Outcome outcome =
            clitest::runAttnlab(args, work(), work().parent_path() / "capture", std::nullopt, "/dev/full");
        ASSERT_TRUE(outcome.exited) << clitest::describe(args);
        EXPECT_EQ(outcome.exitCode, 2) << clitest::describe(args);
        EXPECT_EQ(outcome.errLines(), 1u) << clitest::describe(args) << ": " << outcome.err;
        EXPECT_NE(outcome.err.find("standard output: write failed: No space left on device"), std::string::npos)
            << clitest::describe(args) << ": " << outcome.err;
    }
}

// Finite inputs whose scores overflow float32 (q·k = 1e40 in row 2) have a finite softmax, which is
// computed (row 2 puts all its weight on key 2: out = v_2); relu² of that score is 1e80, an output
// beyond float32, refused with one line naming the row and no file.
TEST_F(RunOutputTest, AnOverflowingResultIsRefusedNamingItsFirstRow) {
    std::vector<float> big = clitest::gaussianValues(12, 7);
    big[2 * 3 + 1] = 1e20f;
    writeArray("big.npy", {4, 3}, big);
    const std::vector<float> values = clitest::readNpyFile(file("v.npy")).floats();
    for (const std::string variant : {"full", "longformer"}) {
        for (const bool reference : {false, true}) {
            std::vector<std::string> args = {"run", "--variant", variant, "--q", "big.npy", "--k", "big.npy", "--v", "v.npy", "--out", "out.npy"};
            if (reference) args.push_back("--reference");
            succeed(args);
            const std::vector<float> out = clitest::readNpyFile(file("out.npy")).floats();
            for (const float x : out) EXPECT_TRUE(std::isfinite(x)) << clitest::describe(args);
            for (int c = 0; c < 3; ++c) EXPECT_FLOAT_EQ(out[2 * 3 + c], values[2 * 3 + c]) << clitest::describe(args);
            fs::remove(file("out.npy"));
        }
    }
    for (const bool reference : {false, true}) {
        std::vector<std::string> args = {"run", "--variant", "relu2", "--q", "big.npy", "--k", "big.npy", "--v", "v.npy", "--out", "out.npy"};
        if (reference) args.push_back("--reference");
        expectOneLineFailure(args, "of head 0, row 2 is");
        EXPECT_FALSE(fs::exists(file("out.npy"))) << clitest::describe(args);
    }
    std::vector<float> huge = clitest::gaussianValues(12, 8);
    huge[5] = 3e38f;
    writeArray("huge.npy", {4, 3}, huge);
    expectOneLineFailure({"run", "--variant", "linear", "--q", "q.npy", "--k", "k.npy", "--v", "huge.npy", "--out", "out.npy"},
                         "overflows float32");
    EXPECT_FALSE(fs::exists(file("out.npy")));
    succeed({"run", "--variant", "full", "--q", "q.npy", "--k", "k.npy", "--v", "big.npy", "--out", "out.npy"});
    for (const float x : clitest::readNpyFile(file("out.npy")).floats()) EXPECT_TRUE(std::isfinite(x));
}

} // namespace
} // namespace attnlab
