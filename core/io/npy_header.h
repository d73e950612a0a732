#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab {

// The parsed header of an NPY file. Parsing follows NumPy's own reader (numpy.lib.format): the
// header is a Python dict literal with exactly the keys 'descr', 'fortran_order' and 'shape'
// (a missing or extra key is refused; of duplicate keys the last wins, as in Python); nothing but
// whitespace may follow the closing '}'; 'fortran_order' is True or False; 'shape' is a tuple of
// non-negative integers: (), (3,), (2, 3). The literal syntax accepted is what NumPy writes plus the
// plain Python forms around it (either quote, any whitespace, trailing commas, nested tuples and
// lists as values of keys that are then refused); rarer literal forms (comments, string prefixes,
// implicit concatenation, hex or underscored integers) are refused. See docs/limits.md.
struct NpyHeader {
    int version = 0;
    std::string descr; // only a string descr is accepted; a structured (list) descr is refused
    bool fortranOrder = false;
    std::vector<std::int64_t> shape;
    std::size_t dataOffset = 0; // bytes of magic, version, length and header
};

// NumPy's default limit on the header length (max_header_size); longer headers are refused.
constexpr std::size_t kMaxNpyHeaderBytes = 10000;
// Length of the fixed preamble needed to know the header length: magic, version, 4 length bytes.
constexpr std::size_t kNpyPreambleBytes = 12;

// Total bytes before the data (preamble + header) read from the first bytes of a file; `start` may
// be shorter than kNpyPreambleBytes only for a truncated file. Throws InputError prefixed by `name`.
std::size_t npyHeaderEnd(const std::string& name, std::string_view start);

// Parses everything before the data; `bytes` holds at least npyHeaderEnd(...) bytes.
NpyHeader parseNpyHeader(const std::string& name, std::string_view bytes);

// `text` with control bytes, quotes and non-ASCII bytes escaped as \xNN (for error messages).
std::string printableText(std::string_view text);

} // namespace attnlab
