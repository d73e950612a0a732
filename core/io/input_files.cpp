#include "core/io/input_files.h"

#include "core/errors.h"
#include "core/io/npy_io.h"

#include <algorithm>
#include <cmath>

namespace attnlab {

namespace {

std::string shapeText(const std::vector<std::int64_t>& shape) {
    std::string text = "[";
    for (std::size_t a = 0; a < shape.size(); ++a) text += (a ? ", " : "") + std::to_string(shape[a]);
    return text + "]";
}

// The checks every input passes, from a file or from memory: its rank, its sizes, every value finite.
void checkInput(const std::string& name, const std::vector<std::int64_t>& shape, const float* values) {
    if (shape.size() != 2 && shape.size() != 3)
        throw InputError(name + ": expected a 2-D [n, d] or 3-D [h, n, d] array, got shape " + shapeText(shape));
    for (const auto dim : shape)
        if (dim <= 0) throw InputError(name + ": empty dimension in shape " + shapeText(shape));
    std::size_t count = 1;
    for (const auto dim : shape) count *= static_cast<std::size_t>(dim);
    for (std::size_t e = 0; e < count; ++e)
        if (!std::isfinite(values[e]))
            throw InputError(name + ": contains " + (std::isnan(values[e]) ? "NaN" : "Inf") + " at flat index " +
                             std::to_string(e));
    if (shape.size() == 3 && shape[0] > 1 << 20) throw InputError(name + ": too many heads");
}

Tensor3 shapedTensor(const std::vector<std::int64_t>& shape, Tensor3 tensor) {
    const bool threeD = shape.size() == 3;
    tensor.heads = threeD ? static_cast<int>(shape[0]) : 1;
    tensor.rows = shape[threeD ? 1 : 0];
    tensor.cols = shape[threeD ? 2 : 1];
    return tensor;
}

Tensor3 toTensor(const InputArray& input) {
    checkInput(input.name, input.shape, input.values);
    return shapedTensor(input.shape, Tensor3::borrow(input.values, 0, 0, 0));
}

Tensor3 toTensor(const std::string& path, NpyArray&& array) {
    checkInput(path, array.shape, array.values.data());
    Tensor3 tensor;
    tensor.values = std::move(array.values);
    return shapedTensor(array.shape, std::move(tensor));
}

std::vector<std::int64_t> qShapeOf(const InputFiles& files) {
    if (files.twoDimensional) return {files.q.rows, files.q.cols};
    return {files.q.heads, files.q.rows, files.q.cols};
}

void checkRank(const std::string& path, const std::vector<std::int64_t>& shape, const InputFiles& files) {
    if (shape.size() != (files.twoDimensional ? 2u : 3u))
        throw InputError(path + ": mixed 2-D and 3-D inputs (" + shapeText(shape) + " vs Q " +
                         shapeText(qShapeOf(files)) + ")");
}

// Grouped key/value heads: K or V ([h_kv, n, ·]) may hold fewer heads than Q, h_kv dividing Q's h, and K
// and V hold the same number. `other` is the one of K and V already read (null if none).
void checkKeyValueHeads(const std::string& path, const char* name, const std::vector<std::int64_t>& shape,
                        const InputFiles& files, const Tensor3* other, const char* otherName) {
    if (files.twoDimensional) return;
    const std::int64_t heads = shape[0];
    if (heads <= 0) throw InputError(path + ": empty dimension in shape " + shapeText(shape));
    if (files.q.heads % heads != 0)
        throw InputError(path + ": " + name + " shape " + shapeText(shape) + " has " + std::to_string(heads) +
                         " heads, which do not divide Q's " + std::to_string(files.q.heads) +
                         " (key/value heads must divide the query heads)");
    if (other && other->heads != heads)
        throw InputError(path + ": " + name + " shape " + shapeText(shape) + " has " + std::to_string(heads) + " heads but " +
                         otherName + " has " + std::to_string(other->heads) + " (K and V need the same number of heads)");
}

// With fewer queries, K's or V's rows against the other's, when read.
void checkKeyRows(const std::string& path, const char* name, const std::vector<std::int64_t>& shape,
                  const InputFiles& files, const Tensor3* other, const char* otherName) {
    const std::int64_t rows = shape[files.twoDimensional ? 0 : 1];
    if (other && rows != other->rows)
        throw InputError(path + ": " + name + " shape " + shapeText(shape) + " has n = " + std::to_string(rows) + " but " +
                         otherName + " has " + std::to_string(other->rows) + " (K and V need the same n)");
}

void checkKeys(const InputFiles& files, const std::string& name, const std::vector<std::int64_t>& shape) {
    checkRank(name, shape, files);
    const auto qShape = qShapeOf(files);
    const std::size_t from = files.fewerQueries ? shape.size() - 1 : (files.twoDimensional ? 0 : 1);
    if (!std::equal(shape.begin() + static_cast<std::ptrdiff_t>(from), shape.end(), qShape.begin() + static_cast<std::ptrdiff_t>(from)))
        throw InputError(name + ": K shape " + shapeText(shape) + " does not match Q shape " + shapeText(qShape) +
                         (files.fewerQueries ? " (d must agree)" : " (n and d must agree)"));
    if (files.fewerQueries) checkKeyRows(name, "K", shape, files, files.v.empty() ? nullptr : &files.v, "V");
    checkKeyValueHeads(name, "K", shape, files, files.v.empty() ? nullptr : &files.v, "V");
}

void checkValues(const InputFiles& files, const std::string& name, const std::vector<std::int64_t>& shape) {
    checkRank(name, shape, files);
    const auto qShape = qShapeOf(files);
    const auto rowsAxis = files.twoDimensional ? 0u : 1u;
    if (files.fewerQueries)
        checkKeyRows(name, "V", shape, files, files.hasKeys ? &files.k : nullptr, "K");
    else if (shape[rowsAxis] != qShape[rowsAxis])
        throw InputError(name + ": V shape " + shapeText(shape) + " does not match Q shape " + shapeText(qShape) +
                         " (n must agree)");
    checkKeyValueHeads(name, "V", shape, files, files.hasKeys ? &files.k : nullptr, "K");
}

} // namespace

void readKeys(InputFiles& files, const std::string& kPath) {
    NpyArray k = readNpy(kPath);
    checkKeys(files, kPath, k.shape);
    files.k = toTensor(kPath, std::move(k));
    files.hasKeys = true;
}

void borrowKeys(InputFiles& files, const InputArray& k) {
    checkKeys(files, k.name, k.shape);
    files.k = toTensor(k);
    files.hasKeys = true;
}

InputFiles borrowInputs(const InputArray& q, const InputArray* v, bool fewerQueries) {
    InputFiles files;
    files.fewerQueries = fewerQueries;
    files.twoDimensional = q.shape.size() == 2;
    files.q = toTensor(q);
    if (v) {
        checkValues(files, v->name, v->shape);
        files.v = toTensor(*v);
    }
    return files;
}

InputFiles readInputFiles(const std::string& qPath, const std::string& kPath, const std::string& vPath,
                          bool fewerQueries) {
    InputFiles files;
    files.fewerQueries = fewerQueries;
    NpyArray q = readNpy(qPath);
    files.twoDimensional = q.shape.size() == 2;
    files.q = toTensor(qPath, std::move(q));
    if (!kPath.empty()) readKeys(files, kPath);
    if (!vPath.empty()) {
        NpyArray v = readNpy(vPath);
        checkValues(files, vPath, v.shape);
        files.v = toTensor(vPath, std::move(v));
    }
    return files;
}

} // namespace attnlab
