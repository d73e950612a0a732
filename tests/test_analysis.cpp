// The Qt-free analysis layer (core/analysis): every variant's stated reach against the measured reach
// of its pattern, the accuracy sweeps the variants declare, the settings field table, block kernel
// costs, context limits and the ranges of animations (the timing sweep's tests: test_analysis/).

#include "core/analysis/accuracy.h"
#include "core/analysis/animation_range.h"
#include "core/analysis/block_cost.h"
#include "core/analysis/flop_breakdown.h"
#include "core/analysis/inference.h"
#include "core/analysis/lab_settings.h"
#include "core/analysis/receptive_field.h"
#include "core/analysis/settings_check.h"
#include "core/analysis/timing_sweep.h"
#include "core/decode/decode.h"
#include "core/errors.h"
#include "core/random/input_generator.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <optional>
#include <set>
#include <string>

namespace attnlab {
namespace {

struct ReachCase {
    std::string id;
    std::int64_t n;
    bool causal;
    ParamOverrides overrides;
};

// Shapes and parameters under which each pattern variant states something about its reach.
const std::vector<ReachCase> kReachCases = {
    {"strided", 100, true, {}},           {"strided", 64, false, {}},
    {"fixed", 96, true, {}},              {"fixed", 100, false, {{"block", "10"}, {"summary", "2"}}},
    {"longformer", 200, false, {{"window", "8"}}}, {"longformer", 200, true, {{"window", "6"}, {"dilation", "3"}}},
    {"longformer", 120, false, {{"window", "4"}, {"globals", "5,60"}}},
    {"bigbird", 150, false, {}},          {"xl", 300, true, {{"segment", "16"}, {"memory", "32"}}},
};

// The chosen cases above, then every variant that declares reachTheory at its defaults in each form it
// has (found through the registry, so a new one is checked without an entry above).
std::vector<ReachCase> reachCases() {
    std::vector<ReachCase> cases = kReachCases;
    for (const VariantInfo& variant : allVariants()) {
        if (!variant.reachTheory) continue;
        for (const bool causal : {false, true})
            if (hasCausalForm(variant, causal)) cases.push_back({variant.id, 100, causal, {}});
    }
    return cases;
}

// Every statement a variant makes about its reach holds for the BFS over its pattern's rows.
TEST(ReachTheory, EveryStatementHoldsForThePatternsOwnReach) {
    constexpr int kLayers = 6;
    std::set<std::string> stated;
    const std::vector<ReachCase> cases = reachCases();
    for (std::size_t k = 0; k < cases.size(); ++k) {
        const ReachCase& c = cases[k];
        const VariantInfo& variant = requireVariant(c.id);
        ASSERT_TRUE(variant.reachTheory) << c.id;
        const ProblemShape shape{1, c.n, 16, 16, c.causal};
        const ParamSet params = prepareParams(variant, shape, c.overrides);
        const ReachTheory theory = variant.reachTheory(shape, params, kLayers);
        const bool chosen = k < kReachCases.size(), states = !theory.maxReach.empty() || theory.allPairsBy > 0;
        // A chosen case states something under its label; at the defaults a variant may have nothing exact
        // to state (xl when (L − 1) + m already exceeds n − 1).
        if (chosen) {
            ASSERT_FALSE(theory.label.empty()) << c.id;
            EXPECT_TRUE(states) << c.id;
        }
        if (!states) continue;
        EXPECT_EQ(theory.label.find("seed"), std::string::npos) << "labels cite papers: " << theory.label;
        stated.insert(c.id);
        const ReachCurve curve = reachCurve(*buildPattern(variant, shape, params), kLayers, c.n);
        for (const auto& [layers, reach] : theory.maxReach)
            EXPECT_EQ(curve.maxReachDistance[static_cast<std::size_t>(layers)], reach) << c.id << " at l = " << layers;
        if (theory.allPairsBy > 0) {
            const double all = c.causal ? (static_cast<double>(c.n) + 1) / (2.0 * static_cast<double>(c.n)) : 1.0;
            EXPECT_DOUBLE_EQ(curve.fractionReachable[static_cast<std::size_t>(theory.allPairsBy)], all) << c.id;
            EXPECT_LT(curve.fractionReachable[static_cast<std::size_t>(theory.allPairsBy) - 1], all) << c.id;
        }
    }
    for (const VariantInfo& variant : allVariants())
        if (variant.reachTheory) {
            EXPECT_TRUE(stated.count(variant.id)) << variant.id << " declares reachTheory but states nothing at its defaults "
                                                                  "nor in kReachCases";
        }
}

// Bidirectional fixed with a partial last block that has no summary columns never reaches it from outside.
TEST(ReachTheory, NothingIsStatedWhereItWouldNotHold) {
    const VariantInfo& fixed = requireVariant("fixed");
    const ProblemShape shape{1, 103, 16, 16, false};
    const ParamSet params = prepareParams(fixed, shape, {{"block", "10"}, {"summary", "2"}});
    EXPECT_EQ(fixed.reachTheory(shape, params, 4).allPairsBy, 0);
    const ReachCurve curve = reachCurve(*buildPattern(fixed, shape, params), 4, 103);
    EXPECT_LT(curve.fractionReachable.back(), 1.0);
    const VariantInfo& bigbird = requireVariant("bigbird");
    const ProblemShape causal{1, 64, 16, 16, true};
    EXPECT_TRUE(bigbird.reachTheory(causal, prepareParams(bigbird, causal, {}), 4).label.empty());
}

TEST(AccuracySweeps, DeclaredByTheVariantsAndValidForThem) {
    const std::vector<RegisteredSweep> sweeps = registeredAccuracySweeps();
    ASSERT_FALSE(sweeps.empty());
    bool lines = false;
    std::set<std::string> families;
    for (const RegisteredSweep& entry : sweeps) {
        EXPECT_TRUE(families.insert(entry.sweep->family).second) << "family ids are unique: " << entry.sweep->family;
        if (!entry.sweep->budget) lines = true;
        EXPECT_FALSE(entry.sweep->budget && lines) << "budget curves come before reference lines";
        const ProblemShape shape{1, 1024, 16, 16, false};
        for (const std::string& value : entry.sweep->values) {
            ParamOverrides overrides = entry.sweep->fixed;
            overrides[entry.sweep->parameter] = value;
            EXPECT_NO_THROW(prepareParams(*entry.variant, shape, overrides)) << entry.sweep->family << " " << value;
        }
    }
}

TEST(AccuracySweeps, PoolingWithKEqualToNIsExactAndCausalLeavesOutBidirectionalVariants) {
    const std::int64_t n = 32, d = 8;
    const GeneratedInputs inputs = generateInputs(GeneratedKind::Gaussian, 1, n, d, d, 3);
    const ProblemShape shape{1, n, d, d, false};
    const AccuracyReport report = measureAccuracy(inputs.q, inputs.k, inputs.v, shape, AccuracyOptions{}, {});
    bool exactPool = false;
    for (const AccuracyMeasurement& point : report.measurements) {
        EXPECT_LE(point.minError, point.error);
        EXPECT_GE(point.maxError, point.error);
        if (point.family == "linformer_pool" && point.value == "32") exactPool = point.error < 1e-5;
        if (point.family.rfind("linformer", 0) == 0) {
            EXPECT_LE(point.x, static_cast<double>(n)) << "k > n is left out";
        }
    }
    EXPECT_TRUE(exactPool);
    const AccuracyReport causal = measureAccuracy(inputs.q, inputs.k, inputs.v, ProblemShape{1, n, d, d, true}, AccuracyOptions{}, {});
    for (const AccuracyMeasurement& point : causal.measurements) EXPECT_NE(point.family.rfind("linformer", 0), 0u);
    ASSERT_FALSE(causal.notes.empty());
    EXPECT_NE(causal.notes.front().find("bidirectional only"), std::string::npos);
}

// A change of one field is seen by exactly the uses the table names for it.
TEST(SettingsFields, EveryFieldChangesExactlyTheKeysOfItsUses) {
    const std::vector<SettingsUse> uses = {SettingsUse::LabPattern, SettingsUse::PatternFigure, SettingsUse::Reach,
                                           SettingsUse::AccuracyInputs, SettingsUse::TimingSweep, SettingsUse::CostShape,
                                           SettingsUse::CostFigure, SettingsUse::Inference};
    std::set<std::string> names;
    const LabSettings base;
    for (const SettingsField& field : settingsFields()) {
        EXPECT_TRUE(names.insert(field.name).second) << field.name;
        LabSettings changed = base;
        std::visit(
            [&](auto member) {
                using Value = std::decay_t<decltype(changed.*member)>;
                if constexpr (std::is_same_v<Value, bool>)
                    changed.*member = !(changed.*member);
                else if constexpr (std::is_same_v<Value, InputSource>)
                    changed.*member = InputSource::NpyFiles;
                else if constexpr (std::is_same_v<Value, TimingMode>)
                    changed.*member = TimingMode::Layer;
                else if constexpr (std::is_arithmetic_v<Value>)
                    changed.*member += 1;
                else if constexpr (std::is_same_v<Value, std::string>)
                    changed.*member += "x";
                else if constexpr (std::is_same_v<Value, ParamOverrides>)
                    (changed.*member)["key"] = "1";
                else
                    (changed.*member).resize(1);
            },
            field.member);
        EXPECT_NE(changed, base) << field.name << " is a field of LabSettings";
        for (const SettingsUse use : uses) {
            const bool affected = (field.uses & static_cast<unsigned>(use)) != 0;
            EXPECT_EQ(sameFields(base, changed, use), !affected) << field.name;
            EXPECT_EQ(fieldsKey(base, use) == fieldsKey(changed, use), !affected) << field.name;
        }
    }
}

TEST(SettingsCheck, NamesTheProblemOrNothing) {
    LabSettings settings;
    EXPECT_EQ(settingsProblem(settings), "");
    settings.heads = 4;
    settings.kvHeads = 3;
    EXPECT_NE(settingsProblem(settings).find("must divide heads 4"), std::string::npos) << settingsProblem(settings);
    settings.kvHeads = 2;
    EXPECT_EQ(settingsProblem(settings), "");
    settings.heads = 1;
    settings.kvHeads = 0;
    settings.variant = "xl";
    settings.d = 63;
    EXPECT_NE(settingsProblem(settings).find("even head size"), std::string::npos) << settingsProblem(settings);
    settings = LabSettings{};
    settings.source = InputSource::NpyFiles;
    EXPECT_NE(settingsProblem(settings), "");
}

// Token labels become SVG text, which has no form for control characters: they are named, while tabs,
// line breaks and any printable Unicode (Chinese tokens) pass.
TEST(SettingsCheck, TokensWithControlBytesAreNamed) {
    LabSettings settings;
    settings.tokens = "the\tcat\nsat 猫 ä";
    EXPECT_EQ(settingsProblem(settings), "");
    for (const char control : {'\x01', '\x07', '\x1b', '\x7f'}) {
        settings.tokens = std::string("ab") + control + "c";
        char hex[8];
        std::snprintf(hex, sizeof hex, "0x%02x", static_cast<unsigned char>(control));
        EXPECT_EQ(settingsProblem(settings), "the tokens hold the control byte " + std::string(hex) +
                                                 " at byte 3: token labels must be printable text");
    }
}

// Every variant with a block kernel's cost counts its core per allowed cell, which the block cost scales.
TEST(BlockKernelCost, EveryMaskedCoreIsPerAllowedCell) {
    ProblemShape shape;
    shape.n = 200;
    shape.d = 8;
    shape.dv = 6;
    shape.heads = 3;
    for (const VariantInfo& variant : allVariants()) {
        SCOPED_TRACE(variant.id);
        shape.causal = variant.causalSupport == CausalSupport::CausalOnly;
        const ParamSet params = prepareParams(variant, shape, {});
        const auto cost = blockKernelCost(variant, shape, params, 16);
        ASSERT_EQ(cost.has_value(), hasBlockKernelCost(variant));
        if (!cost) continue;
        const CoreCost core = variant.cost(shape, params);
        const double cells = static_cast<double>(cost->blocks.allowedCells);
        EXPECT_DOUBLE_EQ(core.terms.at("scores"), cells * 8 * 3);
        EXPECT_DOUBLE_EQ(core.terms.at("weights_v"), cells * 6 * 3);
        EXPECT_DOUBLE_EQ(cost->blockMacs, cost->exactMacs * static_cast<double>(cost->blocks.computedCells) / cells);
        EXPECT_GE(cost->blockMacs, cost->exactMacs);
    }
}

} // namespace
} // namespace attnlab

namespace attnlab {
namespace {

// The first context at which L layers outgrow a budget, against a scan of every n, for full attention
// (its cache grows one key at a time) and chunks of 128 (a power of two: every doubling up to the chunk
// stays in the first chunk, where the cache still grows); for chunks of 100 the search still ends on a
// crossing (over the budget at n, not at n − 1).
TEST(ContextLimit, IsTheFirstContextOverTheBudgetFoundByScanning) {
    LabSettings settings;
    settings.heads = 4;
    settings.kvHeads = 2;
    settings.d = 16;
    settings.modelLayers = 3;
    const auto bytesAt = [&](const VariantChoice& choice, std::int64_t n) {
        const VariantInfo& variant = requireVariant(choice.variant);
        ProblemShape shape = problemShape(settings, variant);
        shape.n = n;
        shape.causal = true;
        return 3.0 * decodeCache(variant, shape, prepareParams(variant, shape, choice.params)).kvCacheBytes;
    };
    const auto scan = [&](const VariantChoice& choice, double budget) -> std::optional<std::int64_t> {
        for (std::int64_t n = 1; n <= 4096; ++n)
            if (bytesAt(choice, n) > budget) return n;
        return std::nullopt;
    };
    const VariantChoice full{"full", {}}, chunk{"chunk", {{"chunk", "128"}}}, oddChunk{"chunk", {{"chunk", "100"}}};
    for (const double budget : {1000.0, 60000.0, 200000.0}) {
        SCOPED_TRACE(budget);
        EXPECT_EQ(contextLimit(settings, full, budget), scan(full, budget));
        // 3 layers × 2 heads × 32 floats × 4 bytes = 768 bytes per key; chunk 128 keeps ≤ 98,304 bytes.
        EXPECT_EQ(contextLimit(settings, chunk, budget), budget >= 98304.0 ? std::nullopt : scan(chunk, budget));
        if (const auto limit = contextLimit(settings, oddChunk, budget)) {
            EXPECT_GT(bytesAt(oddChunk, *limit), budget);
            if (*limit > 1) {
                EXPECT_LE(bytesAt(oddChunk, *limit - 1), budget);
            }
        }
    }
    EXPECT_EQ(contextLimit(settings, {"full", {}}, 60000.0), std::optional<std::int64_t>(79)); // 78 · 768 = 59,904
}

std::vector<double> framesOf(const std::string& option, bool integral) {
    const AnimationOption split = splitAnimationOption(option);
    return animationValues(split.param, split.range, integral);
}

std::string animationError(const std::string& option, bool integral = true) {
    try {
        framesOf(option, integral);
    } catch (const InputError& error) {
        return error.what();
    }
    return "accepted";
}

TEST(AnimationRange, StepsFactorsAndDescendingRanges) {
    EXPECT_EQ(framesOf("layers=1:8", true), (std::vector<double>{1, 2, 3, 4, 5, 6, 7, 8}));
    EXPECT_EQ(framesOf("window=1:10:4", true), (std::vector<double>{1, 5, 9})); // TO is not on a step
    EXPECT_EQ(framesOf("decode=10:1:-3", true), (std::vector<double>{10, 7, 4, 1}));
    EXPECT_EQ(framesOf("n=64:4096:*2", true), (std::vector<double>{64, 128, 256, 512, 1024, 2048, 4096}));
    EXPECT_EQ(framesOf("n=4096:64:*0.5", true), (std::vector<double>{4096, 2048, 1024, 512, 256, 128, 64}));
    // 1.5^k rounded: 1, 1.5, 2.25, 3.375, 5.06, 7.59, 11.4, 17.1, 25.6, 38.4, 57.7, 86.5; the repeated 2 is
    // dropped.
    EXPECT_EQ(framesOf("n=1:100:*1.5", true), (std::vector<double>{1, 2, 3, 5, 8, 11, 17, 26, 38, 58, 86}));
    const std::vector<double> scales = framesOf("input_scale=1/64:16:*2", false);
    ASSERT_EQ(scales.size(), 11u);
    for (std::size_t k = 0; k < scales.size(); ++k)
        EXPECT_DOUBLE_EQ(scales[k], std::ldexp(1.0, static_cast<int>(k) - 6));
    EXPECT_EQ(framesOf("input_scale=0.5:1.5:0.25", false), (std::vector<double>{0.5, 0.75, 1.0, 1.25, 1.5}));
    EXPECT_EQ(framesOf("n=1:600", true).size(), 600u);
    EXPECT_EQ(animationValueText(4096, true), "4096");
    EXPECT_EQ(animationValueText(0.015625, false), "0.015625");
}

TEST(AnimationRange, BadRangesAreNamedInOneLine) {
    const std::vector<std::pair<std::string, std::string>> cases = {
        {"layers", "--animate expects PARAM=FROM:TO[:STEP|:*FACTOR], got 'layers'"},
        {"=1:8", "--animate expects PARAM=FROM:TO[:STEP|:*FACTOR], got '=1:8'"},
        {"n=", "--animate expects PARAM=FROM:TO[:STEP|:*FACTOR], got 'n='"},
        {"n=8", "--animate n=8: expects PARAM=FROM:TO[:STEP|:*FACTOR]"},
        {"n=1:2:3:4", "--animate n=1:2:3:4: expects PARAM=FROM:TO[:STEP|:*FACTOR]"},
        {"n=10:1", "--animate n=10:1: a descending range needs a negative step (FROM:TO:-STEP)"},
        {"n=1:10:-1",
         "--animate n=1:10:-1: the range is empty: a negative step never climbs from FROM to TO"},
        {"n=1:10:0", "--animate n=1:10:0: the step must not be 0"},
        {"n=5:5", "--animate n=5:5: FROM = TO gives one frame: an animation needs at least two"},
        {"n=1:2:5", "--animate n=1:2:5: gives one frame: an animation needs at least two"},
        {"n=1:601", "--animate n=1:601: gives 601 frames (at most 600)"},
        {"n=1:1000000000000", "--animate n=1:1000000000000: gives 1000000000000 frames (at most 600)"},
        {"n=1:10:*1", "--animate n=1:10:*1: the factor must be a number above 0 other than 1"},
        {"n=1:10:*-2", "--animate n=1:10:*-2: the factor must be a number above 0 other than 1"},
        {"n=0:8:*2", "--animate n=0:8:*2: a factor needs FROM and TO above 0"},
        {"n=8:1:*2", "--animate n=8:1:*2: a descending range needs a factor below 1 (FROM:TO:*0.5)"},
        {"n=1:8:*0.5",
         "--animate n=1:8:*0.5: the range is empty: a factor below 1 never climbs from FROM to TO"},
        {"n=a:8", "--animate n=a:8: FROM 'a' is not an integer"},
        {"n=1.5:8", "--animate n=1.5:8: FROM '1.5' is not an integer"},
        {"n=+1:8", "--animate n=+1:8: FROM '+1' is not an integer"},
        {"n=1: 8", "--animate n=1: 8: TO ' 8' is not an integer"},
        {"n=1:8:x", "--animate n=1:8:x: STEP 'x' is not an integer"},
        {"n=1:8:*x", "--animate n=1:8:*x: FACTOR 'x' is not a number"},
    };
    for (const auto& [option, message] : cases)
        EXPECT_EQ(animationError(option), message) << option;
    EXPECT_EQ(animationError("s=inf:2", false), "--animate s=inf:2: FROM 'inf' is not a number");
    EXPECT_EQ(animationError("s=1/0:2", false), "--animate s=1/0:2: FROM '1/0' is not a number");
    EXPECT_EQ(animationError("s=0x10:2", false), "--animate s=0x10:2: FROM '0x10' is not a number");
}

} // namespace
} // namespace attnlab
