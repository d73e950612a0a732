#pragma once

// Checks a variant gets from what it declares, taking the VariantInfo itself rather than an id, so the
// registry-driven tests run them on every registered variant and tests/test_variants_registry.cpp on a
// throw-away variant that is not registered. Settings come from the variant's schema (schemaCalls).

#include "core/decode/decode.h"
#include "support/variant_runner.h"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace attnlab::testing {

inline ProblemShape smallShape(std::int64_t n, bool causal) {
    ProblemShape shape;
    shape.n = n;
    shape.d = 8;
    shape.dv = 8;
    shape.causal = causal;
    return shape;
}

inline std::string settingText(const VariantInfo& variant, std::int64_t n, bool causal, const ParamOverrides& set) {
    std::string text = variant.id + " n=" + std::to_string(n) + (causal ? " causal" : "");
    for (const auto& [key, value] : set) text += " " + key + "=" + value;
    return text;
}

// A variant that declares printExpr: `custom` with the printed expression builds exactly the variant's
// pattern and components, causal or not, at every schema setting over small n. Returns the settings checked.
inline int expectCustomReproducesPrintedExpression(const VariantInfo& variant) {
    const VariantInfo& custom = requireVariant("custom");
    int checked = 0;
    for (const std::int64_t n : {1, 2, 7, 16, 33})
        for (const Call& call : schemaCalls(variant, smallShape(n, false))) {
            const ProblemShape shape = smallShape(n, call.causal);
            SCOPED_TRACE(settingText(variant, n, call.causal, call.set));
            const ParamSet params = prepareParams(variant, shape, call.set);
            PatternRequest request;
            request.shape = shape;
            request.params = &params;
            const std::string expression = variant.printExpr(request);
            SCOPED_TRACE(expression);
            const auto mask = denseMask(*buildPattern(variant, shape, params));
            const auto components = denseComponents(*buildComponents(variant, shape, params));
            // The printed expression holds whether `custom` runs causally or not.
            for (const bool customCausal : {call.causal, false}) {
                const ProblemShape customShape = smallShape(n, customCausal);
                const ParamSet customParams = prepareParams(custom, customShape, {{"expr", expression}});
                EXPECT_EQ(denseMask(*buildPattern(custom, customShape, customParams)), mask);
                EXPECT_EQ(denseComponents(*buildComponents(custom, customShape, customParams)), components);
            }
            ++checked;
        }
    return checked;
}

// Keys j < shape.n that row n − 1 or a later one (up to n − 1 + horizon) allows: what a layer must keep.
// The pattern grows with the sequence while the parameters stay those resolved at n, as when decoding.
inline std::int64_t keysStillNeeded(const VariantInfo& variant, const ProblemShape& shape, const ParamSet& params,
                                    std::int64_t horizon) {
    ProblemShape grown = shape;
    grown.n = shape.n + horizon;
    const auto pattern = buildPattern(variant, grown, params);
    std::int64_t needed = 0;
    for (std::int64_t j = 0; j < shape.n; ++j) {
        bool used = false;
        for (std::int64_t i = shape.n - 1; i < grown.n && !used; ++i) used = pattern->allowed(i, j);
        needed += used ? 1 : 0;
    }
    return needed;
}

// Whether the variant states its own rule for the keys a decoding layer keeps, with no recurrent state and
// a pattern that does not depend on the data: then the rule must give exactly the keys later rows use.
// (Without a rule every key stays, which can never drop one a later row needs.)
inline bool hasRetainedKeysRule(const VariantInfo& variant) {
    return variant.decode && variant.decode->retainedKeys && !variant.decode->stateFloats && !variant.dataDependentPattern &&
           hasCausalForm(variant, true);
}

// The variant's retained keys against the brute-force count of keysStillNeeded, at every causal schema
// setting over a range of n (ones a period divides and ones it does not). Returns the settings checked.
inline int expectRetainedKeysAreTheKeysLaterRowsUse(const VariantInfo& variant) {
    int checked = 0;
    for (const std::int64_t n : {1, 2, 5, 16, 20, 33, 47})
        for (const Call& call : schemaCalls(variant, smallShape(n, true))) {
            if (!call.causal) continue;
            const ProblemShape shape = smallShape(n, true);
            SCOPED_TRACE(settingText(variant, n, true, call.set));
            const ParamSet params = prepareParams(variant, shape, call.set);
            const DecodeCost cache = decodeCache(variant, shape, params);
            if (!cache.retainedKeys) {
                ADD_FAILURE() << "a retained-keys rule that keeps no keys needs a recurrent state (DecodeInfo::stateFloats)";
                continue;
            }
            EXPECT_EQ(*cache.retainedKeys, keysStillNeeded(variant, shape, params, 2 * n + 64)) << "retained keys";
            ++checked;
        }
    return checked;
}

} // namespace attnlab::testing
