#pragma once

// Replaces the global operator new and delete of the one test program that includes this header. Each
// allocation first calls onAllocation(size), which the program defines (to count it, or to throw
// std::bad_alloc), then takes its memory from rawAllocate(size), also the program's (std::malloc, or
// the real malloc behind a link-time wrap); delete releases with std::free.

#include <cstddef>
#include <cstdlib>
#include <new>

void onAllocation(std::size_t size);
void* rawAllocate(std::size_t size);

void* operator new(std::size_t size) {
    onAllocation(size);
    if (void* memory = rawAllocate(size == 0 ? 1 : size)) return memory;
    throw std::bad_alloc();
}
// Released with std::free to match the malloc above (AddressSanitizer checks the pair). GCC cannot see
// that the two replacements belong together and warns where it inlines a delete.
#pragma GCC diagnostic ignored "-Wmismatched-new-delete"
void operator delete(void* memory) noexcept {
    std::free(memory);
}
void operator delete(void* memory, std::size_t) noexcept {
    std::free(memory);
}
