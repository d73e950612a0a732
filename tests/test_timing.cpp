// The timing helpers that do not depend on the clock: where a measured ratio crosses 1, and the memory
// a measurement reports.
#include "core/measure/timing.h"

#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <thread>
#include <vector>

namespace attnlab {
namespace {

TEST(MeasuredCrossover, InterpolatesInLogLogSpaceBetweenTheGridPointsAroundTheChange) {
    // log ratio goes from log(1/2) to log 2 between n = 256 and 512: halfway in log n.
    const MeasuredCrossover crossing = measuredCrossover({128, 256, 512, 1024}, {0.25, 0.5, 2.0, 4.0});
    ASSERT_TRUE(crossing.n.has_value());
    EXPECT_NEAR(*crossing.n, 256.0 * std::sqrt(2.0), 1e-9);
    EXPECT_FALSE(crossing.alwaysAbove);
}

TEST(MeasuredCrossover, ANoisyEarlyPointAboveOneDoesNotMakeAnEarlyCrossing) {
    const MeasuredCrossover crossing = measuredCrossover({256, 512, 1024, 2048}, {1.3, 0.6, 0.9, 1.5});
    ASSERT_TRUE(crossing.n.has_value());
    EXPECT_GT(*crossing.n, 1024.0);
    EXPECT_LT(*crossing.n, 2048.0);
}

TEST(MeasuredCrossover, OutsideTheGridIsSaidAsSuch) {
    const MeasuredCrossover above = measuredCrossover({256, 512}, {1.1, 3.0});
    EXPECT_TRUE(above.alwaysAbove);
    EXPECT_FALSE(above.n.has_value());
    const MeasuredCrossover below = measuredCrossover({256, 512, 1024}, {0.2, 1.5, 0.9});
    EXPECT_FALSE(below.alwaysAbove);
    EXPECT_FALSE(below.n.has_value());
    EXPECT_FALSE(measuredCrossover({}, {}).n.has_value());
}

// The app measures its points one after another on a worker thread, n outermost and the compared
// variants within. Each point frees its inputs and output when it ends; the next point's output must
// still count as that point's memory. (With a heap of its own, the worker kept the freed memory resident,
// the output reused it, and some points read a few KiB.)
TEST(MeasuredMemory, EachPointOnAWorkerCountsItsOutputAfterEarlierPointsFreedTheirs) {
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
    GTEST_SKIP() << "the sanitizers' allocators keep freed memory in quarantine: resident memory says nothing here";
#endif
    prepareAllocatorForMeasurements(); // as main does, before the worker starts
    struct Point {
        std::string variant;
        std::int64_t n;
        double extraBytes;
    };
    std::vector<Point> points;
    std::thread worker([&] {
        for (const std::int64_t n : {1024, 2048, 4096})
            for (const char* variant : {"performer", "linformer", "mixed_chunk", "linear"}) {
                TimingRequest request;
                request.variant = variant;
                request.shape.heads = 4;
                request.shape.n = n;
                request.shape.d = request.shape.dv = 64;
                request.budgetSeconds = 0;
                request.minRepeats = request.maxRepeats = 1;
                points.push_back({variant, n, timeVariant(request).peakExtraBytes});
            }
    });
    worker.join();
    for (const Point& point : points) {
        const double outputBytes = 4.0 * 4 * static_cast<double>(point.n) * 64;
        EXPECT_GE(point.extraBytes, 0.9 * outputBytes) << point.variant << " at n = " << point.n;
    }
}

} // namespace
} // namespace attnlab
