#include "core/memory_budget.h"

#include "core/errors.h"

#include <cstdio>
#include <fstream>
#include <sstream>
#include <unistd.h>

namespace attnlab {

double availableMemoryBytes() {
    std::ifstream meminfo("/proc/meminfo");
    std::string key;
    double kib = 0;
    std::string unit;
    while (meminfo >> key >> kib >> unit)
        if (key == "MemAvailable:") return kib * 1024.0;
    return static_cast<double>(sysconf(_SC_AVPHYS_PAGES)) * static_cast<double>(sysconf(_SC_PAGESIZE));
}

void requireMemory(double bytes, const std::string& what) {
    const double available = availableMemoryBytes();
    constexpr double reserve = 256.0 * 1024 * 1024;
    if (bytes + reserve <= available) return;
    char message[256];
    std::snprintf(message, sizeof message, "%s needs %.1f GiB but only %.1f GiB of memory are available", what.c_str(),
                  bytes / (1024.0 * 1024 * 1024), available / (1024.0 * 1024 * 1024));
    throw InputError(message);
}

} // namespace attnlab
