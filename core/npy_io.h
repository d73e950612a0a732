#pragma once

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

// An array read from a .npy file, converted to float32 in C (row-major) order.
struct NpyArray {
    std::vector<std::int64_t> shape;
    std::vector<float> values;
    std::string dtype; // as stored, e.g. "<f8"
};

// Reads NPY format 1.0, 2.0 or 3.0 holding float32 or float64 in either byte order and C or Fortran
// order. Throws InputError with a one-line message (naming the file) for a missing, truncated or
// garbled file, or any other dtype (float16 included).
NpyArray readNpy(const std::string& path);

// A file written under a temporary name in the destination's directory and renamed over the
// destination only by commit(); destroyed uncommitted, it removes the temporary, so a failed run
// never leaves a partial file and never clobbers an existing one.
class PendingFile {
public:
    explicit PendingFile(std::string destination);
    ~PendingFile();
    PendingFile(const PendingFile&) = delete;
    PendingFile& operator=(const PendingFile&) = delete;

    void write(const void* data, std::size_t bytes);
    void commit();
    const std::string& destination() const { return m_destination; }

private:
    std::string m_destination;
    std::string m_temporary;
    int m_fd = -1;
    bool m_committed = false;
};

// Writes an NPY 1.0 header and data into `file` (float32 little-endian or uint8, C order).
void writeNpyFloat32(PendingFile& file, const std::vector<std::int64_t>& shape, const float* values);
void writeNpyUint8(PendingFile& file, const std::vector<std::int64_t>& shape, const std::uint8_t* values);

} // namespace attnlab
