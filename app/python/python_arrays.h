#pragma once

// NumPy arrays in and out of the core without copies where the layout allows.

#include "core/io/input_files.h"

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <cstdint>
#include <vector>

namespace attnlab {

// An input as the core reads it: a float32 C-contiguous array is borrowed as it is (its buffer read in
// place); any other array, list or number array is converted once to a float32 C-contiguous copy,
// kept in `keep` for as long as the input is read. Anything NumPy cannot convert to numbers is an
// InputError naming `name`.
InputArray inputArray(const char* name, const pybind11::handle& value, std::vector<pybind11::object>& keep);

// An array over `values` without a copy: the array owns them from now on.
pybind11::array_t<float> floatArray(FloatStorage&& values, const std::vector<std::int64_t>& shape);
pybind11::array_t<std::uint8_t> byteArray(std::vector<std::uint8_t>&& values,
                                          const std::vector<std::int64_t>& shape);
pybind11::array_t<std::int64_t> indexArray(std::vector<std::int64_t>&& values,
                                           const std::vector<std::int64_t>& shape);

} // namespace attnlab
