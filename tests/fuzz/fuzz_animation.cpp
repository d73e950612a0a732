// libFuzzer target (the `fuzz` preset): see fuzz_entry_points.h.
#include "fuzz/fuzz_entry_points.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attnlab::fuzz::animationRangeInput(data, size);
    return 0;
}
