#pragma once

// Calls into the registry the way the command line does (prepareParams, then run / pattern / cost),
// and the comparisons the variant tests share. Header only: every test program compiles what it uses.

#include "core/errors.h"
#include "core/registry.h"
#include "support/reference_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

namespace attnlab::testing {

struct Inputs {
    Tensor3 q, k, v;
    AttentionInputs view() const { return {&q, &k, &v}; }
};

// Q and K [h, n, d], V [h, n, dv], N(0, scale²) entries; V keeps unit scale.
inline Inputs randomInputs(int heads, std::int64_t n, std::int64_t d, std::int64_t dv, std::uint64_t seed,
                           double scale = 1.0) {
    return {randomTensor(heads, n, d, seed, scale), randomTensor(heads, n, d, seed + 1000, scale),
            randomTensor(heads, n, dv, seed + 2000)};
}

// One call of a variant: id, causal flag, --set overrides and the run options the tests vary.
struct Call {
    std::string id;
    bool causal = false;
    ParamOverrides set;
    bool useReference = false;
    bool wantWeights = true;
    int threads = 1;
};

inline ProblemShape shapeOf(const Inputs& inputs, bool causal) { return inputs.view().shape(causal); }

inline ParamSet resolve(const Call& call, const ProblemShape& shape) {
    return prepareParams(requireVariant(call.id), shape, call.set);
}

inline RunResult runCall(const Call& call, const Inputs& inputs) {
    RunOptions options;
    options.causal = call.causal;
    options.params = resolve(call, shapeOf(inputs, call.causal));
    options.threads = call.threads;
    options.wantWeights = call.wantWeights;
    options.useReference = call.useReference;
    const AttentionInputs view = inputs.view();
    return requireVariant(call.id).run(view, options);
}

inline std::unique_ptr<Pattern> patternOf(const Call& call, const Inputs& inputs, int head = 0) {
    const ProblemShape shape = shapeOf(inputs, call.causal);
    const ParamSet params = resolve(call, shape);
    const AttentionInputs view = inputs.view();
    return buildPattern(requireVariant(call.id), shape, params, &view, head);
}

// A pattern for a shape alone (data-independent variants).
inline std::unique_ptr<Pattern> patternOfShape(const Call& call, std::int64_t n) {
    ProblemShape shape;
    shape.n = n;
    shape.d = 4;
    shape.dv = 4;
    shape.causal = call.causal;
    const ParamSet params = resolve(call, shape);
    return buildPattern(requireVariant(call.id), shape, params);
}

// Membership of every cell through Pattern::allowed.
inline Mask maskOf(const Pattern& pattern) {
    return maskFromRule(pattern.size(), [&pattern](std::int64_t i, std::int64_t j) { return pattern.allowed(i, j); });
}

inline std::string describe(const Call& call) {
    std::string text = call.id + (call.causal ? " causal" : " bidirectional");
    for (const auto& [key, value] : call.set) text += " " + key + "=" + value;
    return text + (call.useReference ? " (reference path)" : " (fast path)");
}

// out and the effective weights of one run against the reference weights W_h (out = W_h · V_h).
inline void expectRunMatches(const RunResult& result, const std::vector<Matrix>& weights, const Tensor3& v,
                             double tolerance, const std::string& what) {
    ASSERT_EQ(result.out.heads, v.heads) << what;
    ASSERT_EQ(result.out.rows, v.rows) << what;
    ASSERT_EQ(result.out.cols, v.cols) << what;
    EXPECT_LE(relativeError(result.out.values, stackOutputs(weights, v)), tolerance) << what << ": out";
    if (!result.weights) return;
    ASSERT_EQ(result.weights->heads, v.heads) << what;
    ASSERT_EQ(result.weights->rows, v.rows) << what;
    ASSERT_EQ(result.weights->cols, v.rows) << what;
    EXPECT_LE(relativeError(result.weights->values, stackWeights(weights)), tolerance) << what << ": weights";
}

// Runs the fast path and the reference path, with and without weights, against the reference W_h.
inline void expectBothPathsMatch(Call call, const Inputs& inputs, const std::vector<Matrix>& weights,
                                 double tolerance = 1e-5) {
    for (const bool reference : {false, true})
        for (const bool wantWeights : {true, false}) {
            call.useReference = reference;
            call.wantWeights = wantWeights;
            const RunResult result = runCall(call, inputs);
            EXPECT_EQ(result.weights.has_value(), wantWeights) << describe(call);
            expectRunMatches(result, weights, inputs.v, tolerance, describe(call));
        }
}

} // namespace attnlab::testing

namespace attnlab::testing {

// Candidate values of one parameter taken from its schema: every choice, both booleans, a few index
// lists, small integers from its minimum up (invalid ones are dropped when resolved). A type not known
// here is swept with its default only.
inline std::vector<std::string> candidateValues(const ParamSpec& spec, std::int64_t n) {
    if (spec.type == ParamType::Choice) return spec.choices;
    if (spec.type == ParamType::Boolean) return {"true", "false"};
    if (spec.type == ParamType::IndexList) return {"0", "1," + std::to_string(n / 2), std::to_string(n - 1)};
    if (spec.type != ParamType::Integer) return {};
    const std::int64_t low = spec.minValue.value_or(0);
    std::vector<std::string> values;
    for (const std::int64_t value : {low, low + 1, low + 2, low + 5, low + 9}) values.push_back(std::to_string(value));
    return values;
}

// The defaults and every single-key change a variant accepts for this shape, causal and not as supported:
// the settings the registry-driven tests sweep, so a new parameter or variant is covered without a list.
inline std::vector<Call> schemaCalls(const VariantInfo& variant, const ProblemShape& base) {
    std::vector<ParamOverrides> sets = {{}};
    for (const ParamSpec& spec : variant.params)
        for (const std::string& value : candidateValues(spec, base.n)) sets.push_back({{spec.key, value}});
    std::vector<Call> calls;
    for (const bool causal : {false, true}) {
        ProblemShape shape = base;
        shape.causal = causal;
        for (const ParamOverrides& set : sets) {
            try {
                prepareParams(variant, shape, set);
            } catch (const InputError&) {
                continue; // outside the variant's ranges; the parameter tests cover rejection
            }
            calls.push_back({variant.id, causal, set});
        }
    }
    return calls;
}

// The defaults of every registered variant in each form it supports, plus chosen non-default settings
// where the table below has them; valid for any n ≥ 1 and even d (xl's sinusoid). A new variant is
// swept with its defaults without an entry here.
inline std::vector<Call> representativeCalls(std::int64_t n) {
    const std::string third = std::to_string(n / 3);
    const std::vector<std::pair<std::string, std::vector<ParamOverrides>>> table = {
        {"full", {{}, {{"impl", "dense"}}}},
        {"strided", {{}, {{"stride", "3"}}}},
        {"fixed", {{}, {{"block", "6"}, {"summary", "2"}}}},
        {"longformer", {{}, {{"window", "4"}, {"dilation", "2"}, {"globals", "0," + third}}}},
        {"chunk", {{}, {{"chunk", "7"}}}},
        {"xl", {{}, {{"segment", "6"}, {"memory", "9"}}, {{"relpos", "none"}, {"segment", "5"}, {"memory", "0"}}}},
        {"linear", {{}, {{"kernel", "efficient"}}, {{"kernel", "taylor"}}}},
        {"performer", {{}, {{"features", "9"}, {"orthogonal", "false"}, {"seed", "3"}}}},
        {"linformer", {{}, {{"k", "5"}, {"proj", "pool"}}, {{"k", "7"}, {"seed", "2"}}}},
        {"lsh", {{}, {{"buckets", "4"}, {"rounds", "2"}, {"shared_qk", "false"}}, {{"buckets", "8"}, {"rounds", "3"}}}},
        {"relu2", {{}, {{"scale", "n2"}}}},
        {"mixed_chunk", {{}, {{"chunk", "6"}}}},
        {"bigbird", {{}, {{"window", "3"}, {"globals", "1"}, {"random", "5"}, {"seed", "4"}}}},
        {"custom", {{}, {{"expr", "docs(3, 5) & causal | sink(2) | random(2, 9)"}}, {{"expr", "stride(3) & !band(1) | rows(1)"}}}},
    };
    std::vector<Call> calls;
    for (const VariantInfo& variant : allVariants()) {
        const std::string& id = variant.id;
        const auto entry = std::find_if(table.begin(), table.end(), [&id](const auto& row) { return row.first == id; });
        const std::vector<ParamOverrides> sets = entry == table.end() ? std::vector<ParamOverrides>{{}} : entry->second;
        for (const ParamOverrides& set : sets)
            for (const bool causal : {false, true}) {
                if (causal && variant.causalSupport == CausalSupport::BidirectionalOnly) continue;
                if (!causal && variant.causalSupport == CausalSupport::CausalOnly) continue;
                if (id == "linformer" && set.count("k") && std::stoll(set.at("k")) > n) continue;
                Call call;
                call.id = id;
                call.causal = causal;
                call.set = set;
                calls.push_back(call);
            }
    }
    return calls;
}

} // namespace attnlab::testing
