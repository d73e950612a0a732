#pragma once

// OMP_NUM_THREADS is read by the OpenMP runtime as it loads, before main(): a value it cannot parse
// ("abc", "0", "4x") makes it print its own warning. attnlab reads the variable first (an ELF
// pre-initialiser, which runs before any shared library's), removes a value that is not a thread
// count, and says so in its own words.

#include <string>

namespace attnlab {

// "attnlab: OMP_NUM_THREADS='abc' is not ..." when the variable was removed at start, else empty.
std::string threadEnvironmentNote();

// A value OpenMP takes: positive whole numbers separated by commas (one per nesting level), spaces
// around them allowed.
bool isThreadCountList(const char* value);

} // namespace attnlab
