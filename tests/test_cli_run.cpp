// `attnlab run` end to end: NPY inputs written by the test, the executable run in a fresh directory,
// its outputs read back and checked against out = W·V and against the registry called in-process.
#include "test_cli_harness.h"

#include "core/registry.h"

#include <array>

namespace attnlab {
namespace {

using clitest::NpyFile;
using clitest::NpyLayout;

// Q, K [h, n, d] and V [h, n, dv] in C order; `threeD` false means the files are [n, d] (h = 1).
struct Problem {
    int heads = 2;
    std::int64_t n = 24, d = 8, dv = 5;
    bool threeD = true;
    std::vector<float> q, k, v;

    std::vector<std::int64_t> shape(std::int64_t cols) const {
        if (threeD) return {heads, n, cols};
        return {n, cols};
    }
    Tensor3 tensor(const std::vector<float>& values, std::int64_t cols) const {
        Tensor3 t(heads, n, cols);
        t.values.assign(values.begin(), values.end());
        return t;
    }
};

Problem makeProblem(int heads, std::int64_t n, std::int64_t d, std::int64_t dv, bool threeD, std::uint64_t seed) {
    Problem p{heads, n, d, dv, threeD, {}, {}, {}};
    const auto count = [&](std::int64_t cols) { return static_cast<std::size_t>(heads * n * cols); };
    p.q = clitest::gaussianValues(count(d), seed, 0.6);
    p.k = clitest::gaussianValues(count(d), seed + 1, 0.6);
    p.v = clitest::gaussianValues(count(dv), seed + 2);
    return p;
}

// One run request: the variant, the flag, the --set arguments.
struct Request {
    std::string id;
    bool causal = false;
    ParamOverrides set;
};

std::string describe(const Request& request) {
    std::string text = request.id + (request.causal ? " --causal" : "");
    for (const auto& [key, value] : request.set) text += " --set " + key + "=" + value;
    return text;
}

// The same computation through the registry, with the thread count the command is given.
RunResult runInProcess(const Request& request, const Problem& p) {
    const Tensor3 q = p.tensor(p.q, p.d), k = p.tensor(p.k, p.d), v = p.tensor(p.v, p.dv);
    const AttentionInputs inputs{&q, &k, &v};
    const VariantInfo& variant = requireVariant(request.id);
    RunOptions options;
    options.causal = request.causal;
    options.params = prepareParams(variant, inputs.shape(request.causal), request.set);
    options.threads = 2;
    options.wantWeights = true;
    return variant.run(inputs, options);
}

// Σ_j W_ij v_j per head in double from the float weights the command wrote.
std::vector<double> weightsTimesValues(const std::vector<float>& w, const Problem& p) {
    std::vector<double> out(static_cast<std::size_t>(p.heads * p.n * p.dv), 0.0);
    for (int h = 0; h < p.heads; ++h)
        for (std::int64_t i = 0; i < p.n; ++i)
            for (std::int64_t j = 0; j < p.n; ++j) {
                const double weight = w[static_cast<std::size_t>((h * p.n + i) * p.n + j)];
                for (std::int64_t c = 0; c < p.dv; ++c)
                    out[static_cast<std::size_t>((h * p.n + i) * p.dv + c)] +=
                        weight * p.v[static_cast<std::size_t>((h * p.n + j) * p.dv + c)];
            }
    return out;
}

double maxRelativeDifference(const std::vector<float>& a, const std::vector<double>& b) {
    double scale = 1.0, worst = 0.0;
    for (const double value : b) scale = std::max(scale, std::fabs(value));
    for (std::size_t e = 0; e < a.size(); ++e) worst = std::max(worst, std::fabs(a[e] - b[e]));
    return worst / scale;
}

class RunTest : public clitest::CliTest {
protected:
    void writeProblem(const Problem& p, const NpyLayout& qLayout = {}, const NpyLayout& kLayout = {},
                      const NpyLayout& vLayout = {}) const {
        writeArray("q.npy", p.shape(p.d), p.q, qLayout);
        writeArray("k.npy", p.shape(p.d), p.k, kLayout);
        writeArray("v.npy", p.shape(p.dv), p.v, vLayout);
    }

    static std::vector<std::string> runArgs(const Request& request, bool withKeys, bool withWeights) {
        std::vector<std::string> args = {"run", "--variant", request.id, "--q", "q.npy", "--v", "v.npy", "--out", "out.npy",
                                         "--threads", "2"};
        if (withKeys) args.insert(args.end(), {"--k", "k.npy"});
        if (withWeights) args.insert(args.end(), {"--weights", "w.npy"});
        if (request.causal) args.push_back("--causal");
        for (const auto& [key, value] : request.set) args.insert(args.end(), {"--set", key + "=" + value});
        return args;
    }

    // Runs the command with --weights and checks both files' format, out = W·V, and equality with the
    // in-process registry run.
    void expectRoundTrip(const Request& request, const Problem& p, bool withKeys = true) const {
        writeProblem(p);
        const auto outcome = succeed(runArgs(request, withKeys, true));
        ASSERT_EQ(outcome.exitCode, 0) << describe(request);
        const NpyFile out = clitest::readNpyFile(file("out.npy")), weights = clitest::readNpyFile(file("w.npy"));
        for (const NpyFile* written : {&out, &weights}) {
            EXPECT_EQ(written->descr, "<f4") << describe(request);
            EXPECT_FALSE(written->fortran) << describe(request);
            EXPECT_EQ(written->data.size(), 4 * written->count()) << describe(request);
        }
        ASSERT_EQ(out.shape, p.shape(p.dv)) << describe(request);
        ASSERT_EQ(weights.shape, p.shape(p.n)) << describe(request);
        EXPECT_LE(maxRelativeDifference(out.floats(), weightsTimesValues(weights.floats(), p)), 2e-5)
            << describe(request) << ": out differs from W·V";

        const RunResult reference = runInProcess(request, p);
        EXPECT_EQ(out.floats(), clitest::plainFloats(reference.out.values)) << describe(request) << ": out differs from the in-process run";
        ASSERT_TRUE(reference.weights.has_value());
        EXPECT_EQ(weights.floats(), clitest::plainFloats(reference.weights->values))
            << describe(request) << ": weights differ from the in-process run";
        if (request.causal) expectNoFutureKeys(weights.floats(), p, request);
    }

    static void expectNoFutureKeys(const std::vector<float>& w, const Problem& p, const Request& request) {
        for (int h = 0; h < p.heads; ++h)
            for (std::int64_t i = 0; i < p.n; ++i)
                for (std::int64_t j = i + 1; j < p.n; ++j)
                    ASSERT_EQ(w[static_cast<std::size_t>((h * p.n + i) * p.n + j)], 0.0f)
                        << describe(request) << ": head " << h << " row " << i << " uses key " << j;
    }
};

// Every id `attnlab variants --json` lists, bidirectional where it supports that, else causal. --k is
// always given (variants that derive keys from Q ignore it; see SharedKeyLshIgnoresTheKeysFile).
class EveryVariant : public RunTest, public ::testing::WithParamInterface<std::string> {
protected:
    Request request(bool causal) const { return {GetParam(), causal || !clitest::cliVariant(GetParam()).bidirectional, {}}; }
};

TEST_P(EveryVariant, ThreeDimensionalRoundTripWithItsOwnValueWidth) {
    expectRoundTrip(request(false), makeProblem(2, 24, 8, 5, true, 11));
}

TEST_P(EveryVariant, TwoDimensionalRoundTrip) {
    expectRoundTrip(request(false), makeProblem(1, 20, 6, 3, false, 12));
}

INSTANTIATE_TEST_SUITE_P(Cli, EveryVariant, ::testing::ValuesIn(clitest::cliVariantIds()));

using CausalVariant = EveryVariant;

TEST_P(CausalVariant, CausalRoundTripUsesNoLaterKey) {
    expectRoundTrip(request(true), makeProblem(2, 19, 8, 4, true, 13));
}

// Every id whose entry says it has a causal form.
INSTANTIATE_TEST_SUITE_P(Cli, CausalVariant, ::testing::ValuesIn(clitest::cliVariantIds(true)));

TEST_F(RunTest, ParametersReachTheKernel) {
    const Problem p = makeProblem(2, 30, 8, 8, true, 21);
    const std::vector<Request> requests = {
        {"full", false, {{"impl", "dense"}}},
        {"strided", true, {{"stride", "4"}}},
        {"fixed", false, {{"block", "6"}, {"summary", "2"}}},
        {"longformer", false, {{"window", "4"}, {"dilation", "2"}, {"globals", "0,17"}}},
        {"xl", true, {{"segment", "7"}, {"memory", "3"}, {"relpos", "none"}}},
        {"linear", false, {{"kernel", "taylor"}}},
        {"performer", false, {{"features", "16"}, {"seed", "5"}, {"orthogonal", "false"}}},
        {"linformer", false, {{"k", "5"}, {"proj", "pool"}}},
        {"lsh", false, {{"buckets", "4"}, {"rounds", "2"}, {"shared_qk", "false"}}},
        {"relu2", false, {{"scale", "n2"}}},
        {"mixed_chunk", true, {{"chunk", "8"}}},
        {"bigbird", false, {{"window", "2"}, {"globals", "1"}, {"random", "2"}, {"seed", "9"}}},
    };
    for (const auto& request : requests) {
        expectRoundTrip(request, p);
        if (request.id == "full") continue; // both impls give the same weights
        // The parameters must matter: the defaults give other weights.
        const Request defaults{request.id, request.causal, {}};
        EXPECT_NE(clitest::readNpyFile(file("w.npy")).floats(), clitest::plainFloats(runInProcess(defaults, p).weights->values))
            << describe(request) << " gives the same weights as the defaults";
    }
}

TEST_F(RunTest, EveryInputLayoutGivesTheSameBytes) {
    const Problem p = makeProblem(2, 16, 4, 3, true, 31);
    for (const char* id : {"full", "linear"}) {
        const Request request{id, false, {}};
        writeProblem(p);
        succeed(runArgs(request, true, true));
        const std::string expectedOut = clitest::readBytes(file("out.npy"));
        const std::string expectedWeights = clitest::readBytes(file("w.npy"));
        const std::vector<std::array<NpyLayout, 3>> layouts = {
            {NpyLayout{1, true}, NpyLayout{1, true}, NpyLayout{1, true}},                   // float64
            {NpyLayout{1, false, true}, NpyLayout{1, true, true}, NpyLayout{1, false, true}}, // big-endian f4/f8
            {NpyLayout{1, false, false, true}, NpyLayout{1, true, false, true}, NpyLayout{1, false, true, true}},
            {NpyLayout{2}, NpyLayout{3, true}, NpyLayout{3, false, true, true}}, // v2 and v3 headers
        };
        for (std::size_t l = 0; l < layouts.size(); ++l) {
            writeProblem(p, layouts[l][0], layouts[l][1], layouts[l][2]);
            succeed(runArgs(request, true, true));
            EXPECT_EQ(clitest::readBytes(file("out.npy")), expectedOut) << id << " layout set " << l;
            EXPECT_EQ(clitest::readBytes(file("w.npy")), expectedWeights) << id << " layout set " << l;
        }
    }
}

TEST_F(RunTest, WithoutWeightsOnlyOutIsWritten) {
    const Problem p = makeProblem(1, 12, 4, 4, false, 41);
    writeProblem(p);
    succeed(runArgs({"chunk", false, {}}, true, false));
    EXPECT_EQ(listing(), (std::set<std::string>{"q.npy", "k.npy", "v.npy", "out.npy"}));
    EXPECT_EQ(clitest::readNpyFile(file("out.npy")).floats(), clitest::plainFloats(runInProcess({"chunk", false, {}}, p).out.values));
}

TEST_F(RunTest, SharedKeyLshIgnoresTheKeysFile) {
    const Problem p = makeProblem(2, 32, 6, 6, true, 51);
    writeProblem(p);
    const Request request{"lsh", false, {{"buckets", "4"}}};
    succeed(runArgs(request, false, true));
    const std::string withoutKeys = clitest::readBytes(file("w.npy"));
    Problem otherKeys = p;
    otherKeys.k = clitest::gaussianValues(p.k.size(), 99);
    writeProblem(otherKeys);
    succeed(runArgs(request, true, true));
    EXPECT_EQ(clitest::readBytes(file("w.npy")), withoutKeys);
}

TEST_F(RunTest, ReplacesAnExistingOutputFile) {
    const Problem p = makeProblem(1, 8, 4, 4, false, 61);
    writeProblem(p);
    clitest::writeBytes(file("out.npy"), "stale");
    succeed(runArgs({"full", false, {}}, true, false));
    EXPECT_EQ(clitest::readNpyFile(file("out.npy")).floats(), clitest::plainFloats(runInProcess({"full", false, {}}, p).out.values));
}

} // namespace
} // namespace attnlab
