// No kernel allocates per call on the hot path: buffers persist between runs (freshly mapped pages cost a
// page fault per 4 KiB, and a timing run repeats the same call hundreds of times). This program
// counts every byte allocated while one call runs, through operator new and, for Eigen's and our own
// aligned buffers, through the C allocation functions (wrapped at link time, see tests/CMakeLists.txt),
// after two warm-up calls that leave the workspaces sized.
#include "core/decode/decode.h"
#include "core/registry.h"
#include "core/variant.h"
#include "support/replaced_operator_new.h"
#include "support/variant_runner.h"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <limits>
#include <string>

namespace {
std::atomic<bool> counting{false};
void* volatile keptAlive = nullptr; // stops the compiler from removing a malloc/free pair
std::atomic<std::size_t> allocatedBytes{0};

void count(std::size_t bytes) {
    if (counting.load(std::memory_order_relaxed)) allocatedBytes.fetch_add(bytes, std::memory_order_relaxed);
}
} // namespace

extern "C" {
void* __real_malloc(std::size_t size);
void* __real_calloc(std::size_t count, std::size_t size);
void* __real_realloc(void* memory, std::size_t size);
int __real_posix_memalign(void** memory, std::size_t alignment, std::size_t size);
void* __real_aligned_alloc(std::size_t alignment, std::size_t size);

void* __wrap_malloc(std::size_t size) {
    count(size);
    return __real_malloc(size);
}
void* __wrap_calloc(std::size_t count_, std::size_t size) {
    count(count_ * size);
    return __real_calloc(count_, size);
}
void* __wrap_realloc(void* memory, std::size_t size) {
    count(size);
    return __real_realloc(memory, size);
}
int __wrap_posix_memalign(void** memory, std::size_t alignment, std::size_t size) {
    count(size);
    return __real_posix_memalign(memory, alignment, size);
}
void* __wrap_aligned_alloc(std::size_t alignment, std::size_t size) {
    count(size);
    return __real_aligned_alloc(alignment, size);
}
}

// operator new calls malloc from inside the C++ runtime, where the wrap does not reach: counted here, and
// taken from the real malloc so that it is counted once.
void onAllocation(std::size_t size) {
    count(size);
}
void* rawAllocate(std::size_t size) {
    return __real_malloc(size);
}

namespace attnlab::testing {
namespace {

// Bytes allocated by one of identical calls after two warm-up calls, each recycling the previous result's
// buffers as a timing run does: the least of three counted calls. A per-call buffer shows in every call;
// a worker thread's kept workspace is allocated the first time that thread gets a task, which on a busy
// machine (the other thread took every task so far) can be a counted call, once.
std::size_t bytesOfARepeatedCall(Call call, const Inputs& inputs) {
    const VariantInfo& variant = requireVariant(call.id);
    RunOptions options;
    options.causal = call.causal;
    options.threads = call.threads;
    options.params = prepareParams(variant, inputs.view().shape(call.causal), call.set);
    RunResult previous = variant.run(inputs.view(), options);
    options.recycle = &previous;
    previous = variant.run(inputs.view(), options);
    std::size_t least = std::numeric_limits<std::size_t>::max();
    for (int counted = 0; counted < 3; ++counted) {
        allocatedBytes = 0;
        counting = true;
        RunResult next = variant.run(inputs.view(), options);
        counting = false;
        least = std::min(least, allocatedBytes.load());
        previous = std::move(next);
    }
    return least;
}

// h = 4, n = 2048, d = 32: the output is 1 MiB, and a buffer per call of Q's, K's or the output's size,
// or per head of n × d, is far above the allowance; what remains are a few small bookkeeping vectors.
constexpr std::size_t kAllowedBytes = 64 << 10;

TEST(HotPathAllocations, EveryVariantRunsInItsKeptBuffers) {
    const Inputs inputs = randomInputs(4, 2048, 32, 32, 5);
    std::vector<Call> calls;
    for (const VariantInfo& variant : allVariants())
        for (const bool causal : {false, true}) {
            const CausalSupport excluded =
                causal ? CausalSupport::BidirectionalOnly : CausalSupport::CausalOnly;
            if (variant.causalSupport != excluded) calls.push_back({variant.id, causal, {}});
        }
    for (const std::string kernel : {"efficient", "taylor"})
        calls.push_back({"linear", true, {{"kernel", kernel}}});
    calls.push_back({"linformer", false, {{"proj", "pool"}}});
    ASSERT_GT(calls.size(), 25u);
    for (Call& call : calls) {
        call.threads = 2;
        EXPECT_LT(bytesOfARepeatedCall(call, inputs), kAllowedBytes) << describe(call);
    }
}

// A decoding step allocates nothing per run (core/decode/decode.h): every registered variant that decodes,
// split over two threads, at every cache precision. Its threads' kept buffers are sized by two warm-up runs.
TEST(HotPathAllocations, EveryDecodingStepRunsInItsKeptBuffers) {
    const Inputs inputs = randomInputs(4, 2048, 32, 32, 7);
    Tensor3 last(4, 1, 32);
    for (int h = 0; h < 4; ++h) std::copy(inputs.q.row(h, 2047), inputs.q.row(h, 2047) + 32, last.head(h));
    for (const VariantInfo& variant : allVariants()) {
        if (variant.causalSupport == CausalSupport::BidirectionalOnly) continue;
        const ParamSet params = prepareParams(variant, inputs.view().shape(true), {});
        const AttentionInputs context{decodeReadsEveryQuery(variant, params) ? &inputs.q : &last, &inputs.k, &inputs.v};
        for (const KvDtype dtype : {KvDtype::F32, KvDtype::F16, KvDtype::BF16}) {
            DecodeOptions options;
            options.threads = 2;
            options.kvDtype = dtype;
            options.chunkKeys = 256;
            const auto step = prepareDecodeStep(variant, context, params, options);
            std::vector<float> out(4 * 32);
            step->run(out.data());
            step->run(out.data());
            std::size_t least = std::numeric_limits<std::size_t>::max();
            for (int counted = 0; counted < 3; ++counted) {
                allocatedBytes = 0;
                counting = true;
                step->run(out.data());
                counting = false;
                least = std::min(least, allocatedBytes.load());
            }
            EXPECT_LT(least, std::size_t{1024}) << variant.id << " " << kvDtypeName(dtype);
        }
    }
}

// The counter itself: a buffer allocated inside the counted call shows up, through either route.
TEST(HotPathAllocations, TheCounterSeesBothRoutes) {
    allocatedBytes = 0;
    counting = true;
    std::vector<float> viaNew(1 << 16);
    keptAlive = std::malloc(1 << 18);
    counting = false;
    std::free(keptAlive);
    EXPECT_GE(allocatedBytes.load(), (std::size_t{1} << 18) + viaNew.size() * sizeof(float));
}

} // namespace
} // namespace attnlab::testing
