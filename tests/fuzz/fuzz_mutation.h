#pragma once

// Seeded mutation of the checked-in fuzz corpus (tests/fuzz/corpus/<kind>): the deterministic fuzz runs
// of the normal suite (tests/test_fuzz_corpus.cpp, tests/gui/test_session_limits.cpp) without clang.
// ATTNLAB_FUZZ_CORPUS is the corpus directory, defined by the test's CMake target.

#include <gtest/gtest.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <random>
#include <string>
#include <vector>

namespace attnlab::fuzz {

namespace fs = std::filesystem;

inline std::vector<std::string> corpus(const std::string& kind) {
    std::vector<fs::path> paths;
    for (const auto& entry : fs::directory_iterator(fs::path(ATTNLAB_FUZZ_CORPUS) / kind)) paths.push_back(entry.path());
    std::sort(paths.begin(), paths.end()); // the run does not depend on directory order
    std::vector<std::string> files;
    for (const auto& path : paths) {
        std::ifstream in(path, std::ios::binary);
        files.emplace_back(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
    }
    return files;
}

// Byte strings that steer mutations into the parsers' interesting corners.
inline const std::vector<std::string> kTokens = {
    "(", ")", "{", "}", "[", "]", ",", ":", "'", "\"", "\n", " ", "\\", "\0", "\x7f", "\x93NUMPY",
    "'descr'", "'shape'", "'fortran_order'", "True", "False", "None", "<f4", ">f8", "<f2", "(0,)", "()",
    "9223372036854775807", "4611686018427387904", "9223372036854775808", "-1", "0", "00", "1e300",
    "--set", "--n", "--causal", "=", "stride=", "window=", "rounds=", "buckets=", "globals=", "random=",
    "|", "&", "!", "band(", "stride(", "global(", "docs(", "random(", "summary(", "segment(", "rows(",
    "\"settings\"", "\"params\"", "\"n\": ", "\"heads\": ", "4294967297", "256.7", "\"source\": \"npy\"",
    "\"compare\": [\"full\", \"lsh\"]", "\\u0000", "\\ud800", "raster", "morton", "tiles:", "neighborhood(",
    "window(", "shifted_window(", "tile_neighborhood(", "same_row", "same_frame", "\xef\xbc\x88", "\xc3\xa4"};

inline std::string mutate(std::string bytes, std::mt19937_64& random) {
    auto below = [&random](std::size_t n) { return n == 0 ? std::size_t{0} : static_cast<std::size_t>(random() % n); };
    const int edits = 1 + static_cast<int>(random() % 4);
    for (int e = 0; e < edits; ++e) {
        const std::size_t at = below(bytes.size() + 1);
        switch (random() % 6) {
        case 0: // bit flip
            if (!bytes.empty()) bytes[below(bytes.size())] ^= static_cast<char>(1u << (random() % 8));
            break;
        case 1: // truncation
            bytes.resize(at);
            break;
        case 2: // random bytes inserted
            for (std::size_t k = 1 + below(8); k > 0; --k) bytes.insert(bytes.begin() + static_cast<std::ptrdiff_t>(at), static_cast<char>(random()));
            break;
        case 3: // a token inserted
            bytes.insert(at, kTokens[below(kTokens.size())]);
            break;
        case 4: // a range deleted
            bytes.erase(at, below(16));
            break;
        default: // a token overwriting bytes
            bytes.replace(at, below(8), kTokens[below(kTokens.size())]);
            break;
        }
    }
    return bytes;
}

inline void runMutations(const std::string& kind, void (*entry)(const std::uint8_t*, std::size_t), int mutations, std::uint64_t seed) {
    const auto seeds = corpus(kind);
    ASSERT_FALSE(seeds.empty()) << kind;
    std::mt19937_64 random(seed);
    for (const auto& bytes : seeds) entry(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size());
    for (int m = 0; m < mutations; ++m) {
        const std::string input = mutate(seeds[static_cast<std::size_t>(m) % seeds.size()], random);
        entry(reinterpret_cast<const std::uint8_t*>(input.data()), input.size());
    }
}

} // namespace attnlab::fuzz
