#include "core/kernels/tile_math.h"
#include "core/kernels/finite_lanes.h"
#include "core/kernels/simd_exp2.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab::tile {

float exp2Scalar(float x) {
    x = std::max(x, kExp2Floor);
    const float whole = std::nearbyint(x);
    const float f = x - whole;
    float p = kExp2Poly[0];
    for (int c = 1; c < 6; ++c) p = p * f + kExp2Poly[c];
    p = p * f + 1.0f;
    return whole <= kExp2Floor ? 0.0f : std::ldexp(p, static_cast<int>(whole));
}

namespace {
constexpr float kLog2E = 1.4426950408889634f;

float eluPlusOneScalar(float x) { return x > 0.0f ? x + 1.0f : exp2Scalar(x * kLog2E); }

// signedArgmax one value at a time, in the order of [x ; −x].
std::int64_t scanSignedArgmax(const float* x, std::int64_t count, float& best, float& second) {
    std::int64_t index = 0;
    best = x[0];
    second = -std::numeric_limits<float>::infinity();
    for (std::int64_t b = 1; b < 2 * count; ++b) {
        const float value = b < count ? x[b] : -x[b - count];
        if (value > best) {
            second = best;
            best = value;
            index = b;
        } else {
            second = std::max(second, value);
        }
    }
    return index;
}
} // namespace

#if defined(__AVX512F__)

namespace {

// softmaxBlock, and with Masked the cells whose bit is clear in words[c] count as −inf whatever they hold:
// a pair of columns no row of the vector sees is stored as zeros without exponentiating (half of a causal
// triangle's cells).
template <bool Masked>
void softmaxColumns(float* scores, std::int64_t keys, int queries, const std::uint64_t* words, float* rowMax,
                    float* rowSum, float* rescale) {
    auto lanesOf = [&](std::int64_t c, int g) {
        if constexpr (Masked) return static_cast<__mmask16>((words[c] >> g) & 0xFFFFu);
        else return static_cast<__mmask16>(0xFFFFu);
    };
    for (int g = 0; g < queries; g += kLanes) {
        __m512 blockMax = _mm512_set1_ps(kNoMax);
        for (std::int64_t c = 0; c < keys; ++c)
            blockMax = _mm512_mask_max_ps(blockMax, lanesOf(c, g), blockMax, _mm512_loadu_ps(scores + c * kQueryBlock + g));
        const __m512 oldMax = _mm512_loadu_ps(rowMax + g);
        const __m512 newMax = _mm512_max_ps(oldMax, blockMax);
        auto weight = [&](float* s, __mmask16 lanes) {
            const __m512 p = _mm512_maskz_mov_ps(lanes, exp2Vector(_mm512_sub_ps(_mm512_loadu_ps(s), newMax)));
            _mm512_storeu_ps(s, p);
            return p;
        };
        __m512 sum0 = _mm512_setzero_ps(), sum1 = _mm512_setzero_ps();
        std::int64_t c = 0;
        for (; c + 1 < keys; c += 2) {
            float* s0 = scores + c * kQueryBlock + g;
            float* s1 = s0 + kQueryBlock;
            const __mmask16 lanes0 = lanesOf(c, g), lanes1 = lanesOf(c + 1, g);
            if (Masked && (lanes0 | lanes1) == 0) {
                _mm512_storeu_ps(s0, _mm512_setzero_ps());
                _mm512_storeu_ps(s1, _mm512_setzero_ps());
                continue;
            }
            sum0 = _mm512_add_ps(sum0, weight(s0, lanes0));
            sum1 = _mm512_add_ps(sum1, weight(s1, lanes1));
        }
        if (c < keys) sum0 = _mm512_add_ps(sum0, weight(scores + c * kQueryBlock + g, lanesOf(c, g)));
        const __m512 factor = exp2Vector(_mm512_sub_ps(oldMax, newMax));
        _mm512_storeu_ps(rowSum + g,
                         _mm512_fmadd_ps(_mm512_loadu_ps(rowSum + g), factor, _mm512_add_ps(sum0, sum1)));
        _mm512_storeu_ps(rowMax + g, newMax);
        _mm512_storeu_ps(rescale + g, factor);
    }
}

} // namespace

void softmaxBlock(float* scores, std::int64_t keys, int queries, float* rowMax, float* rowSum, float* rescale) {
    softmaxColumns<false>(scores, keys, queries, nullptr, rowMax, rowSum, rescale);
}

void maskedSoftmaxBlock(float* scores, std::int64_t keys, int queries, const std::uint64_t* words, float* rowMax,
                        float* rowSum, float* rescale) {
    softmaxColumns<true>(scores, keys, queries, words, rowMax, rowSum, rescale);
}

void reluSquaredBlock(float* scores, std::int64_t keys, int queries, float factor) {
    const __m512 scale = _mm512_set1_ps(factor);
    for (std::int64_t c = 0; c < keys; ++c)
        for (int g = 0; g < queries; g += kLanes) {
            float* cell = scores + c * kQueryBlock + g;
            const __m512 positive = _mm512_max_ps(_mm512_loadu_ps(cell), _mm512_setzero_ps());
            _mm512_storeu_ps(cell, _mm512_mul_ps(_mm512_mul_ps(positive, positive), scale));
        }
}

void maskColumns(float* scores, std::int64_t keys, int queries, const std::uint64_t* words, float masked) {
    const __m512 fill = _mm512_set1_ps(masked);
    for (std::int64_t c = 0; c < keys; ++c)
        for (int g = 0; g < queries; g += kLanes) {
            float* cell = scores + c * kQueryBlock + g;
            const auto keep = static_cast<__mmask16>((words[c] >> g) & 0xFFFFu);
            _mm512_storeu_ps(cell, _mm512_mask_mov_ps(fill, keep, _mm512_loadu_ps(cell)));
        }
}

ColumnSet columnsSeenBy(const std::uint64_t* words, std::int64_t keys, std::uint64_t rows) {
    const __m512i pattern = _mm512_set1_epi64(static_cast<long long>(rows));
    ColumnSet seen = 0;
    for (std::int64_t c = 0; c < keys; c += 8) {
        const auto lanes = static_cast<__mmask8>(keys - c >= 8 ? 0xFF : (1u << (keys - c)) - 1);
        const __mmask8 hit = _mm512_mask_test_epi64_mask(lanes, _mm512_maskz_loadu_epi64(lanes, words + c), pattern);
        seen |= static_cast<ColumnSet>(hit) << c;
    }
    return seen;
}

void transpose16(const float* src, std::int64_t srcStride, float* dst, std::int64_t dstStride) {
    __m512 r[16], t[16];
    for (int i = 0; i < 16; ++i) r[i] = _mm512_loadu_ps(src + i * srcStride);
    // Per 128-bit lane l: interleave rows pairwise (32-bit), then in fours (64-bit), so that r[4i + k]
    // lane l holds column 4l + k of rows 4i … 4i + 3.
    for (int i = 0; i < 8; ++i) {
        t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
        t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
    }
    auto asDouble = [](__m512 x) { return _mm512_castps_pd(x); };
    for (int i = 0; i < 4; ++i) {
        r[4 * i] = _mm512_castpd_ps(_mm512_unpacklo_pd(asDouble(t[4 * i]), asDouble(t[4 * i + 2])));
        r[4 * i + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(asDouble(t[4 * i]), asDouble(t[4 * i + 2])));
        r[4 * i + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(asDouble(t[4 * i + 1]), asDouble(t[4 * i + 3])));
        r[4 * i + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(asDouble(t[4 * i + 1]), asDouble(t[4 * i + 3])));
    }
    // Output row 4l + k is lane l of r[k], r[4 + k], r[8 + k], r[12 + k]: gather those lanes in two steps.
    for (int k = 0; k < 4; ++k) {
        const __m512 low01 = _mm512_shuffle_f32x4(r[k], r[4 + k], 0x44), low23 = _mm512_shuffle_f32x4(r[k], r[4 + k], 0xEE);
        const __m512 high01 = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0x44);
        const __m512 high23 = _mm512_shuffle_f32x4(r[8 + k], r[12 + k], 0xEE);
        _mm512_storeu_ps(dst + (0 + k) * dstStride, _mm512_shuffle_f32x4(low01, high01, 0x88));
        _mm512_storeu_ps(dst + (4 + k) * dstStride, _mm512_shuffle_f32x4(low01, high01, 0xDD));
        _mm512_storeu_ps(dst + (8 + k) * dstStride, _mm512_shuffle_f32x4(low23, high23, 0x88));
        _mm512_storeu_ps(dst + (12 + k) * dstStride, _mm512_shuffle_f32x4(low23, high23, 0xDD));
    }
}

float dot(const float* a, const float* b, std::int64_t count) {
    __m512 sum0 = _mm512_setzero_ps(), sum1 = _mm512_setzero_ps();
    std::int64_t c = 0;
    for (; c + 2 * kLanes <= count; c += 2 * kLanes) {
        sum0 = _mm512_fmadd_ps(_mm512_loadu_ps(a + c), _mm512_loadu_ps(b + c), sum0);
        sum1 = _mm512_fmadd_ps(_mm512_loadu_ps(a + c + kLanes), _mm512_loadu_ps(b + c + kLanes), sum1);
    }
    for (; c < count; c += kLanes) {
        const __mmask16 lanes = count - c >= kLanes ? __mmask16(0xFFFF) : __mmask16((1u << (count - c)) - 1u);
        sum0 = _mm512_fmadd_ps(_mm512_maskz_loadu_ps(lanes, a + c), _mm512_maskz_loadu_ps(lanes, b + c), sum0);
    }
    return _mm512_reduce_add_ps(_mm512_add_ps(sum0, sum1));
}

float sum(const float* x, std::int64_t count) {
    __m512 total = _mm512_setzero_ps();
    for (std::int64_t c = 0; c < count; c += kLanes) {
        const __mmask16 lanes = count - c >= kLanes ? __mmask16(0xFFFF) : __mmask16((1u << (count - c)) - 1u);
        total = _mm512_add_ps(total, _mm512_maskz_loadu_ps(lanes, x + c));
    }
    return _mm512_reduce_add_ps(total);
}

float maxOf(const float* x, std::int64_t count) {
    __m512 best = _mm512_set1_ps(x[0]);
    for (std::int64_t c = 0; c < count; c += kLanes) {
        const __mmask16 lanes = count - c >= kLanes ? __mmask16(0xFFFF) : __mmask16((1u << (count - c)) - 1u);
        best = _mm512_mask_max_ps(best, lanes, best, _mm512_maskz_loadu_ps(lanes, x + c));
    }
    return _mm512_reduce_max_ps(best);
}

namespace {
__mmask16 tailLanes(std::int64_t left) { return left >= kLanes ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1u); }

// Per lane, the two largest values seen and the index of the largest (the first on ties).
struct LaneTopTwo {
    __m512 first = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    __m512 second = first;
    __m512i index = _mm512_set1_epi32(std::numeric_limits<std::int32_t>::max());
    void add(__m512 value, __m512i at) {
        const __mmask16 above = _mm512_cmp_ps_mask(value, first, _CMP_GT_OQ);
        second = _mm512_max_ps(second, _mm512_min_ps(first, value));
        first = _mm512_max_ps(first, value);
        index = _mm512_mask_mov_epi32(index, above, at);
    }
};
} // namespace

// The largest of [x ; −x] is the largest |x_i| (found at i when x_i > 0, at count + i otherwise) and the
// runner-up the largest other |x_j|, or −|x_i|: one pass keeps, per lane, the top two of |x|, and the
// lanes are reduced at the end. A tie at the top (rare, and then the sign decides the index) is left to
// the scan in the order of [x ; −x].
std::int64_t signedArgmax(const float* x, std::int64_t count, float& best, float& second) {
    const __m512 none = _mm512_set1_ps(-std::numeric_limits<float>::infinity());
    const __m512i lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    LaneTopTwo top;
    for (std::int64_t e = 0; e < count; e += kLanes) {
        const __mmask16 lanes = tailLanes(count - e);
        const __m512 magnitude = _mm512_abs_ps(_mm512_maskz_loadu_ps(lanes, x + e));
        top.add(_mm512_mask_mov_ps(none, lanes, magnitude), _mm512_add_epi32(lane, _mm512_set1_epi32(static_cast<std::int32_t>(e))));
    }
    best = _mm512_reduce_max_ps(top.first);
    const __m512i noIndex = _mm512_set1_epi32(std::numeric_limits<std::int32_t>::max());
    const std::int32_t index = _mm512_reduce_min_epi32(
        _mm512_mask_mov_epi32(noIndex, _mm512_cmp_ps_mask(top.first, _mm512_set1_ps(best), _CMP_EQ_OQ), top.index));
    const __m512 others = _mm512_mask_mov_ps(top.first, _mm512_cmpeq_epi32_mask(top.index, _mm512_set1_epi32(index)), none);
    second = std::max(_mm512_reduce_max_ps(_mm512_max_ps(top.second, others)), -best);
    if (second == best) return scanSignedArgmax(x, count, best, second);
    return x[index] > 0.0f ? index : count + index;
}

bool scaledCopy(const float* src, std::int64_t count, float factor, float* dst, std::int64_t padded) {
    const __m512 scale = _mm512_set1_ps(factor);
    __mmask16 bad = 0;
    for (std::int64_t e = 0; e < padded; e += kLanes) {
        const std::int64_t left = std::max<std::int64_t>(0, count - e);
        const __mmask16 lanes = left >= kLanes ? __mmask16(0xFFFF) : __mmask16((1u << left) - 1u);
        const auto store = padded - e >= kLanes ? __mmask16(0xFFFF) : __mmask16((1u << (padded - e)) - 1u);
        const __m512 value = _mm512_mul_ps(_mm512_maskz_loadu_ps(lanes, src + e), scale);
        bad |= nonFiniteLanes(value);
        _mm512_mask_storeu_ps(dst + e, store, value);
    }
    return bad == 0;
}

bool streamScaledCopy(const float* src, std::int64_t count, float factor, float* dst) {
    const __m512 scale = _mm512_set1_ps(factor);
    __mmask16 bad = 0;
    for (std::int64_t e = 0; e < count; e += kLanes) {
        const __m512 value = _mm512_mul_ps(_mm512_loadu_ps(src + e), scale);
        bad |= nonFiniteLanes(value);
        _mm512_stream_ps(dst + e, value);
    }
    return bad == 0;
}

void storeFence() { _mm_sfence(); }

void exp2Shifted(float* x, std::int64_t count, float shift, float factor) {
    const __m512 shiftVector = _mm512_set1_ps(shift), factorVector = _mm512_set1_ps(factor);
    for (std::int64_t e = 0; e < count; e += kLanes) {
        const __mmask16 lanes = count - e >= kLanes ? __mmask16(0xFFFF) : __mmask16((1u << (count - e)) - 1u);
        const __m512 value = _mm512_maskz_loadu_ps(lanes, x + e);
        _mm512_mask_storeu_ps(x + e, lanes, exp2Vector(_mm512_mul_ps(_mm512_sub_ps(value, shiftVector), factorVector)));
    }
}

void eluPlusOne(const float* x, std::int64_t count, float* out) {
    std::int64_t e = 0;
    for (; e + kLanes <= count; e += kLanes) {
        const __m512 value = _mm512_loadu_ps(x + e);
        const __m512 exponential = exp2Vector(_mm512_mul_ps(_mm512_min_ps(value, _mm512_setzero_ps()), _mm512_set1_ps(kLog2E)));
        const __mmask16 positive = _mm512_cmp_ps_mask(value, _mm512_setzero_ps(), _CMP_GT_OQ);
        _mm512_storeu_ps(out + e, _mm512_mask_add_ps(exponential, positive, value, _mm512_set1_ps(1.0f)));
    }
    for (; e < count; ++e) out[e] = eluPlusOneScalar(x[e]);
}

#else // portable fallback: the same arithmetic one lane at a time

void maskedSoftmaxBlock(float* scores, std::int64_t keys, int queries, const std::uint64_t* words, float* rowMax,
                        float* rowSum, float* rescale) {
    for (int r = 0; r < queries; ++r) {
        auto allowed = [&](std::int64_t c) { return !words || ((words[c] >> r) & 1u) != 0; };
        float newMax = rowMax[r];
        for (std::int64_t c = 0; c < keys; ++c)
            if (allowed(c)) newMax = std::max(newMax, scores[c * kQueryBlock + r]);
        float sum = 0;
        for (std::int64_t c = 0; c < keys; ++c) {
            float& s = scores[c * kQueryBlock + r];
            s = allowed(c) ? exp2Scalar(s - newMax) : 0.0f;
            sum += s;
        }
        rescale[r] = exp2Scalar(rowMax[r] - newMax);
        rowSum[r] = rowSum[r] * rescale[r] + sum;
        rowMax[r] = newMax;
    }
}

void softmaxBlock(float* scores, std::int64_t keys, int queries, float* rowMax, float* rowSum, float* rescale) {
    maskedSoftmaxBlock(scores, keys, queries, nullptr, rowMax, rowSum, rescale);
}

void reluSquaredBlock(float* scores, std::int64_t keys, int queries, float factor) {
    for (std::int64_t c = 0; c < keys; ++c)
        for (int r = 0; r < queries; ++r) {
            const float positive = std::max(scores[c * kQueryBlock + r], 0.0f);
            scores[c * kQueryBlock + r] = positive * positive * factor;
        }
}

void maskColumns(float* scores, std::int64_t keys, int queries, const std::uint64_t* words, float masked) {
    for (std::int64_t c = 0; c < keys; ++c)
        for (int r = 0; r < queries; ++r)
            if (((words[c] >> r) & 1u) == 0) scores[c * kQueryBlock + r] = masked;
}

ColumnSet columnsSeenBy(const std::uint64_t* words, std::int64_t keys, std::uint64_t rows) {
    ColumnSet seen = 0;
    for (std::int64_t c = 0; c < keys; ++c)
        if (words[c] & rows) seen |= static_cast<ColumnSet>(1) << c;
    return seen;
}

void transpose16(const float* src, std::int64_t srcStride, float* dst, std::int64_t dstStride) {
    for (int r = 0; r < 16; ++r)
        for (int c = 0; c < 16; ++c) dst[c * dstStride + r] = src[r * srcStride + c];
}

float dot(const float* a, const float* b, std::int64_t count) {
    float sum = 0;
    for (std::int64_t c = 0; c < count; ++c) sum += a[c] * b[c];
    return sum;
}

float sum(const float* x, std::int64_t count) {
    float total = 0;
    for (std::int64_t c = 0; c < count; ++c) total += x[c];
    return total;
}

float maxOf(const float* x, std::int64_t count) {
    float best = x[0];
    for (std::int64_t c = 1; c < count; ++c) best = std::max(best, x[c]);
    return best;
}

std::int64_t signedArgmax(const float* x, std::int64_t count, float& best, float& second) {
    return scanSignedArgmax(x, count, best, second);
}

bool scaledCopy(const float* src, std::int64_t count, float factor, float* dst, std::int64_t padded) {
    bool finite = true;
    for (std::int64_t e = 0; e < padded; ++e) {
        dst[e] = e < count ? src[e] * factor : 0.0f;
        finite = finite && std::isfinite(dst[e]);
    }
    return finite;
}

bool streamScaledCopy(const float* src, std::int64_t count, float factor, float* dst) {
    return scaledCopy(src, count, factor, dst, count);
}

void storeFence() {}

void exp2Shifted(float* x, std::int64_t count, float shift, float factor) {
    for (std::int64_t e = 0; e < count; ++e) x[e] = exp2Scalar((x[e] - shift) * factor);
}

void eluPlusOne(const float* x, std::int64_t count, float* out) {
    for (std::int64_t e = 0; e < count; ++e) out[e] = eluPlusOneScalar(x[e]);
}

#endif

float* AlignedBuffer::reserve(std::size_t count) {
    if (count > m_capacity) {
        m_data.reset(static_cast<float*>(::operator new[](count * sizeof(float), std::align_val_t(64))));
        m_capacity = count;
    }
    return m_data.get();
}

} // namespace attnlab::tile
