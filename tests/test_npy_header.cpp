// The NPY header parser agrees with NumPy's reader (numpy.lib.format): exactly the keys 'descr',
// 'fortran_order' and 'shape'; the last of duplicate keys wins; nothing but whitespace after '}';
// balanced brackets; shape a tuple of non-negative integers; header at most 10000 bytes. Inputs
// that are not regular files or that do not match their header's size are refused before any data
// is read, and messages never carry raw control bytes.
#include "test_cli_harness.h"

#include "core/errors.h"
#include "core/io/npy_io.h"

#include <sys/stat.h>

namespace attnlab {
namespace {

namespace fs = std::filesystem;

class NpyHeaderTest : public clitest::CliTest {
protected:
    // Writes magic, version 1 and `dict` (padded as NumPy pads) followed by `data`.
    fs::path withHeader(const std::string& dict, const std::string& data, const std::string& name = "h.npy") const {
        clitest::writeNpyRaw(file(name), dict, data);
        return file(name);
    }
    static std::string readError(const fs::path& path) {
        try {
            readNpy(path.string());
        } catch (const InputError& error) {
            return error.what();
        }
        return "";
    }
    void expectRefused(const std::string& dict, const std::string& data, const std::string& mention) const {
        const std::string message = readError(withHeader(dict, data));
        EXPECT_NE(message.find(mention), std::string::npos) << "header " << dict << "\nmessage: '" << message << "'";
    }
};

const std::string kSixFloats(6 * 4, '\0');
const std::string kSixDoubles(6 * 8, '\0');

TEST_F(NpyHeaderTest, TheLastOfDuplicateKeysWinsAsInNumPy) {
    // NumPy reads this as float64 [2, 3]; taking the first 'descr' would misread the data.
    const auto path = withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'descr': '<f8'}", kSixDoubles);
    const NpyArray array = readNpy(path.string());
    EXPECT_EQ(array.dtype, "<f8");
    EXPECT_EQ(array.shape, (std::vector<std::int64_t>{2, 3}));
    // NumPy reads this one as uint8: refused as uint8, not read as float32.
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 12), 'descr': '|u1'}", kSixFloats, "|u1");
    const auto shapes = withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (9,), 'shape': (2, 3)}", kSixFloats);
    EXPECT_EQ(readNpy(shapes.string()).shape, (std::vector<std::int64_t>{2, 3}));
}

TEST_F(NpyHeaderTest, ExactlyTheThreeKeysAreAccepted) {
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 'extra': 1}", kSixFloats, "unexpected key 'extra'");
    expectRefused("{'descr': '<f4', 'shape': (2, 3)}", kSixFloats, "no 'fortran_order'");
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), 7: 1}", kSixFloats, "not a string");
    expectRefused("['descr', '<f4']", kSixFloats, "not a dict");
}

TEST_F(NpyHeaderTest, OnlyWhitespaceMayFollowTheDict) {
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), } junk", kSixFloats, "after the header dict");
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }}", kSixFloats, "after the header dict");
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }" + std::string(1, '\0'), kSixFloats,
                  "after the header dict");
    // Spaces, tabs and newlines are what NumPy pads with or tolerates.
    const auto padded = withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}\t\n  \n", kSixFloats);
    EXPECT_EQ(readNpy(padded.string()).shape, (std::vector<std::int64_t>{2, 3}));
}

TEST_F(NpyHeaderTest, UnbalancedBracketsAreRefused) {
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3}", kSixFloats, "garbled NPY header in 'shape'");
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': ((2, 3), }", kSixFloats, "garbled");
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)", kSixFloats, "garbled");
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': 2, 3), }", kSixFloats, "garbled");
    expectRefused("{'descr': '<f4, 'fortran_order': False, 'shape': (2, 3), }", kSixFloats, "garbled");
}

TEST_F(NpyHeaderTest, ShapeIsATupleOfNonNegativeIntegersAsInNumPy) {
    const auto one = withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (6,), }", kSixFloats);
    EXPECT_EQ(readNpy(one.string()).shape, std::vector<std::int64_t>{6});
    const auto scalar = withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (), }", std::string(4, '\0'));
    const NpyArray zeroD = readNpy(scalar.string());
    EXPECT_TRUE(zeroD.shape.empty());
    EXPECT_EQ(zeroD.values.size(), 1u);
    // Double quotes, no trailing comma, spaces inside the tuple: Python literals NumPy accepts.
    const auto quoted = withHeader("{\"descr\":\"<f4\",\"fortran_order\":False,\"shape\":( 2 , 3 ,)}", kSixFloats);
    EXPECT_EQ(readNpy(quoted.string()).shape, (std::vector<std::int64_t>{2, 3}));
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (6), }", kSixFloats, "not a tuple"); // (6) is 6
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': [2, 3], }", kSixFloats, "not a tuple");
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (-2, -3), }", kSixFloats, "negative");
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (2, '3'), }", kSixFloats, "non-integer");
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 03), }", kSixFloats, "leading zero");
    expectRefused("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999, 3), }", kSixFloats, "too large");
    expectRefused("{'descr': '<f4', 'fortran_order': 0, 'shape': (2, 3), }", kSixFloats, "True or False");
}

TEST_F(NpyHeaderTest, MessagesEscapeControlBytes) {
    const std::string message =
        readError(withHeader("{'descr': '\x1b[31m\x07', 'fortran_order': False, 'shape': (2, 3), }", kSixFloats));
    EXPECT_NE(message.find("\\x1b[31m\\x07"), std::string::npos) << message;
    for (const char c : message) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << message;
    const std::string junk = readError(withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3)}\r\x1b", kSixFloats));
    for (const char c : junk) EXPECT_GE(static_cast<unsigned char>(c), 0x20) << junk;
}

TEST_F(NpyHeaderTest, HeadersLongerThanNumPysLimitAreRefused) {
    std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    dict.append(20000, ' ');
    clitest::writeNpyRaw(file("long.npy"), dict, kSixFloats, 2);
    EXPECT_NE(readError(file("long.npy")).find("exceeds the limit of 10000"), std::string::npos);
}

TEST_F(NpyHeaderTest, NonRegularInputsAreRefusedWithoutReading) {
    EXPECT_NE(readError("/dev/zero").find("not a regular file"), std::string::npos);
    ASSERT_EQ(::mkfifo(file("pipe.npy").c_str(), 0644), 0);
    EXPECT_NE(readError(file("pipe.npy")).find("not a regular file"), std::string::npos); // would block if opened
    fs::create_directory(file("dir.npy"));
    EXPECT_NE(readError(file("dir.npy")).find("is a directory"), std::string::npos);
}

TEST_F(NpyHeaderTest, RunRefusesDevZeroAndArraysOverTheBudgetInOneLine) {
    writeArray("k.npy", {4, 3}, clitest::gaussianValues(12, 1));
    writeArray("big.npy", {512, 512}, clitest::gaussianValues(512 * 512, 2));
    const std::vector<std::pair<std::vector<std::string>, std::string>> cases = {
        {{"run", "--variant", "full", "--q", "/dev/zero", "--k", "k.npy", "--v", "k.npy", "--out", "o.npy"}, "not a regular file"},
        {{"run", "--variant", "full", "--q", "big.npy", "--k", "big.npy", "--v", "big.npy", "--out", "o.npy",
          "--memory-budget", "512K"},
         "job budget"},
    };
    for (const auto& [args, mention] : cases) {
        const auto outcome = run(args);
        EXPECT_TRUE(outcome.exited);
        EXPECT_NE(outcome.exitCode, 0);
        EXPECT_EQ(outcome.errLines(), 1u) << outcome.err;
        EXPECT_NE(outcome.err.find(mention), std::string::npos) << outcome.err;
        EXPECT_FALSE(fs::exists(file("o.npy")));
    }
}

} // namespace
} // namespace attnlab
