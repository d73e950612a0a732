// Figures, TeX side images and screenshots write as safely as `run`: a device node, a FIFO or a symlink to
// either is refused with one line and exit 2 and left as it was; no output may be one of the files the
// command reads (session, NPY), by device and inode; a full disk (or a file-size limit) keeps the old file
// and says so in one line. Device nodes and FIFOs are made in the test's own folder, never /dev's.
#include "test_cli_harness.h"

#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>


namespace attnlab {
namespace {

namespace fs = std::filesystem;

const std::vector<std::string> kFormats = {"png", "svg", "pdf", "csv", "tex"};

class FigureOutputSafetyTest : public clitest::CliTest {
protected:
    void SetUp() override {
#ifndef ATTNLAB_TESTS_WITH_GUI
        GTEST_SKIP() << "attnlab is built without the GUI: no figure command";
#endif
        clitest::CliTest::SetUp();
    }

    void TearDown() override {
        for (const int fd : m_readers) ::close(fd);
        clitest::CliTest::TearDown();
        struct stat info = {};
        ASSERT_EQ(::stat("/dev/null", &info), 0);
        EXPECT_TRUE(S_ISCHR(info.st_mode)) << "/dev/null is no longer a character device";
    }

    std::string path(const std::string& name) const { return file(name).string(); }

    // A FIFO with a reader held open, so that a writer that wrongly opens it does not block the test.
    void makeFifo(const std::string& name) {
        ASSERT_EQ(::mkfifo(path(name).c_str(), 0644), 0);
        const int reader = ::open(path(name).c_str(), O_RDONLY | O_NONBLOCK);
        ASSERT_GE(reader, 0);
        m_readers.push_back(reader);
    }

    // A character device in the test's folder: a copy of the null device where mknod is allowed (root),
    // else a symlink to /dev/null, which the command must refuse as well.
    void makeDevice(const std::string& name) {
        if (::mknod(path(name).c_str(), S_IFCHR | 0666, makedev(1, 3)) != 0) fs::create_symlink("/dev/null", file(name));
    }

    static bool isCharacterDevice(const fs::path& where) { return fs::is_character_file(fs::status(where)); }

    void expectRefused(const std::vector<std::string>& args, const std::string& mention) const {
        const clitest::Outcome outcome = run(args);
        EXPECT_TRUE(outcome.exited) << clitest::describe(args) << " ended by signal " << outcome.signal;
        EXPECT_EQ(outcome.exitCode, 2) << clitest::describe(args) << "\n" << outcome.err;
        EXPECT_EQ(outcome.errLines(), 1u) << clitest::describe(args) << "\n" << outcome.err;
        EXPECT_NE(outcome.err.find(mention), std::string::npos) << clitest::describe(args) << "\n" << outcome.err;
    }

    std::vector<int> m_readers;
};

std::vector<std::string> figureTo(const std::string& out) { return {"figure", "pattern", "--n", "16", "-o", out}; }

TEST_F(FigureOutputSafetyTest, EveryFormatRefusesDevicesFifosAndLinksToThem) {
    for (const auto& format : kFormats) {
        const std::string fifo = "pipe." + format, device = "null." + format;
        const std::string fifoLink = "pipe-link." + format, deviceLink = "null-link." + format;
        makeFifo(fifo);
        makeDevice(device);
        fs::create_symlink(fifo, file(fifoLink));
        fs::create_symlink(device, file(deviceLink));
        expectRefused(figureTo(fifo), "a FIFO");
        expectRefused(figureTo(fifoLink), "a FIFO");
        expectRefused(figureTo(device), "a character device");
        expectRefused(figureTo(deviceLink), "a character device");
        EXPECT_TRUE(fs::is_fifo(fs::symlink_status(file(fifo)))) << fifo;
        EXPECT_TRUE(fs::is_symlink(fs::symlink_status(file(fifoLink)))) << fifoLink;
        EXPECT_TRUE(isCharacterDevice(file(device))) << device;
        EXPECT_TRUE(fs::is_symlink(fs::symlink_status(file(deviceLink)))) << deviceLink;
    }
    // No temporaries or side images left behind.
    EXPECT_EQ(listing().size(), 4 * kFormats.size());
}

TEST_F(FigureOutputSafetyTest, ARegularFileBehindASymlinkIsWrittenThrough) {
    clitest::writeBytes(file("real.csv"), "old");
    fs::create_symlink("real.csv", file("link.csv"));
    succeed(figureTo("link.csv"));
    EXPECT_TRUE(fs::is_symlink(fs::symlink_status(file("link.csv"))));
    EXPECT_NE(clitest::readBytes(file("real.csv")), "old");
}

TEST_F(FigureOutputSafetyTest, TheScreenshotRefusesDevicesAndFifos) {
    makeFifo("pipe.png");
    makeDevice("null.png");
    expectRefused({"--screenshot", "pipe.png", "--view", "flops"}, "a FIFO");
    expectRefused({"--screenshot", "null.png", "--view", "flops"}, "a character device");
    EXPECT_TRUE(fs::is_fifo(file("pipe.png")));
    EXPECT_TRUE(isCharacterDevice(file("null.png")));
}

// Sessions and NPY files a figure reads are never its output, whatever name reaches them.
class FigureInputOverlapTest : public FigureOutputSafetyTest {
protected:
    void SetUp() override {
        FigureOutputSafetyTest::SetUp();
        if (IsSkipped()) return;
        m_session = R"({"format": "attnlab-session", "version": 1, "view": "pattern", "settings": {"n": 16}})";
        clitest::writeBytes(file("s.csv"), m_session);
        clitest::writeBytes(file("ss.json"), m_session);
    }
    std::string m_session;
};

TEST_F(FigureInputOverlapTest, TheSessionIsNeverTheOutput) {
    expectRefused({"figure", "--session", "s.csv", "-o", "s.csv"}, "same file as the input --session");
    fs::create_symlink("s.csv", file("link.csv"));
    expectRefused({"figure", "--session", "s.csv", "-o", "link.csv"}, "same file as the input --session");
    fs::create_hard_link(file("s.csv"), file("hard.csv"));
    expectRefused({"figure", "--session", "./s.csv", "-o", "hard.csv"}, "same file as the input --session");
    expectRefused({"--screenshot", "ss.json", "--session", "ss.json"}, "same file as the input --session");
    EXPECT_EQ(clitest::readBytes(file("s.csv")), m_session);
    EXPECT_EQ(clitest::readBytes(file("ss.json")), m_session);
}

TEST_F(FigureInputOverlapTest, ATexSideImageNeverReplacesAnInput) {
    // Weights over 128 × 128 cells are a raster part: written beside the .tex as NAME-image1.png.
    const std::int64_t n = 160, d = 4;
    for (const char* name : {"q.npy", "k.npy", "v.npy"})
        writeArray(name, {n, d}, clitest::gaussianValues(static_cast<std::size_t>(n * d), name[0]));
    const std::vector<std::string> args = {"figure", "pattern", "--weights", "--n", "160", "--q", "q.npy", "--k", "k.npy",
                                           "--v", "v.npy", "-o", "fig.tex"};
    succeed(args);
    ASSERT_TRUE(fs::exists(file("fig-image1.png"))) << "the figure has no side image to test with";
    fs::remove(file("fig.tex"));
    fs::remove(file("fig-image1.png"));
    const std::string q = clitest::readBytes(file("q.npy"));
    fs::create_symlink("q.npy", file("fig-image1.png"));
    expectRefused(args, "same file as the input --q");
    EXPECT_EQ(clitest::readBytes(file("q.npy")), q);
    EXPECT_FALSE(fs::exists(file("fig.tex"))) << "the document was written without its image";
}

TEST_F(FigureOutputSafetyTest, AWriteThatFailsKeepsTheOldFileAndSaysSoInOneLine) {
    for (const auto& format : kFormats) {
        const std::string name = "fig." + format;
        clitest::writeBytes(file(name), "old");
        const clitest::Outcome outcome =
            clitest::runAttnlab({"figure", "pattern", "--n", "64", "-o", name}, work(), work().parent_path() / "capture", 1024);
        ASSERT_TRUE(outcome.exited) << name;
        EXPECT_EQ(outcome.exitCode, 2) << name;
        const std::string& err = outcome.err;
        EXPECT_EQ(std::count(err.begin(), err.end(), '\n'), 1) << name << ": " << err;
        EXPECT_NE(err.find("write failed"), std::string::npos) << name << ": " << err;
        EXPECT_EQ(err.find("libpng"), std::string::npos) << err;
        EXPECT_EQ(err.find("Unknown error"), std::string::npos) << err;
        EXPECT_EQ(clitest::readBytes(file(name)), "old") << name;
    }
    EXPECT_EQ(listing().size(), kFormats.size()) << "a temporary was left behind";
}

// The same on a real full file system, where the test may mount one (root in a container that allows it).
TEST_F(FigureOutputSafetyTest, AFullFileSystemKeepsTheOldFile) {
    fs::create_directory(file("small"));
    if (::mount("tmpfs", path("small").c_str(), "tmpfs", 0, "size=16k") != 0) GTEST_SKIP() << "cannot mount a tmpfs here";
    clitest::writeBytes(file("small/fig.svg"), "old");
    const clitest::Outcome outcome = run({"figure", "pattern", "--n", "64", "-o", "small/fig.svg"});
    const std::string left = clitest::readBytes(file("small/fig.svg"));
    std::size_t entries = 0;
    for ([[maybe_unused]] const auto& entry : fs::directory_iterator(file("small"))) ++entries;
    ::umount(path("small").c_str());
    EXPECT_EQ(outcome.exitCode, 2) << outcome.err;
    EXPECT_EQ(outcome.errLines(), 1u) << outcome.err;
    EXPECT_NE(outcome.err.find("No space left on device"), std::string::npos) << outcome.err;
    EXPECT_EQ(left, "old");
    EXPECT_EQ(entries, 1u) << "a temporary was left behind";
}

} // namespace
} // namespace attnlab
