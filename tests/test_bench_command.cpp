// `attnlab bench` driven in process through the command-line library: tiny cases of each mode (the
// variant sweep, --peak, --roofline, --layer) checked for structure and sane numbers (positive finite
// rates, bytes_min by hand for full attention, intensity = 2·MACs / bytes_min, the roof the smaller of
// the two limits), and bad arguments giving one error line and a non-zero exit. --targets takes minutes
// at its fixed sizes and is left to the benchmark script. No speed is asserted.
#include "app/commands.h"

#include "core/registry.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <set>
#include <sstream>
#include <string>
#include <unistd.h>
#include <vector>

namespace attnlab {
namespace {

using nlohmann::json;

struct Outcome {
    int exitCode = 0;
    std::string out;
    std::string err;
};

std::string readAll(std::FILE* file) {
    std::rewind(file);
    std::string text;
    char buffer[4096];
    while (const std::size_t got = std::fread(buffer, 1, sizeof buffer, file)) text.append(buffer, got);
    return text;
}

// Runs `attnlab bench ARGS...` through runCommandLine with stdout and stderr sent to temporary files.
Outcome bench(std::vector<std::string> args) {
    args.insert(args.begin(), {"attnlab", "bench"});
    std::vector<char*> argv;
    for (std::string& arg : args) argv.push_back(arg.data());
    std::FILE* out = std::tmpfile();
    std::FILE* err = std::tmpfile();
    std::fflush(stdout);
    std::fflush(stderr);
    const int savedOut = dup(STDOUT_FILENO), savedErr = dup(STDERR_FILENO);
    dup2(fileno(out), STDOUT_FILENO);
    dup2(fileno(err), STDERR_FILENO);
    Outcome outcome;
    outcome.exitCode = runCommandLine(static_cast<int>(argv.size()), argv.data());
    std::fflush(stdout);
    std::fflush(stderr);
    dup2(savedOut, STDOUT_FILENO);
    dup2(savedErr, STDERR_FILENO);
    close(savedOut);
    close(savedErr);
    outcome.out = readAll(out);
    outcome.err = readAll(err);
    std::fclose(out);
    std::fclose(err);
    return outcome;
}

json benchJson(const std::vector<std::string>& args) {
    const Outcome outcome = bench(args);
    EXPECT_EQ(outcome.exitCode, 0) << outcome.err;
    return json::parse(outcome.out);
}

std::vector<std::string> lines(const std::string& text) {
    std::vector<std::string> result;
    std::stringstream stream(text);
    for (std::string line; std::getline(stream, line);) result.push_back(line);
    return result;
}

bool positiveFinite(const json& value) { return value.is_number() && std::isfinite(value.get<double>()) && value.get<double>() > 0; }

// Q, K, V read and out written once, float32.
double fullBytesMin(double h, double n, double d, double dv) { return 4.0 * h * n * (2 * d + 2 * dv); }

void expectSanePeak(const json& peak) {
    for (const char* key : {"fma_gflops", "sgemm_gflops", "bandwidth_gbs"}) EXPECT_TRUE(positiveFinite(peak[key])) << key;
    EXPECT_FALSE(peak["gemm_engine"].get<std::string>().empty());
    EXPECT_FALSE(peak["fma_kernel"].get<std::string>().empty());
    EXPECT_EQ(peak["triad_array_bytes"].get<double>(), 16.0 * 1024 * 1024); // --stream-mib 16 keeps the test quick
}

TEST(BenchCommand, VariantSweepReportsOneSanePointPerVariantAndSize) {
    const json result = benchJson({"--variant", "full,strided", "--n", "64,96", "--heads", "2", "--d", "16", "--dv", "8",
                                   "--budget", "0", "--threads", "1", "--json"});
    ASSERT_EQ(result["results"].size(), 4u);
    for (const json& point : result["results"]) {
        for (const char* key : {"median_s", "min_s", "max_s", "gflops", "attention_macs"})
            EXPECT_TRUE(positiveFinite(point[key])) << key;
        EXPECT_LE(point["min_s"].get<double>(), point["median_s"].get<double>());
        EXPECT_LE(point["median_s"].get<double>(), point["max_s"].get<double>());
        EXPECT_GE(point["repeats"].get<int>(), 3);
        const double gflops = 2 * point["attention_macs"].get<double>() / point["median_s"].get<double>() / 1e9;
        EXPECT_NEAR(point["gflops"].get<double>(), gflops, 1e-9 * gflops);
    }
    const json& full = result["results"][0];
    EXPECT_EQ(full["variant"], "full");
    EXPECT_EQ(full["attention_macs"].get<double>(), 64.0 * 64 * (16 + 8) * 2); // scores n²·d·h + weights_v n²·dv·h
}

TEST(BenchCommand, SizesOnAGridScaleTheImage) {
    // neighborhood(3) on 8 × 8 and 16 × 16: every cell sees 9 keys, so the MACs are 9·n·(d + dv)·h.
    const json result = benchJson({"--variant", "custom", "--grid", "8,8", "--n", "64,256", "--heads", "1", "--d", "8",
                                   "--set", "expr=neighborhood(3)", "--budget", "0", "--threads", "1", "--json"});
    ASSERT_EQ(result["results"].size(), 2u);
    EXPECT_EQ(result["results"][0]["grid"], "8,8");
    EXPECT_EQ(result["results"][1]["grid"], "16,16");
    EXPECT_EQ(result["results"][1]["attention_macs"].get<double>(), 9.0 * 256 * (8 + 8));
    const Outcome odd = bench({"--variant", "custom", "--grid", "8,8", "--n", "64,128", "--set", "expr=neighborhood(3)"});
    EXPECT_EQ(odd.exitCode, 2);
    EXPECT_NE(odd.err.find("--n 128 makes no grid scaled from --grid 8,8"), std::string::npos) << odd.err;
}

TEST(BenchCommand, CsvAndTableHaveAHeaderAndOneRowPerPoint) {
    const Outcome csv = bench({"--variant", "chunk", "--n", "32,48,64", "--heads", "1", "--d", "8", "--budget", "0", "--csv"});
    ASSERT_EQ(csv.exitCode, 0) << csv.err;
    const auto csvLines = lines(csv.out);
    ASSERT_EQ(csvLines.size(), 4u);
    EXPECT_EQ(csvLines[0].rfind("variant,n,d,dv,heads,causal,median_s", 0), 0u);
    EXPECT_EQ(csvLines[1].rfind("chunk,32,8,8,1,false,", 0), 0u);
    const Outcome table = bench({"--variant", "chunk", "--n", "32", "--heads", "1", "--d", "8", "--budget", "0"});
    ASSERT_EQ(table.exitCode, 0) << table.err;
    const auto tableLines = lines(table.out);
    ASSERT_EQ(tableLines.size(), 2u);
    EXPECT_NE(tableLines[0].find("GFLOP/s"), std::string::npos);
    EXPECT_EQ(tableLines[1].rfind("chunk", 0), 0u);
}

TEST(BenchCommand, PeakMeasuresComputeGemmAndPositiveBandwidth) {
    const json peak = benchJson({"--peak", "--threads", "1", "--budget", "0", "--stream-mib", "16", "--json"});
    EXPECT_EQ(peak["threads"], 1);
    expectSanePeak(peak);
}

TEST(BenchCommand, RooflineCoversEveryVariantWithConsistentArithmetic) {
    const json result = benchJson({"--roofline", "--n", "128", "--heads", "2", "--d", "16", "--budget", "0", "--threads",
                                   "1", "--stream-mib", "16", "--json"});
    const json& peak = result["peak"];
    expectSanePeak(peak);
    std::set<std::string> expected, seen;
    for (const VariantInfo& variant : allVariants())
        if (variant.causalSupport != CausalSupport::CausalOnly) expected.insert(variant.id);
    for (const json& row : result["results"]) {
        const std::string id = row["variant"];
        seen.insert(id);
        for (const char* key : {"attention_macs", "bytes_min", "intensity", "median_s", "gflops", "roof_gflops",
                                "fraction_of_roof"})
            EXPECT_TRUE(positiveFinite(row[key])) << id << " " << key;
        const double macs = row["attention_macs"], bytes = row["bytes_min"], intensity = row["intensity"];
        EXPECT_NEAR(intensity, 2 * macs / bytes, 1e-12 * intensity) << id;
        const double roof = std::min(peak["fma_gflops"].get<double>(), intensity * peak["bandwidth_gbs"].get<double>());
        EXPECT_NEAR(row["roof_gflops"].get<double>(), roof, 1e-9 * roof) << id;
        EXPECT_EQ(row["bound"], roof < peak["fma_gflops"].get<double>() ? "memory" : "compute") << id;
        EXPECT_NEAR(row["fraction_of_roof"].get<double>(), row["gflops"].get<double>() / roof, 1e-9) << id;
        if (id == "full") {
            EXPECT_EQ(bytes, fullBytesMin(2, 128, 16, 16));
        }
    }
    EXPECT_EQ(seen, expected);
}

TEST(BenchCommand, RooflineCsvListsTheCausalVariantsAsked) {
    const Outcome csv = bench({"--roofline", "--variant", "full,xl", "--causal", "--n", "64", "--heads", "1", "--d", "8",
                               "--budget", "0", "--threads", "1", "--stream-mib", "16", "--csv"});
    ASSERT_EQ(csv.exitCode, 0) << csv.err;
    const auto csvLines = lines(csv.out);
    ASSERT_EQ(csvLines.size(), 3u);
    EXPECT_NE(csvLines[0].find("bytes_min,intensity"), std::string::npos);
    EXPECT_EQ(csvLines[1].rfind("full,64,8,8,1,true,", 0), 0u);
    EXPECT_EQ(csvLines[2].rfind("xl,64,8,8,1,true,", 0), 0u);
}

TEST(BenchCommand, LayerTimesEveryPartAndReportsCrossovers) {
    const json result = benchJson({"--layer", "--n", "64,128", "--heads", "2", "--d", "8", "--budget", "0", "--threads",
                                   "1", "--json"});
    ASSERT_EQ(result["points"].size(), 2u);
    for (const json& point : result["points"]) {
        for (const char* key : {"qkv_proj_s", "attention_s", "out_proj_s", "ffn_s", "layer_s", "gau_layer_s"})
            EXPECT_TRUE(positiveFinite(point[key])) << key;
        const double parts = point["qkv_proj_s"].get<double>() + point["attention_s"].get<double>() +
                             point["out_proj_s"].get<double>() + point["ffn_s"].get<double>();
        EXPECT_NEAR(point["layer_s"].get<double>(), parts, 1e-12);
    }
    EXPECT_EQ(result["crossovers"]["attention_exceeds_ffn"]["cost_model_n"], 2.0 * 2 * 8);

    // The GEMM engine that ran: the fastest of those measured, with the attention core's best rate beside it.
    const json& gemm = result["gemm_engine"];
    ASSERT_TRUE(gemm.is_object());
    ASSERT_FALSE(gemm["measured"].empty());
    int chosen = 0;
    double fastest = 0;
    for (const json& engine : gemm["measured"]) {
        EXPECT_TRUE(positiveFinite(engine["gflops"]));
        fastest = std::max(fastest, engine["gflops"].get<double>());
        if (!engine["chosen"].get<bool>()) continue;
        ++chosen;
        EXPECT_EQ(engine["name"], gemm["name"]);
        EXPECT_EQ(engine["gflops"], gemm["gflops"]);
    }
    EXPECT_EQ(chosen, 1);
    EXPECT_EQ(gemm["gflops"].get<double>(), fastest);
    EXPECT_EQ(gemm["probe_mkn"], json::array({512, 16, 64}));
    double attention = 0;
    for (const json& point : result["points"]) attention = std::max(attention, point["attention_gflops"].get<double>());
    EXPECT_EQ(gemm["attention_gflops"].get<double>(), attention);
    const bool farBelow = gemm["gflops"].get<double>() < 0.35 * attention;
    EXPECT_EQ(gemm["far_below_attention"].get<bool>(), farBelow);
    EXPECT_EQ(gemm["warning"].is_string(), farBelow);
    if (!gemm["openblas_core"].is_null()) {
        bool named = false;
        for (const json& engine : gemm["measured"])
            named = named || engine["name"].get<std::string>().find("(kernels: " + gemm["openblas_core"].get<std::string>() + ")") != std::string::npos;
        EXPECT_TRUE(named) << "the OpenBLAS engine names the kernel set it reports";
    }
    const Outcome text = bench({"--layer", "--n", "64,128", "--heads", "2", "--d", "8", "--budget", "0", "--threads", "1"});
    ASSERT_EQ(text.exitCode, 0) << text.err;
    EXPECT_NE(text.out.find("GEMM engine (the faster timed on a 512 x 16 x 64 product): "), std::string::npos) << text.out;
}

// One decoding step per (variant, n): positive times, the step's core MACs (softmax: the n keys of row
// n - 1, d·h for scores and for weights_v), and the cache the spec's rules give for grouped heads.
TEST(BenchCommand, DecodeTimesOneStepAndReportsTheCache) {
    const json result = benchJson({"--decode", "--variant", "full,chunk,linear", "--n", "64,100", "--heads", "4",
                                   "--kv-heads", "2", "--d", "8", "--budget", "0", "--threads", "1",
                                   "--json"});
    ASSERT_EQ(result["results"].size(), 6u);
    for (const json& point : result["results"]) {
        EXPECT_TRUE(positiveFinite(point["median_s"])) << point["variant"];
        EXPECT_TRUE(positiveFinite(point["kv_cache_bytes"])) << point["variant"];
        EXPECT_EQ(point["kv_heads"], 2);
    }
    const json& full = result["results"][1]; // full at n = 100
    EXPECT_EQ(full["n"], 100);
    EXPECT_EQ(full["step_core_macs"].get<double>(), 100.0 * 8 * 4 * 2);
    EXPECT_EQ(full["retained_keys"], 100);
    EXPECT_EQ(full["kv_cache_bytes"].get<double>(), 100.0 * 2 * (8 + 8) * 4);
    const json& chunk = result["results"][3]; // chunk c = ceil(sqrt(100)) = 10: ((100 - 1) mod 10) + 1 keys kept
    EXPECT_EQ(chunk["retained_keys"], 10);
    const json& linear = result["results"][5]; // elu's state: d·dv + d floats per key/value head
    EXPECT_TRUE(linear["retained_keys"].is_null());
    EXPECT_EQ(linear["kv_cache_bytes"].get<double>(), 2.0 * (8 * 8 + 8) * 4);
}

// bandwidth_gbs is kv_read_bytes / median time; a float16 cache halves both the cache and what the step
// reads; --model sets the shape and the model's own attention and precision.
TEST(BenchCommand, DecodeReportsTheBytesItReadsAndTheirRate) {
    const json result = benchJson({"--decode", "--variant", "full,linear", "--n", "64", "--heads", "4", "--kv-heads", "2", "--d", "8",
                                   "--kv-dtype", "f16", "--budget", "0", "--threads", "1", "--json"});
    const json& full = result["results"][0];
    EXPECT_EQ(full["kv_dtype"], "f16");
    EXPECT_EQ(full["kv_cache_bytes"].get<double>(), 64.0 * 2 * (8 + 8) * 2);
    EXPECT_EQ(full["kv_read_bytes"].get<double>(), 64.0 * 2 * (8 + 8) * 2);
    EXPECT_DOUBLE_EQ(full["bandwidth_gbs"].get<double>(), full["kv_read_bytes"].get<double>() / full["median_s"].get<double>() / 1e9);
    EXPECT_TRUE(full["cpu_share"].is_number());
    const json& linear = result["results"][1]; // a state, no cache: nothing read, its state still float32
    EXPECT_EQ(linear["kv_read_bytes"].get<double>(), 0.0);
    EXPECT_EQ(linear["kv_cache_bytes"].get<double>(), 2.0 * (8 * 8 + 8) * 4);
    const json mistral = benchJson({"--decode", "--model", "mistral-7b", "--n", "8192", "--heads", "4", "--d", "16", "--budget", "0",
                                    "--threads", "1", "--json"});
    const json& window = mistral["results"][0];
    EXPECT_EQ(window["variant"], "longformer");
    EXPECT_EQ(window["kv_dtype"], "bf16");
    EXPECT_EQ(window["heads"], 4);
    EXPECT_EQ(window["kv_heads"], 4); // --heads given: the model's grouping is its own head count's
    EXPECT_EQ(window["retained_keys"], 4096);
    EXPECT_EQ(window["kv_read_bytes"].get<double>(), 4096.0 * 4 * (16 + 16) * 2);
}

TEST(BenchCommand, BadArgumentsGiveOneErrorLineAndNonZeroExit) {
    const std::vector<std::vector<std::string>> cases = {
        {},
        {"--variant", "nope"},
        {"--variant", "full", "--n", "0"},
        {"--variant", "full", "--n", "12,abc"},
        {"--variant", "full", "--budget", "-1"},
        {"--variant", "full", "--json", "--csv"},
        {"--variant", "linformer", "--causal", "--n", "64"},
        {"--roofline", "--layer"},
        {"--targets", "--roofline"},
        {"--roofline", "--variant", "full", "--set", "nokey=1"},
        {"--peak", "--threads", "0"},
        {"--peak", "--stream-mib", "0"},
        {"--bogus"},
        {"--decode", "--variant", "linformer"},
        {"--decode", "--heads", "4", "--kv-heads", "3"},
        {"--variant", "full", "--kv-heads", "2"},
        {"--decode", "--layer"},
        {"--decode", "--kv-dtype", "f8"},
        {"--decode", "--kv-dtype", ""},
        {"--variant", "full", "--kv-dtype", "f16"},
        {"--layer", "--kv-dtype", "f16"},
        {"--decode", "--model", "llama-9"},
        {"--variant", "full", "--model", ""},
        {"--layer", "--model", "llama2-7b"},
        {"--targets", "--model", "llama2-7b"},
    };
    for (const auto& args : cases) {
        const Outcome outcome = bench(args);
        std::string joined;
        for (const auto& arg : args) joined += arg + " ";
        EXPECT_NE(outcome.exitCode, 0) << joined;
        EXPECT_TRUE(outcome.out.empty()) << joined << ": " << outcome.out;
        const auto errLines = lines(outcome.err);
        ASSERT_EQ(errLines.size(), 1u) << joined << ": " << outcome.err;
        EXPECT_EQ(errLines[0].rfind("attnlab: error: ", 0), 0u) << joined;
    }
}

} // namespace
} // namespace attnlab
