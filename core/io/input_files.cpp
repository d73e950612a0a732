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

Tensor3 toTensor(const std::string& path, NpyArray&& array) {
    if (array.shape.size() != 2 && array.shape.size() != 3)
        throw InputError(path + ": expected a 2-D [n, d] or 3-D [h, n, d] array, got shape " + shapeText(array.shape));
    for (const auto dim : array.shape)
        if (dim <= 0) throw InputError(path + ": empty dimension in shape " + shapeText(array.shape));
    for (std::size_t e = 0; e < array.values.size(); ++e)
        if (!std::isfinite(array.values[e]))
            throw InputError(path + ": contains " + (std::isnan(array.values[e]) ? "NaN" : "Inf") + " at flat index " +
                             std::to_string(e));
    const bool threeD = array.shape.size() == 3;
    if (threeD && array.shape[0] > 1 << 20) throw InputError(path + ": too many heads");
    Tensor3 tensor;
    tensor.heads = threeD ? static_cast<int>(array.shape[0]) : 1;
    tensor.rows = array.shape[threeD ? 1 : 0];
    tensor.cols = array.shape[threeD ? 2 : 1];
    tensor.values = std::move(array.values);
    return tensor;
}

std::vector<std::int64_t> qShapeOf(const InputFiles& files) {
    if (files.twoDimensional) return {files.q.rows, files.q.cols};
    return {files.q.heads, files.q.rows, files.q.cols};
}

void checkRank(const std::string& path, const NpyArray& array, const InputFiles& files) {
    if (array.shape.size() != (files.twoDimensional ? 2u : 3u))
        throw InputError(path + ": mixed 2-D and 3-D inputs (" + shapeText(array.shape) + " vs Q " +
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

} // namespace

void readKeys(InputFiles& files, const std::string& kPath) {
    NpyArray k = readNpy(kPath);
    checkRank(kPath, k, files);
    const auto qShape = qShapeOf(files);
    const std::size_t from = files.fewerQueries ? k.shape.size() - 1 : (files.twoDimensional ? 0 : 1);
    if (!std::equal(k.shape.begin() + static_cast<std::ptrdiff_t>(from), k.shape.end(), qShape.begin() + static_cast<std::ptrdiff_t>(from)))
        throw InputError(kPath + ": K shape " + shapeText(k.shape) + " does not match Q shape " + shapeText(qShape) +
                         (files.fewerQueries ? " (d must agree)" : " (n and d must agree)"));
    if (files.fewerQueries) checkKeyRows(kPath, "K", k.shape, files, files.v.empty() ? nullptr : &files.v, "V");
    checkKeyValueHeads(kPath, "K", k.shape, files, files.v.empty() ? nullptr : &files.v, "V");
    files.k = toTensor(kPath, std::move(k));
    files.hasKeys = true;
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
        checkRank(vPath, v, files);
        const auto qShape = qShapeOf(files);
        const auto rowsAxis = files.twoDimensional ? 0u : 1u;
        if (fewerQueries)
            checkKeyRows(vPath, "V", v.shape, files, files.hasKeys ? &files.k : nullptr, "K");
        else if (v.shape[rowsAxis] != qShape[rowsAxis])
            throw InputError(vPath + ": V shape " + shapeText(v.shape) + " does not match Q shape " + shapeText(qShape) +
                             " (n must agree)");
        checkKeyValueHeads(vPath, "V", v.shape, files, files.hasKeys ? &files.k : nullptr, "K");
        files.v = toTensor(vPath, std::move(v));
    }
    return files;
}

} // namespace attnlab
