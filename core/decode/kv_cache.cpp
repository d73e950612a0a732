#include "core/decode/kv_cache.h"

#include "core/errors.h"

#include <bit>
#include <cmath>
#include <cstdio>
#include <cstring>

#if defined(__AVX512F__)
#include <immintrin.h>
#endif

namespace attnlab {

std::string kvDtypeName(KvDtype dtype) {
    switch (dtype) {
    case KvDtype::F16:
        return "f16";
    case KvDtype::BF16:
        return "bf16";
    case KvDtype::F32:
        break;
    }
    return "f32";
}

KvDtype kvDtypeFromName(const std::string& name, const std::string& what) {
    for (const KvDtype dtype : {KvDtype::F32, KvDtype::F16, KvDtype::BF16})
        if (name == kvDtypeName(dtype)) return dtype;
    throw InputError(what + " expects f32, f16 or bf16, got '" + name + "'");
}

double kvDtypeRoundoff(KvDtype dtype) {
    switch (dtype) {
    case KvDtype::F16:
        return std::ldexp(1.0, -11);
    case KvDtype::BF16:
        return std::ldexp(1.0, -8);
    case KvDtype::F32:
        break;
    }
    return 0.0;
}

std::uint16_t floatToHalf(float x) {
    const auto bits = std::bit_cast<std::uint32_t>(x);
    const auto sign = static_cast<std::uint16_t>((bits >> 16) & 0x8000u);
    const std::uint32_t magnitude = bits & 0x7fffffffu;
    if (magnitude > 0x7f800000u) return sign | 0x7e00u;  // NaN
    if (magnitude >= 0x477ff000u) return sign | 0x7c00u; // 65520 and beyond round to infinity
    if (magnitude < 0x38800000u) { // below 2^−14: a subnormal half, in steps of 2^−24
        const float scaled = std::bit_cast<float>(magnitude) * 16777216.0f;
        return static_cast<std::uint16_t>(sign | static_cast<std::uint16_t>(std::nearbyint(scaled)));
    }
    const std::uint32_t exponent = (magnitude >> 23) - 112u, mantissa = magnitude & 0x7fffffu;
    std::uint32_t half = (exponent << 10) | (mantissa >> 13);
    const std::uint32_t rest = mantissa & 0x1fffu;
    if (rest > 0x1000u || (rest == 0x1000u && (half & 1u) != 0))
        ++half; // a carry moves into the exponent, as it should
    return static_cast<std::uint16_t>(sign | half);
}

float halfToFloat(std::uint16_t half) {
    const std::uint32_t sign = static_cast<std::uint32_t>(half & 0x8000u) << 16;
    const std::uint32_t exponent = (half >> 10) & 0x1fu, mantissa = half & 0x3ffu;
    if (exponent == 0) {
        const float value = std::ldexp(static_cast<float>(mantissa), -24);
        return sign != 0 ? -value : value;
    }
    if (exponent == 31) return std::bit_cast<float>(sign | 0x7f800000u | (mantissa << 13));
    return std::bit_cast<float>(sign | ((exponent + 112u) << 23) | (mantissa << 13));
}

std::uint16_t floatToBfloat16(float x) {
    const auto bits = std::bit_cast<std::uint32_t>(x);
    if ((bits & 0x7fffffffu) > 0x7f800000u) return static_cast<std::uint16_t>((bits >> 16) | 0x40u);
    return static_cast<std::uint16_t>((bits + 0x7fffu + ((bits >> 16) & 1u)) >> 16);
}

float bfloat16ToFloat(std::uint16_t bits) {
    return std::bit_cast<float>(static_cast<std::uint32_t>(bits) << 16);
}

float roundedTo(KvDtype dtype, float x) {
    switch (dtype) {
    case KvDtype::F16:
        return halfToFloat(floatToHalf(x));
    case KvDtype::BF16:
        return bfloat16ToFloat(floatToBfloat16(x));
    case KvDtype::F32:
        break;
    }
    return x;
}

double KvRows::storageBytes(KvDtype dtype, int heads, std::int64_t rows, std::int64_t cols) {
    return static_cast<double>(heads) * static_cast<double>(rows) * static_cast<double>(paddedColsOf(cols)) *
           kvDtypeBytes(dtype);
}

void KvRows::assign(KvDtype dtype, int heads, std::int64_t rows, std::int64_t cols) {
    m_dtype = dtype;
    m_heads = heads;
    m_rows = rows;
    m_cols = cols;
    m_paddedCols = paddedColsOf(cols);
    m_rowBytes = m_paddedCols * kvDtypeBytes(dtype);
    m_data.assign(static_cast<std::size_t>(storageBytes(dtype, heads, rows, cols)), std::byte{0});
}

namespace {

// values[0, count) into 16-bit elements, with the vector conversions where the build has them.
void toHalves(KvDtype dtype, const float* values, std::int64_t count, std::uint16_t* out) {
    std::int64_t c = 0;
#if defined(__AVX512F__)
    if (dtype == KvDtype::F16)
        for (; c + 16 <= count; c += 16)
            _mm256_storeu_si256(reinterpret_cast<__m256i*>(out + c),
                                _mm512_cvtps_ph(_mm512_loadu_ps(values + c), _MM_FROUND_TO_NEAREST_INT));
#endif
#if defined(__AVX512BF16__)
    if (dtype == KvDtype::BF16)
        for (; c + 16 <= count; c += 16) {
            const __m256bh converted = _mm512_cvtneps_pbh(_mm512_loadu_ps(values + c));
            std::memcpy(out + c, &converted, sizeof converted);
        }
#endif
    for (; c < count; ++c)
        out[c] = dtype == KvDtype::F16 ? floatToHalf(values[c]) : floatToBfloat16(values[c]);
}

} // namespace

void KvRows::setRow(int head, std::int64_t r, const float* values) {
    std::byte* target = m_data.data() + (row(head, r) - m_data.data());
    if (m_dtype == KvDtype::F32) {
        std::memcpy(target, values, static_cast<std::size_t>(m_cols) * sizeof(float));
        return;
    }
    auto* halves = reinterpret_cast<std::uint16_t*>(target);
    toHalves(m_dtype, values, m_cols, halves);
    for (std::int64_t c = 0; c < m_cols; ++c)
        if (std::isinf(at(head, r, c)) && std::isfinite(values[c])) {
            char text[160];
            std::snprintf(text, sizeof text,
                          "a cached key or value (%g) lies beyond the range of %s (largest finite %s)",
                          values[c], kvDtypeName(m_dtype).c_str(),
                          m_dtype == KvDtype::F16 ? "65504" : "3.39e38");
            throw InputError(text);
        }
}

float KvRows::at(int head, std::int64_t r, std::int64_t c) const {
    const std::byte* bytes = row(head, r);
    if (m_dtype == KvDtype::F32) return reinterpret_cast<const float*>(bytes)[c];
    const std::uint16_t bits = reinterpret_cast<const std::uint16_t*>(bytes)[c];
    return m_dtype == KvDtype::F16 ? halfToFloat(bits) : bfloat16ToFloat(bits);
}

} // namespace attnlab
