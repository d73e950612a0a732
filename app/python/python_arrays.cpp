#include "app/python/python_arrays.h"

#include "core/errors.h"

#include <memory>

namespace py = pybind11;

namespace attnlab {

namespace {

template <typename T, typename Storage>
py::array_t<T> ownedArray(Storage&& values, const std::vector<std::int64_t>& shape) {
    auto* owned = new Storage(std::move(values));
    const py::capsule release(owned, [](void* p) { delete static_cast<Storage*>(p); });
    std::vector<py::ssize_t> dims(shape.begin(), shape.end());
    return py::array_t<T>(dims, owned->data(), release);
}

} // namespace

InputArray inputArray(const char* name, const py::handle& value, std::vector<py::object>& keep) {
    using Floats = py::array_t<float, py::array::c_style | py::array::forcecast>;
    py::object array;
    if (py::isinstance<Floats>(value)) {
        array = py::reinterpret_borrow<py::object>(value);
    } else {
        try {
            array = Floats::ensure(value);
        } catch (const py::error_already_set&) {
            array = py::object();
        }
        if (!array) {
            PyErr_Clear();
            throw InputError(std::string(name) + ": expected an array of numbers, got " +
                             py::str(py::type::handle_of(value).attr("__name__")).cast<std::string>());
        }
    }
    keep.push_back(array);
    const auto floats = array.cast<Floats>();
    InputArray input;
    input.name = name;
    input.shape.assign(floats.shape(), floats.shape() + floats.ndim());
    input.values = floats.data();
    return input;
}

py::array_t<float> floatArray(FloatStorage&& values, const std::vector<std::int64_t>& shape) {
    return ownedArray<float>(std::move(values), shape);
}

py::array_t<std::uint8_t> byteArray(std::vector<std::uint8_t>&& values,
                                    const std::vector<std::int64_t>& shape) {
    return ownedArray<std::uint8_t>(std::move(values), shape);
}

py::array_t<std::int64_t> indexArray(std::vector<std::int64_t>&& values,
                                     const std::vector<std::int64_t>& shape) {
    return ownedArray<std::int64_t>(std::move(values), shape);
}

} // namespace attnlab
