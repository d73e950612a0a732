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
    // A read-only view of heads × rows × cols values laid out as above and held by the caller (an array
    // read in place): `values` stays empty and the const accessors read `data`, which must outlive the
    // view and every kernel reading it. A copy of a view owns a copy of its values.
    static Tensor3 borrow(const float* data, int headCount, std::int64_t rowCount, std::int64_t colCount) {
        Tensor3 view;
        view.heads = headCount;
        view.rows = rowCount;
        view.cols = colCount;
        view.m_borrowed = data;
        return view;
    }
    Tensor3(const Tensor3& other)
        : heads(other.heads), rows(other.rows), cols(other.cols),
          values(other.m_borrowed ? FloatStorage(other.m_borrowed, other.m_borrowed + other.size()) : other.values) {}
    Tensor3& operator=(const Tensor3& other) {
        if (this != &other) *this = Tensor3(other);
        return *this;
    }
    Tensor3(Tensor3&&) noexcept = default;
    Tensor3& operator=(Tensor3&&) noexcept = default;
    ~Tensor3() = default;

    std::size_t headStride() const { return static_cast<std::size_t>(rows) * cols; }
    std::size_t size() const { return static_cast<std::size_t>(heads) * headStride(); }
    const float* data() const { return m_borrowed ? m_borrowed : values.data(); }
    bool borrowed() const { return m_borrowed != nullptr; }
    // The mutable accessors are for tensors that own their values (never a borrowed view).
    float* head(int h) { return values.data() + h * headStride(); }
    const float* head(int h) const { return data() + h * headStride(); }
    float* row(int h, std::int64_t i) { return head(h) + i * cols; }
    const float* row(int h, std::int64_t i) const { return head(h) + i * cols; }
    float& at(int h, std::int64_t i, std::int64_t c) { return row(h, i)[c]; }
    float at(int h, std::int64_t i, std::int64_t c) const { return row(h, i)[c]; }
    bool empty() const { return values.empty() && !m_borrowed; }

private:
    const float* m_borrowed = nullptr;
};

} // namespace attnlab
