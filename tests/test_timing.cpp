// The timing helpers that do not depend on the clock: where a measured ratio crosses 1.
#include "core/timing.h"

#include <gtest/gtest.h>

#include <cmath>

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

} // namespace
} // namespace attnlab
