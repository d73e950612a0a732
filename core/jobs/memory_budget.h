#pragma once

#include <optional>
#include <string>

namespace attnlab {

// Bytes the machine can give a new allocation now (MemAvailable, else free physical pages).
double availableMemoryBytes();

// Physical memory of the machine in bytes.
double physicalMemoryBytes();

// The most memory one job (a run, a pattern, one bench point, one view computation) may plan to use:
// the value given to setJobBudget (the command line's --memory-budget), else the environment variable
// ATTNLAB_MEMORY_BUDGET, else kDefaultBudgetFraction of physical memory. A fixed budget rather than
// "what is free now" so that one job never takes nearly all of RAM however idle the machine is.
constexpr double kDefaultBudgetFraction = 0.5;
double jobBudgetBytes();
void setJobBudget(std::optional<double> bytes);
// The budget the user gave (--memory-budget, else ATTNLAB_MEMORY_BUDGET), or nullopt for the default.
std::optional<double> givenJobBudget();

// Parses a byte count: digits with an optional K, M, G or T suffix (powers of 1024, "B"/"iB" allowed,
// e.g. 4G, 512MiB, 1000000). Returns nullopt for anything else or zero.
std::optional<double> parseByteSize(const std::string& text);

// Throws InputError "<what> needs X GiB, over the job budget of Y GiB (...; raise it with
// --memory-budget or ATTNLAB_MEMORY_BUDGET)" when `bytes` exceeds the budget, or a similar message
// when it exceeds what the machine has free now. Call before allocating.
void requireMemory(double bytes, const std::string& what);

} // namespace attnlab
