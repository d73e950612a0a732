// Every bad input of the command-line contract: a non-zero exit (not a crash), exactly one line on
// stderr naming the problem, no output or temporary file left behind, an existing --out untouched.
#include "test_cli_harness.h"

#include "core/registry.h"

#include <cstdlib>

namespace attnlab {
namespace {

using clitest::NpyLayout;

constexpr std::int64_t kHeads = 2, kN = 8, kD = 4;

class ErrorTest : public clitest::CliTest {
protected:
    // Valid Q, K, V [2, 8, 4] unless a test overwrites one of them.
    void SetUp() override {
        CliTest::SetUp();
        writeArray("q.npy", {kHeads, kN, kD}, clitest::gaussianValues(kHeads * kN * kD, 1));
        writeArray("k.npy", {kHeads, kN, kD}, clitest::gaussianValues(kHeads * kN * kD, 2));
        writeArray("v.npy", {kHeads, kN, kD}, clitest::gaussianValues(kHeads * kN * kD, 3));
    }

    static std::vector<std::string> runWith(std::vector<std::string> extra) {
        std::vector<std::string> args = {"run", "--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--out", "out.npy"};
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    }

    // The command fails cleanly and its one stderr line contains every word of `mentions`. An existing
    // out.npy is put in place first and must come through unchanged; nothing else may appear.
    void expectRejected(const std::vector<std::string>& args, const std::vector<std::string>& mentions) const {
        const std::string sentinel = "existing output, must survive";
        clitest::writeBytes(file("out.npy"), sentinel);
        const auto before = listing();
        const auto outcome = run(args);
        const std::string what = clitest::describe(args);
        EXPECT_TRUE(outcome.exited) << what << ": ended by signal " << outcome.signal;
        EXPECT_NE(outcome.exitCode, 0) << what;
        EXPECT_EQ(outcome.errLines(), 1u) << what << ": stderr was\n" << outcome.err;
        EXPECT_FALSE(outcome.err.empty() || outcome.err.back() != '\n') << what << ": " << outcome.err;
        for (const auto& word : mentions)
            EXPECT_NE(outcome.err.find(word), std::string::npos) << what << ": '" << word << "' not in: " << outcome.err;
        EXPECT_EQ(listing(), before) << what << ": files were added or removed";
        EXPECT_EQ(clitest::readBytes(file("out.npy")), sentinel) << what << ": the existing --out was touched";
    }
};

TEST_F(ErrorTest, UnknownVariantId) {
    expectRejected(runWith({"--variant", "sparse"}), {"unknown variant", "'sparse'"});
    expectRejected({"pattern", "--variant", "sparse", "--n", "8", "--out", "out.npy"}, {"'sparse'"});
    expectRejected({"cost", "--variant", "sparse", "--n", "8", "--d", "4", "--heads", "1", "--json"}, {"'sparse'"});
}

// One integer grammar everywhere: an optional '-' and digits, nothing else ('+8' as much as ' 8').
TEST_F(ErrorTest, OneIntegerGrammarForFlagsParametersAndGrids) {
    for (const std::string bad : {"+8", " 8", "8 ", "0x8", "8.0", "+"}) {
        expectRejected({"pattern", "--variant", "full", "--n", bad, "--out", "out.npy"}, {"--n expects an integer", "'" + bad + "'"});
        expectRejected(runWith({"--variant", "chunk", "--set", "chunk=" + bad}), {"integer", "'" + bad + "'"});
    }
    expectRejected({"cost", "--variant", "custom", "--grid", "+4,4", "--d", "4", "--heads", "1"}, {"--grid", "'+4,4'"});
}

// The OpenMP runtime reads OMP_NUM_THREADS as it loads and warns in its own words about a value it cannot
// parse; attnlab reads the variable first and says once what it does instead. Values OpenMP takes pass
// silently.
TEST_F(ErrorTest, AnUnparsableOmpNumThreadsIsNamedOnceAndIgnored) {
    const char* before = std::getenv("OMP_NUM_THREADS");
    const std::string kept = before ? before : "";
    const auto withThreads = [&](const char* value) {
        ::setenv("OMP_NUM_THREADS", value, 1);
        const clitest::Outcome outcome = run({"cost", "--variant", "full", "--n", "64", "--d", "8", "--heads", "1"});
        before ? ::setenv("OMP_NUM_THREADS", kept.c_str(), 1) : ::unsetenv("OMP_NUM_THREADS");
        return outcome;
    };
    for (const char* bad : {"abc", "0", "4x", "-2", "2,,1", "", "99999999999"}) {
        SCOPED_TRACE(std::string("OMP_NUM_THREADS='") + bad + "'");
        const clitest::Outcome outcome = withThreads(bad);
        EXPECT_EQ(outcome.exitCode, 0) << outcome.err;
        EXPECT_EQ(outcome.errLines(), 1u) << outcome.err;
        EXPECT_EQ(outcome.err.rfind(std::string("attnlab: OMP_NUM_THREADS='") + bad + "' is not a thread count", 0), 0u) << outcome.err;
        EXPECT_EQ(outcome.err.find("libgomp"), std::string::npos) << outcome.err;
    }
    for (const char* good : {"1", "2", "2,1", " 3 "}) {
        SCOPED_TRACE(std::string("OMP_NUM_THREADS='") + good + "'");
        const clitest::Outcome outcome = withThreads(good);
        EXPECT_EQ(outcome.exitCode, 0) << outcome.err;
        EXPECT_EQ(outcome.err, "");
    }
}

TEST_F(ErrorTest, UnknownParameterKey) {
    expectRejected(runWith({"--variant", "strided", "--set", "window=3"}), {"strided", "'window'"});
    expectRejected({"pattern", "--variant", "full", "--n", "8", "--set", "stride=2", "--out", "out.npy"}, {"'stride'"});
    expectRejected({"cost", "--variant", "chunk", "--n", "8", "--d", "4", "--heads", "1", "--set", "block=2"}, {"'block'"});
}

TEST_F(ErrorTest, GauLayerOptions) {
    const std::vector<std::string> gau = {"cost", "--layer", "gau", "--variant", "relu2", "--n", "8", "--d", "4", "--heads", "1"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = gau;
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    };
    expectRejected({"cost", "--layer", "flash", "--variant", "relu2", "--n", "8", "--d", "4", "--heads", "1"}, {"--layer", "'flash'"});
    expectRejected({"cost", "--layer", "gau", "--variant", "full", "--n", "8", "--d", "4", "--heads", "1"}, {"--layer gau", "full"});
    expectRejected({"cost", "--layer", "--variant", "relu2", "--n", "8", "--d", "4", "--heads", "1"}, {"--layer", "value"});
    expectRejected(with({"--decode"}), {"--decode", "--layer gau"});
    expectRejected(with({"--kv-heads", "1"}), {"--kv-heads", "--layer gau"});
    expectRejected(with({"--model", "bert-base"}), {"--model", "--layer gau"});
    expectRejected(with({"--block-size", "4"}), {"--block-size", "--layer gau"});
    expectRejected(with({"--set", "chunk=4"}), {"'chunk'"});
    expectRejected({"cost", "--layer", "gau", "--variant", "mixed_chunk", "--n", "8", "--d", "4", "--heads", "1", "--set", "chunk=0"},
                   {"chunk"});
}

TEST_F(ErrorTest, BlockSizeOutOfRangeOrWithoutAWholePattern) {
    const std::vector<std::string> cost = {"cost", "--variant", "full", "--n", "8", "--d", "4", "--heads", "1", "--json"};
    auto with = [&](std::vector<std::string> extra) {
        std::vector<std::string> args = cost;
        args.insert(args.end(), extra.begin(), extra.end());
        return args;
    };
    expectRejected(with({"--block-size", "0"}), {"--block-size"});
    expectRejected(with({"--block-size", "-2"}), {"--block-size"});
    expectRejected(with({"--block-size", "x"}), {"--block-size", "'x'"});
    expectRejected(with({"--block-size", "4", "--decode"}), {"--block-size", "--decode"});
    expectRejected({"cost", "--variant", "lsh", "--n", "8", "--d", "4", "--heads", "1", "--block-size", "4"}, {"--block-size", "lsh"});
    expectRejected({"cost", "--variant", "bigbird", "--n", "8", "--d", "4", "--heads", "1", "--set", "block=0"}, {"block"});
}

// An option written where a value belongs means the value is missing ("--preset -o x.png" once said
// "unknown option 'x.png'"); a negative number is still a value.
TEST_F(ErrorTest, AnOptionWhereAValueBelongsNamesTheMissingValue) {
    expectRejected({"pattern", "--variant", "--n", "8", "--out", "out.npy"}, {"--variant needs a value"});
    expectRejected({"cost", "--variant", "full", "--n", "8", "--d", "4", "--heads", "--json"}, {"--heads needs a value"});
    expectRejected(runWith({"--variant", "full", "--set", "--causal"}), {"--set needs KEY=VALUE"});
    expectRejected({"cost", "--variant", "full", "--n", "-3", "--d", "4", "--heads", "1"}, {"--n = -3", "out of range"});
}

TEST_F(ErrorTest, ValueOutOfRange) {
    expectRejected(runWith({"--variant", "strided", "--set", "stride=0"}), {"stride", "range"});
    expectRejected(runWith({"--variant", "fixed", "--set", "block=4", "--set", "summary=5"}), {"summary"});
    expectRejected(runWith({"--variant", "lsh", "--set", "buckets=3"}), {"buckets"});
    expectRejected(runWith({"--variant", "lsh", "--set", "buckets=0"}), {"buckets"});
    expectRejected(runWith({"--variant", "longformer", "--set", "globals=1,8"}), {"globals", "8"});
    expectRejected(runWith({"--variant", "longformer", "--set", "dilation=0"}), {"dilation"});
    expectRejected(runWith({"--variant", "linformer", "--set", "proj=pool", "--set", "k=9"}), {"k"});
    expectRejected(runWith({"--variant", "linear", "--set", "kernel=softmax"}), {"kernel", "softmax"});
    expectRejected(runWith({"--variant", "performer", "--set", "orthogonal=yes"}), {"orthogonal"});
    expectRejected({"cost", "--variant", "performer", "--n", "8", "--d", "4", "--heads", "1", "--set", "features=0"},
                   {"features"});
}

TEST_F(ErrorTest, NonNumericValue) {
    expectRejected(runWith({"--variant", "chunk", "--set", "chunk=four"}), {"chunk", "'four'"});
    expectRejected(runWith({"--variant", "chunk", "--set", "chunk=4.5"}), {"'4.5'"});
    expectRejected(runWith({"--variant", "chunk", "--set", "chunk=99999999999999999999"}), {"chunk"});
    expectRejected({"cost", "--variant", "full", "--n", "ten", "--d", "4", "--heads", "1"}, {"--n", "'ten'"});
    expectRejected({"pattern", "--variant", "full", "--n", "8x", "--out", "out.npy"}, {"--n"});
}

TEST_F(ErrorTest, NonPositiveN) {
    expectRejected({"pattern", "--variant", "full", "--n", "0", "--out", "out.npy"}, {"--n"});
    expectRejected({"cost", "--variant", "full", "--n", "-3", "--d", "4", "--heads", "1"}, {"--n"});
    expectRejected({"cost", "--variant", "full", "--n", "8", "--d", "0", "--heads", "1"}, {"--d"});
    expectRejected({"cost", "--variant", "full", "--n", "8", "--d", "4", "--heads", "0"}, {"--heads"});
    writeArray("q.npy", {0, kD}, {});
    writeArray("k.npy", {0, kD}, {});
    writeArray("v.npy", {0, kD}, {});
    expectRejected(runWith({"--variant", "full"}), {"q.npy"});
}

TEST_F(ErrorTest, NegativeSeed) {
    int seeded = 0;
    for (const VariantInfo& variant : allVariants()) {
        const auto& schema = variant.params;
        if (std::none_of(schema.begin(), schema.end(), [](const ParamSpec& spec) { return spec.key == "seed"; })) continue;
        ++seeded;
        expectRejected(runWith({"--variant", variant.id, "--set", "seed=-1"}), {"seed"});
    }
    EXPECT_GT(seeded, 0);
}

TEST_F(ErrorTest, ShapeMismatch) {
    writeArray("k.npy", {kHeads, kN, kD + 1}, clitest::gaussianValues(kHeads * kN * (kD + 1), 4));
    expectRejected(runWith({"--variant", "full"}), {"k.npy", "shape"});
    writeArray("k.npy", {kHeads, kN + 1, kD}, clitest::gaussianValues(kHeads * (kN + 1) * kD, 4));
    expectRejected(runWith({"--variant", "full"}), {"k.npy", "shape"});
    writeArray("k.npy", {kHeads, kN, kD}, clitest::gaussianValues(kHeads * kN * kD, 2));
    writeArray("v.npy", {kHeads, kN + 1, kD}, clitest::gaussianValues(kHeads * (kN + 1) * kD, 5));
    expectRejected(runWith({"--variant", "full"}), {"v.npy", "shape"});
    writeArray("v.npy", {kHeads + 1, kN, kD}, clitest::gaussianValues((kHeads + 1) * kN * kD, 5));
    expectRejected(runWith({"--variant", "full"}), {"v.npy", "shape"});
    writeArray("v.npy", {kHeads * kN * kD}, clitest::gaussianValues(kHeads * kN * kD, 5));
    expectRejected(runWith({"--variant", "full"}), {"v.npy"});
    // lsh's pattern with --q: --n must be Q's n.
    expectRejected({"pattern", "--variant", "lsh", "--n", "9", "--q", "q.npy", "--out", "out.npy"}, {"--n", "9"});
}

TEST_F(ErrorTest, ElementTypesOtherThanFloat32AndFloat64) {
    const std::string dataOf4 = std::string(4 * kHeads * kN * kD, '\0');
    const std::vector<std::int64_t> shape = {kHeads, kN, kD};
    clitest::writeNpyRaw(file("q.npy"), clitest::headerDict("<i4", false, shape), dataOf4);
    expectRejected(runWith({"--variant", "full"}), {"q.npy", "<i4"});
    clitest::writeNpyRaw(file("q.npy"), clitest::headerDict("<f2", false, shape), dataOf4.substr(0, dataOf4.size() / 2));
    expectRejected(runWith({"--variant", "full"}), {"q.npy", "float16"});
    clitest::writeNpyRaw(file("q.npy"), clitest::headerDict("<c8", false, shape), dataOf4 + dataOf4);
    expectRejected(runWith({"--variant", "full"}), {"q.npy", "<c8"});
    writeArray("q.npy", shape, clitest::gaussianValues(kHeads * kN * kD, 1));
    clitest::writeNpyRaw(file("v.npy"), clitest::headerDict("<f2", false, shape), dataOf4.substr(0, dataOf4.size() / 2));
    expectRejected(runWith({"--variant", "full"}), {"v.npy", "float16"});
}

TEST_F(ErrorTest, MixedTwoAndThreeDimensionalInputs) {
    writeArray("k.npy", {kN, kD}, clitest::gaussianValues(kN * kD, 2));
    expectRejected(runWith({"--variant", "full"}), {"k.npy", "2-D", "3-D"});
    writeArray("k.npy", {kHeads, kN, kD}, clitest::gaussianValues(kHeads * kN * kD, 2));
    writeArray("v.npy", {kN, kD}, clitest::gaussianValues(kN * kD, 3));
    expectRejected(runWith({"--variant", "full"}), {"v.npy", "2-D", "3-D"});
}

TEST_F(ErrorTest, DamagedFiles) {
    const std::string dict = clitest::headerDict("<f4", false, {kHeads, kN, kD});
    const std::string data(4 * kHeads * kN * kD, '\0');
    clitest::writeBytes(file("q.npy"), clitest::npyPrefix(dict, 1) + data.substr(0, data.size() - 4));
    expectRejected(runWith({"--variant", "full"}), {"q.npy", "truncated"});
    clitest::writeBytes(file("q.npy"), clitest::npyPrefix(dict, 1).substr(0, 30));
    expectRejected(runWith({"--variant", "full"}), {"q.npy", "truncated"});
    clitest::writeNpyRaw(file("q.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': [2; 8; 4] }", data);
    expectRejected(runWith({"--variant", "full"}), {"q.npy", "garbled"});
    clitest::writeNpyRaw(file("q.npy"), "not a header at all", data);
    expectRejected(runWith({"--variant", "full"}), {"q.npy", "garbled"});
    writeArray("q.npy", {kHeads, kN, kD}, clitest::gaussianValues(kHeads * kN * kD, 1));
    std::string badMagic = clitest::npyPrefix(dict, 1) + data;
    badMagic[0] = 'P';
    clitest::writeBytes(file("k.npy"), badMagic);
    expectRejected(runWith({"--variant", "full"}), {"k.npy", "magic"});
    expectRejected({"run", "--variant", "full", "--q", "q.npy", "--k", "k.npy", "--v", "nothing.npy", "--out", "out.npy"},
                   {"nothing.npy"});
}

TEST_F(ErrorTest, MissingFiles) {
    expectRejected({"run", "--variant", "full", "--q", "absent.npy", "--k", "k.npy", "--v", "v.npy", "--out", "out.npy"},
                   {"absent.npy"});
    expectRejected({"run", "--variant", "full", "--q", "q.npy", "--k", "absent.npy", "--v", "v.npy", "--out", "out.npy"},
                   {"absent.npy"});
    expectRejected({"run", "--variant", "full", "--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--out",
                    "no_such_dir/out.npy"},
                   {"no_such_dir"});
}

TEST_F(ErrorTest, NonFiniteInputs) {
    auto values = clitest::gaussianValues(kHeads * kN * kD, 1);
    values[13] = std::numeric_limits<float>::quiet_NaN();
    writeArray("q.npy", {kHeads, kN, kD}, values);
    expectRejected(runWith({"--variant", "full"}), {"q.npy", "NaN"});
    values[13] = 0.5f;
    writeArray("q.npy", {kHeads, kN, kD}, values);
    values[7] = -std::numeric_limits<float>::infinity();
    writeArray("v.npy", {kHeads, kN, kD}, values, NpyLayout{1, true});
    expectRejected(runWith({"--variant", "full"}), {"v.npy", "Inf"});
    // A float64 beyond float32's range would become Inf on conversion.
    std::string data;
    for (std::int64_t e = 0; e < kHeads * kN * kD; ++e) data += clitest::elementBytes<double>(e == 3 ? 1e300 : 0.5, false);
    clitest::writeNpyRaw(file("v.npy"), clitest::headerDict("<f8", false, {kHeads, kN, kD}), data);
    expectRejected(runWith({"--variant", "full"}), {"v.npy"});
}

TEST_F(ErrorTest, CausalFlagWhereUnsupportedOrRequired) {
    expectRejected(runWith({"--variant", "linformer", "--causal"}), {"linformer", "causal"});
    expectRejected({"cost", "--variant", "linformer", "--n", "8", "--d", "4", "--heads", "1", "--causal"}, {"causal"});
    expectRejected(runWith({"--variant", "xl"}), {"xl", "causal"});
    expectRejected({"pattern", "--variant", "xl", "--n", "8", "--out", "out.npy"}, {"causal"});
}

TEST_F(ErrorTest, XlSinusoidNeedsAnEvenHeadSize) {
    writeArray("q.npy", {kN, 3}, clitest::gaussianValues(kN * 3, 1));
    writeArray("k.npy", {kN, 3}, clitest::gaussianValues(kN * 3, 2));
    writeArray("v.npy", {kN, 3}, clitest::gaussianValues(kN * 3, 3));
    expectRejected(runWith({"--variant", "xl", "--causal"}), {"even"});
}

TEST_F(ErrorTest, MissingRequiredOptions) {
    expectRejected({"run", "--variant", "full", "--q", "q.npy", "--v", "v.npy", "--out", "out.npy"}, {"--k"});
    expectRejected({"run", "--variant", "lsh", "--set", "shared_qk=false", "--q", "q.npy", "--v", "v.npy", "--out",
                    "out.npy"},
                   {"--k"});
    expectRejected({"run", "--variant", "full", "--q", "q.npy", "--k", "k.npy", "--v", "v.npy"}, {"--out"});
    expectRejected({"run", "--q", "q.npy", "--k", "k.npy", "--v", "v.npy", "--out", "out.npy"}, {"--variant"});
    expectRejected({"pattern", "--variant", "full", "--out", "out.npy"}, {"--n"});
    expectRejected({"cost", "--variant", "full", "--n", "8", "--heads", "1"}, {"--d"});
    expectRejected({"pattern", "--variant", "lsh", "--n", "8", "--out", "out.npy"}, {"--q"});
    expectRejected({"pattern", "--variant", "lsh", "--n", "8", "--q", "q.npy", "--set", "shared_qk=false", "--out",
                    "out.npy"},
                   {"--k"});
}

TEST_F(ErrorTest, MalformedCommandLines) {
    expectRejected(runWith({"--variant", "full", "--bogus"}), {"--bogus"});
    expectRejected(runWith({"--variant", "full", "--variant", "chunk"}), {"--variant"});
    expectRejected(runWith({"--variant", "full", "--set", "impl"}), {"impl"});
    expectRejected(runWith({"--variant", "full", "--set", "impl=dense", "--set", "impl=tiled"}), {"impl"});
    expectRejected(runWith({"--variant"}), {"--variant"});
    expectRejected({"frobnicate"}, {"frobnicate"});
    expectRejected({"pattern", "--variant", "lsh", "--n", "8", "--q", "q.npy", "--head", "2", "--out", "out.npy"},
                   {"--head"});
    expectRejected({"pattern", "--variant", "lsh", "--n", "8", "--q", "q.npy", "--head", "-1", "--out", "out.npy"},
                   {"--head"});
}

TEST_F(ErrorTest, WeightsBeyondTheMachinesMemory) {
    // Real inputs of n = 200,000 (800 KB each); their [n, n] weights would take 160 GB.
    constexpr std::int64_t n = 200000;
    const auto values = clitest::gaussianValues(n, 7);
    for (const char* name : {"q.npy", "k.npy", "v.npy"}) writeArray(name, {n, 1}, values);
    expectRejected(runWith({"--variant", "full", "--weights", "w.npy"}), {"memory"});
}

TEST_F(ErrorTest, PatternBeyondTheMachinesMemory) {
    expectRejected({"pattern", "--variant", "full", "--n", "300000", "--out", "out.npy"}, {"memory"});
    expectRejected({"pattern", "--variant", "chunk", "--n", "2000000000", "--out", "out.npy"}, {"memory"});
}

} // namespace
} // namespace attnlab
