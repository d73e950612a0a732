// `attnlab cost --decode` and `--model`, part of the test_decode program: the key/value heads in the
// projections, the step and its cache reported, the cache precision's bytes, and the model shapes with
// explicit options over them.

#include "core/cost/cost_model.h"
#include "core/decode/decode.h"
#include "core/decode/kv_cache.h"
#include "core/errors.h"
#include "core/measure/timing.h"
#include "core/patterns/decode_cache.h"
#include "core/registry.h"
#include "support/variant_checks.h"
#include "support/variant_runner.h"
#include "test_cli_harness.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <string>
#include <tuple>

namespace attnlab {
namespace {

class DecodeCli : public clitest::CliTest {
  protected:
    nlohmann::json costJson(std::vector<std::string> extra) const {
        std::vector<std::string> args = {"cost", "--n", "4096", "--d", "128", "--heads", "32", "--json"};
        args.insert(args.end(), extra.begin(), extra.end());
        return clitest::parseJson(succeed(args).out);
    }
    void expectOneLineError(const std::vector<std::string>& args, const std::string& mention) const {
        const clitest::Outcome outcome = run(args);
        EXPECT_TRUE(outcome.exited && outcome.exitCode != 0) << clitest::describe(args);
        EXPECT_EQ(outcome.errLines(), 1u) << outcome.err;
        EXPECT_NE(outcome.err.find(mention), std::string::npos) << outcome.err;
    }
};

TEST_F(DecodeCli, KvHeadsChangeTheProjectionsAndAreReported) {
    const double n = 4096, hd = 4096;
    const auto grouped = costJson({"--variant", "full", "--kv-heads", "8"});
    EXPECT_EQ(grouped["kv_heads"].get<double>(), 8);
    EXPECT_EQ(grouped["terms"]["qkv_proj"].get<double>(), n * hd * (32 + 16) * 128);
    EXPECT_FALSE(grouped.contains("decode"));
    const auto plain = costJson({"--variant", "full"});
    EXPECT_EQ(plain["kv_heads"].get<double>(), 32);
    EXPECT_EQ(plain["terms"]["qkv_proj"].get<double>(), 3 * n * hd * hd);
    expectOneLineError(
        {"cost", "--variant", "full", "--n", "8", "--d", "4", "--heads", "4", "--kv-heads", "3"},
        "--kv-heads");
    expectOneLineError(
        {"cost", "--variant", "full", "--n", "8", "--d", "4", "--heads", "4", "--kv-heads", "0"},
        "--kv-heads");
}

TEST_F(DecodeCli, DecodeReportsTheStepAndTheCache) {
    const auto mistral =
        costJson({"--variant", "longformer", "--kv-heads", "8", "--decode", "--set", "window=8192"});
    EXPECT_TRUE(mistral["decode"].get<bool>());
    EXPECT_TRUE(mistral["causal"].get<bool>());
    EXPECT_EQ(mistral["retained_keys"].get<double>(), 4096);
    EXPECT_EQ(mistral["kv_cache_bytes"].get<double>(), 4096.0 * 8 * 256 * 4);
    EXPECT_EQ(mistral["terms"]["scores"].get<double>(), 4096.0 * 128 * 32);
    EXPECT_EQ(mistral["terms"]["qkv_proj"].get<double>(), 4096.0 * 48 * 128);
    EXPECT_EQ(mistral["layer_flops"].get<double>(), 2 * mistral["layer_macs"].get<double>());
    const auto linear = costJson({"--variant", "linear", "--decode"});
    EXPECT_TRUE(linear["retained_keys"].is_null());
    EXPECT_EQ(linear["kv_cache_bytes"].get<double>(), 32.0 * (128 * 128 + 128) * 4);
    expectOneLineError({"cost", "--variant", "linformer", "--n", "8", "--d", "4", "--heads", "1", "--decode"},
                       "linformer");
}

TEST_F(DecodeCli, CachePrecisionHalvesTheCacheAndWhatTheStepReads) {
    const auto f32 = costJson({"--variant", "full", "--kv-heads", "8", "--decode"});
    const auto f16 = costJson({"--variant", "full", "--kv-heads", "8", "--decode", "--kv-dtype", "f16"});
    const auto bf16 = costJson({"--variant", "full", "--kv-heads", "8", "--decode", "--kv-dtype", "bf16"});
    EXPECT_EQ(f32["kv_dtype"], "f32");
    EXPECT_EQ(f16["kv_dtype"], "f16");
    EXPECT_EQ(f32["kv_cache_bytes"].get<double>(), 4096.0 * 8 * 256 * 4);
    EXPECT_EQ(f16["kv_cache_bytes"].get<double>(), 4096.0 * 8 * 256 * 2);
    EXPECT_EQ(bf16["kv_cache_bytes"].get<double>(), f16["kv_cache_bytes"].get<double>());
    EXPECT_EQ(f16["kv_read_bytes"].get<double>(), 4096.0 * 8 * 256 * 2);
    // bytes_min: the new token's query, output, key and value in float32, and the cache read in its
    // precision.
    EXPECT_EQ(f16["bytes_min"].get<double>(), (32 + 8) * 256.0 * 4 + 4096.0 * 8 * 256 * 2);
    EXPECT_EQ(f16["terms"], f32["terms"]); // the same arithmetic
    const auto linear = costJson({"--variant", "linear", "--decode", "--kv-dtype", "f16"});
    EXPECT_EQ(linear["kv_cache_bytes"].get<double>(), 32.0 * (128 * 128 + 128) * 4); // a state stays float32
    expectOneLineError(
        {"cost", "--variant", "full", "--n", "8", "--d", "4", "--heads", "1", "--decode", "--kv-dtype", "f8"},
        "--kv-dtype");
    expectOneLineError(
        {"cost", "--variant", "full", "--n", "8", "--d", "4", "--heads", "1", "--kv-dtype", "f16"},
        "--decode");
}

TEST_F(DecodeCli, ModelsSetTheirShapeAndExplicitOptionsOverrideIt) {
    const auto llama =
        costJson({"--model", "llama2-70b", "--decode"}); // --n 4096 --d 128 --heads 32 of costJson override
    EXPECT_EQ(llama["model"], "llama2-70b");
    EXPECT_EQ(llama["layers"].get<double>(), 80);
    EXPECT_EQ(llama["heads"], 32);
    EXPECT_EQ(llama["kv_heads"], 32);
    EXPECT_EQ(llama["kv_dtype"], "f16");
    EXPECT_EQ(llama["model_kv_cache_bytes"].get<double>(), 80 * llama["kv_cache_bytes"].get<double>());
    EXPECT_EQ(llama["terms"]["ffn"].get<double>(),
              3.0 * 4096 * 28672); // one token through SwiGLU of width 28672
    const auto own = clitest::parseJson(succeed({"cost", "--model", "llama2-70b", "--decode", "--json"}).out);
    EXPECT_EQ(own["n"].get<double>(), 4096);
    EXPECT_EQ(own["heads"], 64);
    EXPECT_EQ(own["kv_heads"], 8);
    EXPECT_EQ(own["d"].get<double>(), 128);
    EXPECT_EQ(own["model_kv_cache_bytes"].get<double>(), 80.0 * 4096 * 8 * 256 * 2); // 1.25 GiB in float16
    const auto f32 = clitest::parseJson(
        succeed({"cost", "--model", "llama2-70b", "--decode", "--kv-dtype", "f32", "--json"}).out);
    EXPECT_EQ(f32["kv_cache_bytes"].get<double>(), 2 * own["kv_cache_bytes"].get<double>());
    const auto mistral = clitest::parseJson(
        succeed({"cost", "--model", "mistral-7b", "--n", "32768", "--decode", "--json"}).out);
    EXPECT_EQ(mistral["variant"], "longformer");
    EXPECT_EQ(mistral["retained_keys"].get<double>(), 4096);
    EXPECT_EQ(mistral["model_kv_cache_bytes"].get<double>(),
              32.0 * 4096 * 8 * 256 * 2); // 512 MiB in bfloat16
    const auto prefill = clitest::parseJson(succeed({"cost", "--model", "bert-base", "--json"}).out);
    EXPECT_EQ(prefill["n"].get<double>(), 512);
    EXPECT_EQ(prefill["terms"]["ffn"].get<double>(), 2.0 * 512 * 768 * 3072);
    const clitest::Outcome list = succeed({"cost", "--model", "list"});
    for (const char* id : {"bert-base", "gpt2-small", "llama2-7b", "llama2-70b", "mistral-7b", "llama3-8b"})
        EXPECT_NE(list.out.find(id), std::string::npos) << id;
    expectOneLineError({"cost", "--model", "llama-9", "--decode"}, "llama-9");
    expectOneLineError({"cost", "--model", "llama2-7b", "--kv-heads", "5"}, "--kv-heads");
}

} // namespace
} // namespace attnlab
