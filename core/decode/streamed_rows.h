#pragma once

// The inner loop of the decoding step over cached keys and values (core/decode/decode_step.cpp): one chunk
// of a cache's rows against the query heads that share them, as partial softmaxes that the chunks' results
// merge by log-sum-exp (flash-decoding). Each cached key and value row is read once for all those heads;
// rows a few ahead are requested while one is read. With AVX-512 the rows are converted to float32 with
// vector instructions (F16C's vcvtph2ps for float16, a shift for bfloat16); otherwise plain loops give the
// same results more slowly. Every sum accumulates in float32.

#include "core/decode/kv_cache.h"

#include <cstdint>
#include <vector>

namespace attnlab {

// Cache rows [begin, end).
struct CacheSegment {
    std::int64_t begin = 0;
    std::int64_t end = 0;
    std::int64_t size() const { return end - begin; }
};

// How a row's scores s = q·k (queries already scaled, see ChunkJob::queries) become weights.
struct RowScoring {
    bool softmax = true; // softmax in log2 units; else FLASH's relu²: w = max(s, 0)² · reluFactor
    float reluFactor = 0;
    // Transformer-XL: s += q·R_{i−j}, row p = i − j of `d` floats; null: none.
    const std::vector<float>* relativePositions = nullptr;
    std::int64_t d = 0;
};

// One query head's result over one chunk, kPartialHeader + values' paddedCols floats: [0] the largest score
// (kNoScore when the chunk held no key), [1] Σ 2^(s − max), then Σ 2^(s − max)·v. relu²: [kPartialHeader …]
// holds Σ w·v and the header is unused.
inline constexpr std::int64_t kPartialHeader = 16;
inline constexpr float kNoScore = -3.0e38f;

struct ChunkJob {
    // `heads` query rows of keys->paddedCols() floats each, zero beyond d; scaled so that q·k is the score
    // (softmax: scale · log2 e, so that 2^s is the weight's numerator).
    const float* queries = nullptr;
    int heads = 0;
    const KvRows* keys = nullptr;
    int keyHead = 0;
    const KvRows* values = nullptr;
    int valueHead = 0;
    const CacheSegment* segments = nullptr; // the chunk's cache rows, in order
    int segmentCount = 0;
    const std::int64_t* positions =
        nullptr; // each cache row's position in the sequence (relative positions only)
    std::int64_t queryPosition = 0;
    float* partials = nullptr; // heads results, each kPartialHeader + values->paddedCols() floats
};

void runChunk(const ChunkJob& job, const RowScoring& scoring);

// One query head's output, dv floats, from its results over `count` chunks (pointers to partials).
void mergePartials(const float* const* partials, int count, std::int64_t dv, bool softmax, float* out);

} // namespace attnlab
