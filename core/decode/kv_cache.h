#pragma once

// The precision a KV cache keeps its keys and values in, and the rows of such a cache as a decoding step
// reads them (docs/inference.md, "Cache precision").

#include "core/tensor.h"

#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

// float32; float16 (IEEE binary16: 10 stored mantissa bits, largest finite 65504); bfloat16 (float32's upper
// 16 bits: float32's range, 7 stored mantissa bits). Conversions from float32 round to nearest, ties to even.
enum class KvDtype { F32, F16, BF16 };

std::string kvDtypeName(KvDtype dtype); // "f32", "f16", "bf16"
// Throws InputError naming the three choices; `what` names the option or field (e.g. "--kv-dtype").
KvDtype kvDtypeFromName(const std::string& name, const std::string& what);
constexpr int kvDtypeBytes(KvDtype dtype) {
    return dtype == KvDtype::F32 ? 4 : 2;
}
// The unit roundoff u of rounding a float32 to the precision: |rounded − x| ≤ u·|x| for x in its normal range
// (0 for f32, 2^−11 for f16, 2^−8 for bf16).
double kvDtypeRoundoff(KvDtype dtype);

std::uint16_t floatToHalf(float x); // ±inf beyond 65504 (callers check the range first)
float halfToFloat(std::uint16_t bits);
std::uint16_t floatToBfloat16(float x);
float bfloat16ToFloat(std::uint16_t bits);
// x rounded to the precision and back, as the cache would hand it to the step.
float roundedTo(KvDtype dtype, float x);

// Rows of keys or values as a cache keeps them: heads × rows of `cols` elements of one precision, each row
// zero-padded to whole 16-lane vectors (paddedCols) so that the step's vector loops need no tails. Storage of
// 4 MiB and more sits on 2 MiB huge pages (CacheLineAllocator).
class KvRows {
  public:
    static constexpr std::int64_t kLanes = 16;
    static std::int64_t paddedColsOf(std::int64_t cols) { return (cols + kLanes - 1) / kLanes * kLanes; }
    // Bytes of storage for heads × rows × cols (padded), for memory planning before assign().
    static double storageBytes(KvDtype dtype, int heads, std::int64_t rows, std::int64_t cols);

    void assign(KvDtype dtype, int heads, std::int64_t rows, std::int64_t cols);
    // Row `row` of head `head` from cols floats. Throws InputError when a value lies beyond float16's range.
    void setRow(int head, std::int64_t row, const float* values);

    KvDtype dtype() const { return m_dtype; }
    int heads() const { return m_heads; }
    std::int64_t rows() const { return m_rows; }
    std::int64_t cols() const { return m_cols; }
    std::int64_t paddedCols() const { return m_paddedCols; }
    std::int64_t rowBytes() const { return m_rowBytes; }
    const std::byte* row(int head, std::int64_t row) const {
        return m_data.data() + (static_cast<std::size_t>(head) * static_cast<std::size_t>(m_rows) +
                                static_cast<std::size_t>(row)) *
                                   static_cast<std::size_t>(m_rowBytes);
    }
    // Element c of a row, as float32.
    float at(int head, std::int64_t row, std::int64_t c) const;

  private:
    KvDtype m_dtype = KvDtype::F32;
    int m_heads = 0;
    std::int64_t m_rows = 0, m_cols = 0, m_paddedCols = 0, m_rowBytes = 0;
    std::vector<std::byte, CacheLineAllocator<std::byte>> m_data;
};

} // namespace attnlab
