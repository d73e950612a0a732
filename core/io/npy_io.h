#pragma once

#include "core/io/npy_header.h"
#include "core/io/output_file.h"
#include "core/tensor.h"

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

// An array read from a .npy file, converted to float32 in C (row-major) order.
struct NpyArray {
    std::vector<std::int64_t> shape;
    FloatStorage values; // cache-line aligned: it becomes a Tensor3's storage without a copy
    std::string dtype; // as stored, e.g. "<f8"
};

// Reads NPY format 1.0, 2.0 or 3.0 holding float32 or float64 in either byte order and C or Fortran
// order. Throws InputError with a one-line message (naming the file) for a missing, truncated or
// garbled file, or any other dtype (float16 included).
// The file must be a regular file whose size is exactly what its header promises (checked before the
// data is read), and the array must fit the job's memory budget (core/jobs/memory_budget.h).
NpyArray readNpy(const std::string& path);

// The header of the NPY file at `path`, checked as readNpy checks it (a regular file, a supported dtype,
// exactly the size the header promises) without reading or allocating the data.
NpyHeader inspectNpy(const std::string& path);

// The same as readNpy from bytes already in memory; `name` prefixes the messages.
NpyArray parseNpy(const std::string& name, std::string_view bytes);

// Writes an NPY 1.0 header and data into `file` (float32 little-endian or uint8, C order).
void writeNpyFloat32(PendingFile& file, const std::vector<std::int64_t>& shape, const float* values);
void writeNpyUint8(PendingFile& file, const std::vector<std::int64_t>& shape, const std::uint8_t* values);

} // namespace attnlab
