// libFuzzer target (the `fuzz` preset): see fuzz_session_entry.h.
#include "fuzz/fuzz_session_entry.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
    attnlab::fuzz::sessionInput(data, size);
    return 0;
}
