#pragma once

#include "core/tensor.h"

#include <optional>
#include <string>

namespace attnlab {

// Q, K, V read from NPY files and checked against each other: all [h, n, d] or all [n, d] (then h = 1);
// Q and K share [h, n, d]; V is [h, n, dv]; every value finite. Throws InputError naming the file.
struct InputFiles {
    Tensor3 q, k, v;
    bool hasKeys = false;        // K was read
    bool twoDimensional = false; // the files were [n, d]: outputs are written 2-D too
};

// kPath may be empty (lsh with shared_qk, or read later with readKeys); vPath may be empty (patterns).
InputFiles readInputFiles(const std::string& qPath, const std::string& kPath, const std::string& vPath);

// Reads K into `files`, checking it against the Q already read.
void readKeys(InputFiles& files, const std::string& kPath);

} // namespace attnlab
