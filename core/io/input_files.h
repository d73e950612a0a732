#pragma once

#include "core/tensor.h"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

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

// An input held in memory by the caller: C-order float32 values of `shape`, named `name` in messages.
struct InputArray {
    std::string name;
    std::vector<std::int64_t> shape;
    const float* values = nullptr;
};

// The same checks and the same InputFiles as readInputFiles and readKeys, over arrays in memory: the
// tensors are borrowed views of the arrays (Tensor3::borrow), read in place, never copied.
InputFiles borrowInputs(const InputArray& q, const InputArray* v, bool fewerQueries = false);
void borrowKeys(InputFiles& files, const InputArray& k);

} // namespace attnlab
