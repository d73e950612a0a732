// Fast kernels against their reference paths (small and odd shapes, causal and not, with weights),
// the tile arithmetic against plain formulas, and early stopping on cancellation.
#include "core/kernels/tile_math.h"
#include "core/registry.h"
#include "core/variant.h"
#include "support/reference_math.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <limits>
#include <random>
#include <string>

namespace attnlab {
namespace {

struct Shape {
    int heads;
    std::int64_t n, d, dv;
};

const Shape kShapes[] = {{1, 1, 8, 8},  {3, 37, 16, 24}, {1, 65, 64, 64},
                         {3, 130, 8, 5}, {1, 257, 64, 40}, {3, 257, 16, 16}};

// Largest |fast − reference| relative to the largest |reference| entry.
double scaledError(const FloatStorage& fast, const FloatStorage& reference) {
    double largest = 0, worst = 0;
    for (std::size_t e = 0; e < reference.size(); ++e) {
        largest = std::max(largest, static_cast<double>(std::fabs(reference[e])));
        worst = std::max(worst, static_cast<double>(std::fabs(fast[e] - reference[e])));
    }
    return largest > 0 ? worst / largest : worst;
}

struct Inputs {
    Tensor3 q, k, v;
    explicit Inputs(const Shape& s)
        : q(testing::randomTensor(s.heads, s.n, s.d, 11)), k(testing::randomTensor(s.heads, s.n, s.d, 12)),
          v(testing::randomTensor(s.heads, s.n, s.dv, 13)) {}
    AttentionInputs view() const { return {&q, &k, &v}; }
};

bool supports(const VariantInfo& variant, bool causal) {
    if (variant.causalSupport == CausalSupport::CausalOnly) return causal;
    if (variant.causalSupport == CausalSupport::BidirectionalOnly) return !causal;
    return true;
}

void compareWithReference(const VariantInfo& variant, const Shape& shape, bool causal, const ParamOverrides& overrides) {
    SCOPED_TRACE(variant.id + " h=" + std::to_string(shape.heads) + " n=" + std::to_string(shape.n) +
                 " d=" + std::to_string(shape.d) + " dv=" + std::to_string(shape.dv) + (causal ? " causal" : ""));
    const Inputs data(shape);
    const AttentionInputs inputs = data.view();
    RunOptions options;
    options.causal = causal;
    options.params = prepareParams(variant, inputs.shape(causal), overrides);
    options.threads = 2;
    options.wantWeights = true;
    const RunResult fast = variant.run(inputs, options);
    options.wantWeights = false; // some kernels take another path when no weights are asked for
    const RunResult fastWithoutWeights = variant.run(inputs, options);
    options.wantWeights = true;
    options.useReference = true;
    const RunResult reference = variant.run(inputs, options);
    EXPECT_LT(scaledError(fast.out.values, reference.out.values), 1e-5);
    EXPECT_LT(scaledError(fastWithoutWeights.out.values, reference.out.values), 1e-5) << "without weights";
    ASSERT_TRUE(fast.weights && reference.weights);
    EXPECT_LT(scaledError(fast.weights->values, reference.weights->values), 1e-5);
}

// The kernels read and write whole rows as 64-byte vectors: rows of 16·k floats must start cache lines,
// in generated tensors as in tensors read from files.
TEST(KernelsBlock, TensorStorageStartsOnACacheLine) {
    for (const std::int64_t cols : {1, 16, 64, 100}) {
        const Tensor3 t(3, 1000, cols);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(t.values.data()) % 64, 0u) << cols;
        Tensor3 copy = t;
        copy.values.push_back(1.0f);
        EXPECT_EQ(reinterpret_cast<std::uintptr_t>(copy.values.data()) % 64, 0u) << cols << " after growing";
    }
}

TEST(KernelsBlock, EveryVariantMatchesItsReference) {
    for (const VariantInfo& variant : allVariants())
        for (const Shape& shape : kShapes)
            for (const bool causal : {false, true})
                if (supports(variant, causal)) compareWithReference(variant, shape, causal, {});
}

TEST(KernelsBlock, ARecycledOutputIsOverwrittenCompletely) {
    // A recycled buffer full of NaN must come back holding exactly what a fresh run computes.
    const Shape shape{3, 70, 16, 12};
    const Inputs data(shape);
    const AttentionInputs inputs = data.view();
    for (const VariantInfo& variant : allVariants())
        for (const bool causal : {false, true})
            for (const bool reference : {false, true}) {
                if (!supports(variant, causal)) continue;
                SCOPED_TRACE(variant.id + (causal ? " causal" : "") + (reference ? " reference" : ""));
                RunOptions options;
                options.causal = causal;
                options.params = prepareParams(variant, inputs.shape(causal), {});
                options.threads = 2;
                options.useReference = reference;
                const RunResult fresh = variant.run(inputs, options);
                RunResult garbage;
                garbage.out = Tensor3(shape.heads, shape.n, shape.dv);
                std::fill(garbage.out.values.begin(), garbage.out.values.end(), std::numeric_limits<float>::quiet_NaN());
                options.recycle = &garbage;
                const RunResult recycled = variant.run(inputs, options);
                EXPECT_TRUE(garbage.out.values.empty()) << "the buffer was taken over";
                EXPECT_EQ(recycled.out.values, fresh.out.values);
            }
}

TEST(KernelsBlock, SparseParametersMatchTheReference) {
    // Windows and chunks that cut key blocks mid-way, dilated and strided rows (per-row fallback), globals.
    const std::vector<std::pair<std::string, ParamOverrides>> cases = {
        {"longformer", {{"window", "50"}}},
        {"longformer", {{"window", "40"}, {"dilation", "3"}, {"globals", "0,100,129"}}},
        {"strided", {{"stride", "7"}}},
        {"fixed", {{"block", "33"}, {"summary", "4"}}},
        {"chunk", {{"chunk", "100"}}},
        {"mixed_chunk", {{"chunk", "19"}}},
        {"bigbird", {{"window", "30"}, {"globals", "3"}, {"random", "5"}}},
        {"xl", {{"segment", "50"}, {"memory", "70"}, {"relpos", "none"}}},
        {"relu2", {{"scale", "n2"}}},
        {"linear", {{"kernel", "taylor"}}},
        {"linear", {{"kernel", "efficient"}}},
        {"performer", {{"features", "33"}, {"orthogonal", "false"}}},
    };
    for (const auto& [id, overrides] : cases)
        for (const Shape& shape : {Shape{1, 257, 16, 24}, Shape{3, 130, 64, 64}})
            for (const bool causal : {false, true})
                if (supports(requireVariant(id), causal)) compareWithReference(requireVariant(id), shape, causal, overrides);
}

TEST(KernelsBlock, TiledFullMatchesDense) {
    const VariantInfo& full = requireVariant("full");
    for (const Shape& shape : kShapes)
        for (const bool causal : {false, true}) {
            const Inputs data(shape);
            RunOptions options;
            options.causal = causal;
            options.threads = 2;
            options.params = prepareParams(full, data.view().shape(causal), {{"impl", "dense"}});
            const RunResult dense = full.run(data.view(), options);
            options.params = prepareParams(full, data.view().shape(causal), {{"impl", "tiled"}});
            const RunResult tiled = full.run(data.view(), options);
            EXPECT_LT(scaledError(tiled.out.values, dense.out.values), 1e-5) << "n=" << shape.n << " causal=" << causal;
        }
}

TEST(KernelsBlock, FullTiledAgreesWithIndependentSoftmax) {
    const Shape shape{2, 130, 16, 9};
    const Inputs data(shape);
    RunOptions options;
    options.causal = true;
    options.threads = 2;
    const VariantInfo& full = requireVariant("full");
    options.params = prepareParams(full, data.view().shape(true), {});
    const RunResult result = full.run(data.view(), options);
    std::vector<std::uint8_t> mask(static_cast<std::size_t>(shape.n * shape.n));
    for (std::int64_t i = 0; i < shape.n; ++i)
        for (std::int64_t j = 0; j <= i; ++j) mask[static_cast<std::size_t>(i * shape.n + j)] = 1;
    for (int h = 0; h < shape.heads; ++h) {
        const auto scores = testing::scaledScores(data.q, data.k, h, 1.0 / 4.0);
        const auto expected = testing::maskedSoftmax(scores, mask, data.v, h);
        const std::vector<float> got(result.out.head(h), result.out.head(h) + shape.n * shape.dv);
        EXPECT_LT(testing::relativeError(got, expected), 1e-5);
    }
}

TEST(KernelsBlock, CancellationStopsBeforeTheWorkIsDone) {
    const Shape shape{4, 1024, 16, 16};
    const Inputs data(shape);
    for (const char* id : {"full", "longformer", "relu2", "linear"}) {
        const VariantInfo& variant = requireVariant(id);
        RunOptions options;
        options.threads = 2;
        options.params = prepareParams(variant, data.view().shape(false), {});
        std::atomic<int> polls{0};
        options.cancelled = [&polls] { return ++polls > 1; };
        const RunResult result = variant.run(data.view(), options);
        EXPECT_TRUE(result.cancelled) << id;
        // 16 query blocks per head × 4 heads would mean 64 polls without stopping.
        EXPECT_LE(polls.load(), 4) << id;
    }
}

TEST(TileMath, Exp2MatchesTheLibrary) {
    for (float x = -126.0f; x <= 0.0f; x += 0.0371f)
        EXPECT_NEAR(tile::exp2Scalar(x) / std::exp2(x), 1.0, 3e-7) << x;
    EXPECT_EQ(tile::exp2Scalar(-std::numeric_limits<float>::infinity()), 0.0f);
    EXPECT_EQ(tile::exp2Scalar(-1000.0f), 0.0f);
    EXPECT_EQ(tile::exp2Scalar(0.0f), 1.0f);
}

// The vector 2^x of the softmax tiles (through exp2Shifted with shift 0, factor 1): the same accuracy,
// exactly 0 from x = −127 down (and for −inf), tails of 1 … 15 lanes.
TEST(TileMath, VectorExp2MatchesTheLibrary) {
    std::vector<float> x;
    for (float value = -126.0f; value <= 0.0f; value += 0.0371f) x.push_back(value);
    const std::vector<float> zeros = {-126.6f, -127.0f, -130.0f, -1000.0f, -std::numeric_limits<float>::infinity()};
    x.insert(x.end(), zeros.begin(), zeros.end());
    x.push_back(0.0f);
    for (const std::size_t count : {x.size(), x.size() - 1, std::size_t{5}}) {
        std::vector<float> y(x.begin(), x.begin() + static_cast<std::ptrdiff_t>(count));
        tile::exp2Shifted(y.data(), static_cast<std::int64_t>(count), 0.0f, 1.0f);
        for (std::size_t e = 0; e < count; ++e) {
            const bool zero = x[e] <= -126.6f;
            if (zero)
                EXPECT_EQ(y[e], 0.0f) << x[e];
            else
                EXPECT_NEAR(y[e] / std::exp2(x[e]), 1.0, 3e-7) << x[e];
        }
    }
}

TEST(TileMath, Transpose16MovesEveryElement) {
    std::vector<float> source(16 * 20), target(16 * 24, -1.0f);
    for (std::size_t e = 0; e < source.size(); ++e) source[e] = static_cast<float>(e);
    tile::transpose16(source.data(), 20, target.data(), 24); // strides wider than the block
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) ASSERT_EQ(target[c * 24 + r], source[r * 20 + c]) << r << ", " << c;
    for (int c = 0; c < 16; ++c)
        for (int r = 16; r < 24; ++r) ASSERT_EQ(target[c * 24 + r], -1.0f) << "wrote outside the block";
}

TEST(TileMath, ColumnsSeenByAreTheColumnsWhoseWordsShareARow) {
    std::mt19937_64 random(5);
    std::vector<std::uint64_t> words(128);
    for (const std::int64_t keys : {std::int64_t{0}, std::int64_t{1}, std::int64_t{7}, std::int64_t{8},
                                    std::int64_t{63}, std::int64_t{64}, std::int64_t{65}, std::int64_t{120}}) {
        for (std::uint64_t& word : words) word = random() & random(); // about a quarter of the bits
        words[static_cast<std::size_t>(keys) % words.size()] = ~std::uint64_t{0}; // past keys: must not count
        const std::uint64_t rows = std::uint64_t{0x3F} << (keys % 58);
        const tile::ColumnSet seen = tile::columnsSeenBy(words.data(), keys, rows);
        for (std::int64_t c = 0; c < 128; ++c) {
            const bool expected = c < keys && (words[static_cast<std::size_t>(c)] & rows) != 0;
            ASSERT_EQ(static_cast<bool>((seen >> c) & 1u), expected) << "keys " << keys << ", column " << c;
        }
    }
}

TEST(TileMath, MaskedSoftmaxIgnoresWhatMaskedCellsHold) {
    const std::int64_t keys = 13;
    const int queries = 32;
    std::mt19937_64 random(9);
    std::vector<std::uint64_t> words(keys);
    for (std::int64_t c = 0; c < keys; ++c) words[static_cast<std::size_t>(c)] = c < 4 ? 0 : random() & random();
    words[5] = ~std::uint64_t{0};
    std::vector<float> masked(keys * tile::kQueryBlock), filled(masked.size());
    const float garbage[] = {std::numeric_limits<float>::quiet_NaN(), std::numeric_limits<float>::infinity(), 1e30f};
    for (std::int64_t c = 0; c < keys; ++c)
        for (int r = 0; r < queries; ++r) {
            const auto cell = static_cast<std::size_t>(c * tile::kQueryBlock + r);
            const bool allowed = (words[static_cast<std::size_t>(c)] >> r) & 1u;
            const float score = static_cast<float>(std::sin(0.37 * static_cast<double>(cell))) * 6.0f;
            masked[cell] = allowed ? score : garbage[cell % 3];
            filled[cell] = allowed ? score : -std::numeric_limits<float>::infinity();
        }
    // Earlier pieces left a max and a sum on every row; row 3 has seen nothing yet.
    std::vector<float> statsMasked(3 * tile::kQueryBlock), statsFilled;
    for (int r = 0; r < queries; ++r) {
        statsMasked[static_cast<std::size_t>(r)] = r == 3 ? tile::kNoMax : 0.5f * static_cast<float>(r % 5);
        statsMasked[static_cast<std::size_t>(tile::kQueryBlock + r)] = r == 3 ? 0.0f : 1.0f + static_cast<float>(r);
    }
    statsFilled = statsMasked;
    auto run = [&](std::vector<float>& scores, std::vector<float>& stats, const std::uint64_t* mask) {
        float* rowMax = stats.data();
        if (mask)
            tile::maskedSoftmaxBlock(scores.data(), keys, queries, mask, rowMax, rowMax + tile::kQueryBlock, rowMax + 2 * tile::kQueryBlock);
        else
            tile::softmaxBlock(scores.data(), keys, queries, rowMax, rowMax + tile::kQueryBlock, rowMax + 2 * tile::kQueryBlock);
    };
    run(masked, statsMasked, words.data());
    run(filled, statsFilled, nullptr);
    for (std::int64_t c = 0; c < keys; ++c)
        for (int r = 0; r < queries; ++r) {
            const auto cell = static_cast<std::size_t>(c * tile::kQueryBlock + r);
            ASSERT_EQ(masked[cell], filled[cell]) << "column " << c << ", row " << r;
        }
    for (std::size_t e = 0; e < statsMasked.size(); ++e)
        if (static_cast<int>(e % tile::kQueryBlock) < queries) {
            ASSERT_EQ(statsMasked[e], statsFilled[e]) << e;
        }
}

TEST(TileMath, BlockProductMatchesPlainSums) {
    const std::int64_t rows = 13, depth = 7, width = 37, cStride = 48;
    std::vector<float> a(rows * depth), b(depth * width), c(rows * cStride, 2.0f), scale(rows);
    for (std::size_t e = 0; e < a.size(); ++e) a[e] = static_cast<float>(std::sin(0.3 * static_cast<double>(e)));
    for (std::size_t e = 0; e < b.size(); ++e) b[e] = static_cast<float>(std::cos(0.7 * static_cast<double>(e)));
    for (std::int64_t r = 0; r < rows; ++r) scale[r] = 0.5f + static_cast<float>(r);
    tile::TileProduct product;
    product.depth = depth;
    product.a = a.data();
    product.aRowStride = 1; // A(i, p) = a[p·rows + i]: A stored transposed, as P^T is
    product.aDepthStride = rows;
    product.b = b.data();
    product.bRowStride = width;
    product.c = c.data();
    product.cRowStride = cStride;
    product.mode = tile::Accumulate::ScaleAndAdd;
    product.rowScale = scale.data();
    tile::multiplyBlock(product, rows, width);
    for (std::int64_t i = 0; i < rows; ++i)
        for (std::int64_t x = 0; x < width; ++x) {
            double expected = 2.0 * scale[i];
            for (std::int64_t p = 0; p < depth; ++p) expected += static_cast<double>(a[p * rows + i]) * b[p * width + x];
            EXPECT_NEAR(c[i * cStride + x], expected, 1e-5) << i << "," << x;
        }
}

// Index, value and runner-up of [x ; −x] by a plain scan (the lowest index on ties).
struct SignedTop {
    std::int64_t index = 0;
    float best = 0, second = 0;
};
SignedTop scanSignedTop(const std::vector<float>& x) {
    const auto count = static_cast<std::int64_t>(x.size());
    std::vector<float> all;
    for (const float v : x) all.push_back(v);
    for (const float v : x) all.push_back(-v);
    SignedTop top;
    top.index = std::max_element(all.begin(), all.end()) - all.begin(); // first of the largest
    top.best = all[static_cast<std::size_t>(top.index)];
    top.second = -std::numeric_limits<float>::infinity();
    for (std::int64_t e = 0; e < 2 * count; ++e)
        if (e != top.index) top.second = std::max(top.second, all[static_cast<std::size_t>(e)]);
    return top;
}

TEST(TileMath, SignedArgmaxFindsTheLargestOfBothSignsAndTheRunnerUp) {
    std::mt19937 random(5);
    std::normal_distribution<float> normal;
    for (const std::int64_t count : {1, 2, 15, 16, 17, 40, 256}) {
        for (int trial = 0; trial < 20; ++trial) {
            std::vector<float> x(static_cast<std::size_t>(count));
            for (float& v : x) v = normal(random);
            if (trial % 4 == 1 && count > 3) x[2] = -9.0f; // the best is a negated value
            if (trial % 4 == 2 && count > 20) x[19] = x[3] = 7.0f; // a tie between lanes
            if (trial % 4 == 2 && count > 36) x[35] = -7.5f, x[4] = 7.5f; // a tie between signs: +x[4] comes first
            if (trial % 4 == 0 && count > 36) x[20] = -6.5f, x[36] = 6.5f; // a tie between signs in one lane
            if (trial % 4 == 3) std::fill(x.begin(), x.end(), 0.0f); // every value ties
            float best = 0, second = 0;
            const std::int64_t index = tile::signedArgmax(x.data(), count, best, second);
            const SignedTop expected = scanSignedTop(x);
            SCOPED_TRACE("count " + std::to_string(count) + " trial " + std::to_string(trial));
            EXPECT_EQ(index, expected.index);
            EXPECT_EQ(best, expected.best);
            EXPECT_EQ(second, expected.second);
        }
    }
}

} // namespace
} // namespace attnlab
