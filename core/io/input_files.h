#pragma once

#include "core/tensor.h"

#include <optional>
#include <string>

namespace attnlab {

// Q, K, V read from NPY files and checked against each other: all 3-D or all [n, d] (then h = h_kv = 1);
// Q is [h, n, d], K [h_kv, n, d], V [h_kv, n, dv] with grouped key/value heads: h_kv divides h, and K and V
// hold the same number of heads. Every value finite. Throws InputError naming the file.
struct InputFiles {
    Tensor3 q, k, v;
    bool hasKeys = false;        // K was read
    bool twoDimensional = false; // the files were [n, d]: outputs are written 2-D too
    // Q may hold fewer rows than K and V (queries that are not the whole sequence): K's and V's rows are
    // then checked against each other, and the caller checks Q's.
    bool fewerQueries = false;
};

// kPath may be empty (lsh with shared_qk, or read later with readKeys); vPath may be empty (patterns).
InputFiles readInputFiles(const std::string& qPath, const std::string& kPath, const std::string& vPath,
                          bool fewerQueries = false);

// Reads K into `files`, checking it against the Q already read.
void readKeys(InputFiles& files, const std::string& kPath);

} // namespace attnlab
