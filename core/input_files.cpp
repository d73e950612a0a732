#include "core/input_files.h"

#include "core/errors.h"
#include "core/npy_io.h"

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

} // namespace

void readKeys(InputFiles& files, const std::string& kPath) {
    NpyArray k = readNpy(kPath);
    checkRank(kPath, k, files);
    if (k.shape != qShapeOf(files))
        throw InputError(kPath + ": K shape " + shapeText(k.shape) + " does not match Q shape " + shapeText(qShapeOf(files)));
    files.k = toTensor(kPath, std::move(k));
    files.hasKeys = true;
}

InputFiles readInputFiles(const std::string& qPath, const std::string& kPath, const std::string& vPath) {
    InputFiles files;
    NpyArray q = readNpy(qPath);
    files.twoDimensional = q.shape.size() == 2;
    files.q = toTensor(qPath, std::move(q));
    if (!kPath.empty()) readKeys(files, kPath);
    if (!vPath.empty()) {
        NpyArray v = readNpy(vPath);
        checkRank(vPath, v, files);
        const auto qShape = qShapeOf(files);
        if (!std::equal(v.shape.begin(), v.shape.end() - 1, qShape.begin()))
            throw InputError(vPath + ": V shape " + shapeText(v.shape) + " does not match Q shape " + shapeText(qShape) +
                             " (heads and n must agree)");
        files.v = toTensor(vPath, std::move(v));
    }
    return files;
}

} // namespace attnlab
