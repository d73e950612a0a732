#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <vector>

#include <sys/mman.h>

namespace attnlab {

// Storage aligned to a cache line, so that rows of a multiple of 16 floats (d = 16, 32, 64, ...) each start a
// line: the kernels' 64-byte vector loads and stores of whole rows then never straddle two lines.
// Storage of kHugeFrom bytes and more (Q, K, V and outputs of large runs) is aligned to 2 MiB and advised as
// transparent huge pages: touched for the first time, 4 KiB pages cost a page fault each where a 2 MiB page
// costs one for all of it, and random rows of K and V (bigbird's random keys) miss the TLB far less often
// (measurements: docs/execution_plans.md, "Memory layout and traffic").
template <typename T>
struct CacheLineAllocator {
    using value_type = T;
    static constexpr std::align_val_t kAlignment{64};
    static constexpr std::size_t kHugePage = std::size_t{2} << 20;
    static constexpr std::size_t kHugeFrom = 2 * kHugePage;
    CacheLineAllocator() = default;
    template <typename U>
    CacheLineAllocator(const CacheLineAllocator<U>&) noexcept {}
    T* allocate(std::size_t count) {
        const std::size_t bytes = count * sizeof(T);
        if (bytes < kHugeFrom) return static_cast<T*>(::operator new(bytes, kAlignment));
        const std::size_t rounded = (bytes + kHugePage - 1) / kHugePage * kHugePage;
        void* p = ::operator new(rounded, std::align_val_t(kHugePage));
#if defined(MADV_HUGEPAGE)
        madvise(p, rounded, MADV_HUGEPAGE); // a hint: without huge pages the storage works the same
#endif
        return static_cast<T*>(p);
    }
    void deallocate(T* p, std::size_t count) noexcept {
        if (count * sizeof(T) < kHugeFrom)
            ::operator delete(p, kAlignment);
        else
            ::operator delete(p, std::align_val_t(kHugePage));
    }
    template <typename U>
    bool operator==(const CacheLineAllocator<U>&) const noexcept { return true; }
};
using FloatStorage = std::vector<float, CacheLineAllocator<float>>;

// A stack of `heads` row-major matrices of rows × cols float32 values, stored contiguously:
// element (h, i, c) lives at values[(h * rows + i) * cols + c]. Q, K, V and outputs are [h, n, d];
// effective weights are [h, n, n].
struct Tensor3 {
    int heads = 0;
    std::int64_t rows = 0;
    std::int64_t cols = 0;
    FloatStorage values;

    Tensor3() = default;
    Tensor3(int headCount, std::int64_t rowCount, std::int64_t colCount)
        : heads(headCount), rows(rowCount), cols(colCount),
          values(static_cast<std::size_t>(headCount) * rowCount * colCount, 0.0f) {}

    std::size_t headStride() const { return static_cast<std::size_t>(rows) * cols; }
    float* head(int h) { return values.data() + h * headStride(); }
    const float* head(int h) const { return values.data() + h * headStride(); }
    float* row(int h, std::int64_t i) { return head(h) + i * cols; }
    const float* row(int h, std::int64_t i) const { return head(h) + i * cols; }
    float& at(int h, std::int64_t i, std::int64_t c) { return row(h, i)[c]; }
    float at(int h, std::int64_t i, std::int64_t c) const { return row(h, i)[c]; }
    bool empty() const { return values.empty(); }
};

} // namespace attnlab
