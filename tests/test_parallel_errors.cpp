// Exceptions thrown inside OpenMP parallel regions reach the caller instead of std::terminate: runTasks
// itself, every variant's kernels when an allocation inside a region fails, and the command line's
// one-line out-of-memory exit. This program replaces the global operator new so that, when armed, any
// allocation made inside a parallel region throws std::bad_alloc, as an exhausted machine would.
#include "app/commands.h"
#include "core/jobs/parallel_tasks.h"
#include "support/replaced_operator_new.h"
#include "support/variant_runner.h"
#include "test_cli_harness.h"

#include <gtest/gtest.h>
#include <omp.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <new>
#include <stdexcept>
#include <unistd.h>
#include <vector>

namespace {
std::atomic<bool> failAllocationsInParallelRegions{false};
} // namespace

void onAllocation(std::size_t) {
    if (failAllocationsInParallelRegions.load(std::memory_order_relaxed) && omp_get_level() > 0) throw std::bad_alloc();
}
void* rawAllocate(std::size_t size) { return std::malloc(size); }

namespace attnlab::testing {
namespace {

// Arms the failing allocator for the lifetime of the object.
class AllocationsFailInParallelRegions {
public:
    AllocationsFailInParallelRegions() { failAllocationsInParallelRegions = true; }
    ~AllocationsFailInParallelRegions() { failAllocationsInParallelRegions = false; }
    AllocationsFailInParallelRegions(const AllocationsFailInParallelRegions&) = delete;
    AllocationsFailInParallelRegions& operator=(const AllocationsFailInParallelRegions&) = delete;
};

TEST(RunTasks, TheFirstExceptionOfATaskReachesTheCallerAndStopsTheRest) {
    std::atomic<int> started{0};
    try {
        runTasks(1000, 2, {}, [&started](std::int64_t task) {
            ++started;
            if (task == 0) throw std::runtime_error("task 0 failed");
            usleep(1000);
        });
        FAIL() << "the exception was lost";
    } catch (const std::runtime_error& error) {
        EXPECT_STREQ(error.what(), "task 0 failed");
    }
    EXPECT_LT(started.load(), 100) << "tasks kept starting after the failure";
}

// Runs shrink from a share of what is left to the grain: every task once, the first run long, and no
// run (consecutive tasks on one thread) shorter than the grain but the last.
TEST(RunTasks, RunsEveryTaskOnceInRunsThatShrinkToTheGrain) {
    constexpr std::int64_t kCount = 103, kGrain = 4;
    std::vector<std::atomic<int>> runs(kCount);
    std::vector<int> thread(kCount, -1);
    EXPECT_TRUE(runTasks(kCount, 3, {}, [&](std::int64_t task) {
        ++runs[static_cast<std::size_t>(task)];
        thread[static_cast<std::size_t>(task)] = omp_get_thread_num();
        usleep(100);
    }, kGrain));
    std::vector<std::int64_t> lengths{1};
    for (std::int64_t t = 0; t < kCount; ++t) {
        EXPECT_EQ(runs[static_cast<std::size_t>(t)].load(), 1) << "task " << t;
        if (t == 0) continue;
        if (thread[static_cast<std::size_t>(t)] == thread[static_cast<std::size_t>(t - 1)])
            ++lengths.back();
        else
            lengths.push_back(1);
    }
    EXPECT_GE(lengths.front(), kCount / 3 / 2) << "the first run is not a share of the tasks";
    for (std::size_t r = 0; r + 1 < lengths.size(); ++r) EXPECT_GE(lengths[r], kGrain) << "run " << r;
}

TEST(RunTasks, BadAllocKeepsItsType) {
    EXPECT_THROW(runTasks(8, 2, {}, [](std::int64_t task) {
                     if (task == 5) throw std::bad_alloc();
                 }),
                 std::bad_alloc);
    EXPECT_TRUE(runTasks(8, 2, {}, [](std::int64_t) {})); // and the next run is unaffected
}

TEST(RunTasks, TheFailingAllocatorFailsOnlyInsideRegions) {
    const AllocationsFailInParallelRegions armed;
    std::vector<double> outside(1000); // no throw outside a region
    EXPECT_THROW(runTasks(4, 2, {}, [](std::int64_t) { std::vector<double> inside(1000); }), std::bad_alloc);
}

TEST(ParallelRegions, AnAllocationFailureInAnyVariantIsThrownNotFatal) {
    int failed = 0, runs = 0;
    for (const auto& variant : allVariants())
        for (const bool reference : {false, true}) {
            const bool causal = variant.causalSupport == CausalSupport::CausalOnly;
            Call call{variant.id, causal, {}, reference, true, 2};
            const Inputs inputs = randomInputs(3, 211, 8, 8, 5);
            const AllocationsFailInParallelRegions armed;
            ++runs;
            try {
                runCall(call, inputs);
            } catch (const std::bad_alloc&) {
                ++failed;
            }
        }
    // Reaching this line is the test: std::terminate would have ended the program. The reference paths
    // allocate their rows inside regions, so at least those must have thrown.
    EXPECT_GE(failed, runs / 4);
}

class OutOfMemoryExit : public clitest::CliTest {};

TEST_F(OutOfMemoryExit, CommandLinePrintsOneLineAndWritesNoFile) {
    const std::vector<std::int64_t> shape = {2, 40, 8};
    writeArray("q.npy", shape, clitest::gaussianValues(640, 1));
    writeArray("k.npy", shape, clitest::gaussianValues(640, 2));
    writeArray("v.npy", shape, clitest::gaussianValues(640, 3));
    const std::string out = file("out.npy").string(), weights = file("w.npy").string();
    std::vector<std::string> args = {"attnlab", "run", "--variant", "full", "--reference", "--threads", "2",
                                     "--q", file("q.npy").string(), "--k", file("k.npy").string(),
                                     "--v", file("v.npy").string(), "--out", out, "--weights", weights};
    std::vector<char*> argv;
    for (auto& arg : args) argv.push_back(arg.data());

    const std::string errPath = file("stderr.txt").string();
    std::fflush(stderr);
    const int savedErr = ::dup(2);
    std::FILE* capture = std::fopen(errPath.c_str(), "w");
    ASSERT_NE(capture, nullptr);
    ::dup2(::fileno(capture), 2);
    int code = 0;
    {
        const AllocationsFailInParallelRegions armed;
        code = runCommandLine(static_cast<int>(argv.size()), argv.data());
    }
    std::fflush(stderr);
    ::dup2(savedErr, 2);
    ::close(savedErr);
    std::fclose(capture);

    EXPECT_EQ(code, 2);
    EXPECT_EQ(clitest::readBytes(errPath), "attnlab: error: out of memory\n");
    EXPECT_FALSE(std::filesystem::exists(out));
    EXPECT_FALSE(std::filesystem::exists(weights));
    EXPECT_EQ(listing(), (std::set<std::string>{"q.npy", "k.npy", "v.npy", "stderr.txt"}));
}

} // namespace
} // namespace attnlab::testing
