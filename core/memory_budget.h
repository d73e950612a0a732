#pragma once

#include <string>

namespace attnlab {

// Bytes the machine can give a new allocation now (MemAvailable, else free physical pages).
double availableMemoryBytes();

// Throws InputError "<what> needs X GiB but only Y GiB are available" when `bytes` exceeds what the
// machine has (with a small reserve for the process itself).
void requireMemory(double bytes, const std::string& what);

} // namespace attnlab
