// The per-job limits: the memory budget defaults to half of physical memory (not "what is free now"),
// can be set by option or environment, and its refusals say the limit and how to raise it.
#include "core/cost/job_limits.h"
#include "core/errors.h"
#include "core/jobs/memory_budget.h"
#include "core/patterns/block_counts.h"
#include "core/patterns/expression_pattern.h"
#include "core/patterns/pattern_expression.h"
#include "core/patterns/range_work.h"

#include <gtest/gtest.h>

#include <cstdlib>

namespace attnlab {
namespace {

constexpr double kGiB = 1024.0 * 1024 * 1024;

std::string refusal(double bytes) {
    try {
        requireMemory(bytes, "the job");
    } catch (const InputError& error) {
        return error.what();
    }
    return "";
}

TEST(JobLimits, ByteSizesAreDigitsWithABinarySuffix) {
    EXPECT_EQ(parseByteSize("1000000"), 1e6);
    EXPECT_EQ(parseByteSize("8G"), 8 * kGiB);
    EXPECT_EQ(parseByteSize("512MiB"), 512.0 * 1024 * 1024);
    EXPECT_EQ(parseByteSize("3KB"), 3072.0);
    EXPECT_EQ(parseByteSize("2T"), 2 * 1024 * kGiB);
    for (const char* bad : {"", "0", "G", "1.5G", "-4G", "8X", "8GG", "99999999999999999999", "8 G"})
        EXPECT_FALSE(parseByteSize(bad).has_value()) << bad;
}

TEST(JobLimits, TheDefaultBudgetIsHalfOfPhysicalMemoryNotWhatIsFree) {
    ::unsetenv("ATTNLAB_MEMORY_BUDGET");
    setJobBudget(std::nullopt);
    EXPECT_DOUBLE_EQ(jobBudgetBytes(), 0.5 * physicalMemoryBytes());
    // Just over the budget is refused even when the machine has that much free right now.
    const std::string message = refusal(0.5 * physicalMemoryBytes() + 4096);
    EXPECT_NE(message.find("over the job budget"), std::string::npos) << message;
    EXPECT_NE(message.find("half of physical memory"), std::string::npos) << message;
    EXPECT_NE(message.find("--memory-budget"), std::string::npos) << message;
    EXPECT_NE(message.find("ATTNLAB_MEMORY_BUDGET"), std::string::npos) << message;
}

TEST(JobLimits, TheOptionOverridesTheEnvironmentWhichOverridesTheDefault) {
    ::setenv("ATTNLAB_MEMORY_BUDGET", "2M", 1);
    setJobBudget(std::nullopt);
    EXPECT_EQ(jobBudgetBytes(), 2.0 * 1024 * 1024);
    EXPECT_NE(refusal(3.0 * 1024 * 1024).find("set by ATTNLAB_MEMORY_BUDGET"), std::string::npos);
    EXPECT_EQ(refusal(1.0 * 1024 * 1024), "");
    setJobBudget(1024.0);
    EXPECT_NE(refusal(2048).find("set by --memory-budget"), std::string::npos);
    EXPECT_NE(refusal(2048).find("needs 2.00 KiB, over the job budget of 1.00 KiB"), std::string::npos) << refusal(2048);
    ::setenv("ATTNLAB_MEMORY_BUDGET", "plenty", 1);
    setJobBudget(std::nullopt);
    EXPECT_THROW(jobBudgetBytes(), InputError);
    ::unsetenv("ATTNLAB_MEMORY_BUDGET");
}

TEST(JobLimits, TheWorkLimitIsSettableAndNamedInItsRefusal) {
    ::unsetenv("ATTNLAB_MAX_MACS");
    setJobWorkLimit(std::nullopt);
    EXPECT_EQ(jobWorkLimit(), kDefaultMaxMacs);
    EXPECT_NO_THROW(requireWork(kDefaultMaxMacs, "the job"));
    EXPECT_THROW(requireWork(2 * kDefaultMaxMacs, "the job"), InputError);
    ::setenv("ATTNLAB_MAX_MACS", "1e15", 1);
    EXPECT_EQ(jobWorkLimit(), 1e15);
    setJobWorkLimit(10.0);
    try {
        requireWork(11, "the job");
        ADD_FAILURE() << "11 MACs passed a limit of 10";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find("--max-macs"), std::string::npos) << error.what();
    }
    ::unsetenv("ATTNLAB_MAX_MACS");
}

// stride(4) at n = 4096: every row has 1024 single-column ranges, so evaluating all rows takes exactly
// 4096 · 1024 = 2^22 ranges of work, which the sample of 64 rows estimates exactly.
TEST(JobLimits, TheRangeLimitIsEstimatedFromASampleOfRows) {
    ::unsetenv("ATTNLAB_MAX_RANGES");
    setJobRangeLimit(std::nullopt);
    EXPECT_EQ(jobRangeLimit(), kDefaultMaxRanges);
    const ExpressionPattern pattern(parseExpression("stride(4)"), 4096, false);
    const std::int64_t work = std::int64_t{1} << 22;
    setJobRangeLimit(work);
    EXPECT_NO_THROW(requireRangeWork(pattern));
    const BlockCounts blocks = countBlocks(pattern, 64);
    EXPECT_EQ(blocks.allowedCells, 4096 * 1024);
    EXPECT_EQ(blocks.full + blocks.partial, 64 * 64);
    setJobRangeLimit(work - 1);
    EXPECT_NO_THROW(countBlocks(ExpressionPattern(parseExpression("band(1)"), 4096, false), 64));
    try {
        requireRangeWork(pattern);
        ADD_FAILURE() << "2^22 ranges passed a limit of 2^22 - 1";
    } catch (const RangeWorkExceeded& error) {
        EXPECT_NE(std::string(error.what()).find("needs about 4.19e+06 column ranges"), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("--max-ranges"), std::string::npos) << error.what();
    }
    EXPECT_THROW(countBlocks(pattern, 64), RangeWorkExceeded);
    setJobRangeLimit(std::int64_t{1} << 20);
    EXPECT_THROW(requireRangeWork(pattern), RangeWorkExceeded);
    // A limit 64 times below: the sample stops at 16 times its share (16 rows of 1024) before the 17th
    // row's ranges are made, and states the bound 17 · 1024 · 4096 / 64 it reached.
    setJobRangeLimit(std::int64_t{1} << 16);
    const std::int64_t before = rangeWorkDone().ranges;
    try {
        requireRangeWork(pattern);
        ADD_FAILURE() << "2^22 ranges passed a limit of 2^16";
    } catch (const RangeWorkExceeded& error) {
        EXPECT_NE(std::string(error.what()).find("needs at least 1.11e+06 column ranges"), std::string::npos) << error.what();
    }
    EXPECT_EQ(rangeWorkDone().ranges - before, 16 * 1024);
    ::setenv("ATTNLAB_MAX_RANGES", "12", 1);
    setJobRangeLimit(std::nullopt);
    EXPECT_EQ(jobRangeLimit(), 12);
    for (const char* bad : {"0", "-3", "1e6", "+4", ""}) {
        ::setenv("ATTNLAB_MAX_RANGES", bad, 1);
        EXPECT_THROW(jobRangeLimit(), InputError) << bad;
    }
    ::unsetenv("ATTNLAB_MAX_RANGES");
}

} // namespace
} // namespace attnlab
