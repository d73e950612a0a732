#include "app/thread_environment.h"

#include <cstddef>

// Called before any runtime is initialised: not instrumented by a sanitizer, whose shadow memory may
// not exist yet.
#define ATTNLAB_BEFORE_RUNTIMES __attribute__((no_sanitize("address", "undefined")))

namespace attnlab {

namespace {

constexpr const char kVariable[] = "OMP_NUM_THREADS=";
constexpr std::size_t kKeptBytes = 64; // of a removed value, for the message

bool g_removed = false;
char g_removedValue[kKeptBytes + 1] = {};

ATTNLAB_BEFORE_RUNTIMES bool isSpace(char c) { return c == ' ' || c == '\t'; }
ATTNLAB_BEFORE_RUNTIMES bool isDigit(char c) { return c >= '0' && c <= '9'; }

ATTNLAB_BEFORE_RUNTIMES bool startsWithVariable(const char* entry) {
    for (std::size_t k = 0; k + 1 < sizeof kVariable; ++k)
        if (entry[k] != kVariable[k]) return false;
    return true;
}

// Runs before the C library, a sanitizer runtime and OpenMP initialise: it calls no library function
// and touches only the environment array itself.
ATTNLAB_BEFORE_RUNTIMES void removeUnparsableThreadCount(int, char**, char** environment) {
    if (!environment) return;
    for (char** entry = environment; *entry; ++entry) {
        if (!startsWithVariable(*entry)) continue;
        const char* value = *entry + sizeof kVariable - 1;
        if (isThreadCountList(value)) return;
        for (std::size_t k = 0; k < kKeptBytes && value[k]; ++k) g_removedValue[k] = value[k];
        g_removed = true;
        for (char** rest = entry; *rest; ++rest) rest[0] = rest[1];
        return;
    }
}

} // namespace

ATTNLAB_BEFORE_RUNTIMES bool isThreadCountList(const char* value) {
    const char* c = value;
    do {
        while (isSpace(*c)) ++c;
        if (!isDigit(*c)) return false;
        bool positive = false;
        for (int digits = 0; isDigit(*c); ++c, ++digits) {
            if (digits >= 9) return false; // beyond any machine's thread count
            positive = positive || *c != '0';
        }
        if (!positive) return false;
        while (isSpace(*c)) ++c;
    } while (*c == ',' && ++c);
    return *c == '\0';
}

std::string threadEnvironmentNote() {
    if (!g_removed) return {};
    std::string shown;
    for (const char* c = g_removedValue; *c; ++c) shown += (static_cast<unsigned char>(*c) < 0x20 || *c == 0x7f) ? '?' : *c;
    return "attnlab: OMP_NUM_THREADS='" + shown +
           "' is not a thread count (positive whole numbers, comma-separated): it is ignored, and attnlab chooses its "
           "threads as when it is unset";
}

} // namespace attnlab

// The executable's pre-initialisers run before every shared library's initialisers (the ELF gABI),
// so the OpenMP runtime never sees the removed value.
__attribute__((section(".preinit_array"), used)) static void (*const attnlabPreinitThreadCount)(int, char**, char**) =
    attnlab::removeUnparsableThreadCount;
