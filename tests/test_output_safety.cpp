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
