#include "core/jobs/memory_budget.h"

#include "core/errors.h"

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <unistd.h>

namespace attnlab {

namespace {

std::optional<double> g_budgetOverride;

double meminfoBytes(const std::string& wanted) {
    std::ifstream meminfo("/proc/meminfo");
    std::string key, unit;
    double kib = 0;
    while (meminfo >> key >> kib >> unit)
        if (key == wanted) return kib * 1024.0;
    return -1;
}

// Bytes in the largest binary unit that keeps the value at 1 or more (a 1K budget is not "0.00 GiB").
std::string sizeText(double bytes) {
    char text[32];
    if (bytes >= 1024.0 * 1024 * 1024)
        std::snprintf(text, sizeof text, "%.2f GiB", bytes / (1024.0 * 1024 * 1024));
    else if (bytes >= 1024.0 * 1024)
        std::snprintf(text, sizeof text, "%.2f MiB", bytes / (1024.0 * 1024));
    else if (bytes >= 1024.0)
        std::snprintf(text, sizeof text, "%.2f KiB", bytes / 1024.0);
    else
        std::snprintf(text, sizeof text, "%.0f bytes", bytes);
    return text;
}

std::string budgetSource() {
    if (g_budgetOverride) return "set by --memory-budget";
    if (std::getenv("ATTNLAB_MEMORY_BUDGET")) return "set by ATTNLAB_MEMORY_BUDGET";
    return "half of physical memory by default";
}

} // namespace

double availableMemoryBytes() {
    const double available = meminfoBytes("MemAvailable:");
    if (available >= 0) return available;
    return static_cast<double>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

double physicalMemoryBytes() {
    return static_cast<double>(sysconf(_SC_PHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

std::optional<double> parseByteSize(const std::string& text) {
    std::size_t digits = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9') ++digits;
    if (digits == 0 || digits > 18) return std::nullopt;
    std::string suffix = text.substr(digits);
    if (suffix == "B" || suffix.empty()) suffix = "";
    double scale = 1;
    if (!suffix.empty()) {
        const std::string units = "KMGT";
        const auto power = units.find(suffix[0]);
        const std::string rest = suffix.substr(1);
        if (power == std::string::npos || !(rest.empty() || rest == "B" || rest == "iB")) return std::nullopt;
        scale = std::pow(1024.0, static_cast<double>(power + 1));
    }
    const double bytes = std::stod(text.substr(0, digits)) * scale;
    if (bytes <= 0) return std::nullopt;
    return bytes;
}

void setJobBudget(std::optional<double> bytes) { g_budgetOverride = bytes; }

std::optional<double> givenJobBudget() {
    if (g_budgetOverride) return g_budgetOverride;
    if (const char* env = std::getenv("ATTNLAB_MEMORY_BUDGET")) {
        const auto bytes = parseByteSize(env);
        if (!bytes) throw InputError(std::string("ATTNLAB_MEMORY_BUDGET = '") + env + "' is not a byte count (e.g. 8G)");
        return bytes;
    }
    return std::nullopt;
}

double jobBudgetBytes() { return givenJobBudget().value_or(kDefaultBudgetFraction * physicalMemoryBytes()); }

void requireMemory(double bytes, const std::string& what) {
    const double budget = jobBudgetBytes();
    if (!(bytes <= budget))
        throw InputError(what + " needs " + sizeText(bytes) + ", over the job budget of " + sizeText(budget) + " (" + budgetSource() +
                         "; raise it with --memory-budget BYTES or ATTNLAB_MEMORY_BUDGET, e.g. 16G)");
    const double available = availableMemoryBytes();
    constexpr double reserve = 256.0 * 1024 * 1024;
    if (bytes + reserve > available)
        throw InputError(what + " needs " + sizeText(bytes) + " but only " + sizeText(available) + " of memory are free now");
}

} // namespace attnlab
