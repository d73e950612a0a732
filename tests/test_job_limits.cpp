// The per-job limits: the memory budget defaults to half of physical memory (not "what is free now"),
// can be set by option or environment, and its refusals say the limit and how to raise it.
#include "core/cost/job_limits.h"
#include "core/errors.h"
#include "core/jobs/memory_budget.h"

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

} // namespace
} // namespace attnlab
