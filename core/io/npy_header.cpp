#include "core/io/npy_header.h"

#include "core/errors.h"

#include <cctype>
#include <cstdio>
#include <limits>
#include <map>

namespace attnlab {

namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr int kMaxNesting = 32;
constexpr std::size_t kMaxDimensions = 64; // NumPy 2's NPY_MAXDIMS

[[noreturn]] void fail(const std::string& name, const std::string& problem) { throw InputError(name + ": " + problem); }

// A Python literal as far as NPY headers need one.
struct Literal;
using LiteralList = std::vector<Literal>;
struct Literal {
    enum class Kind { String, Integer, Boolean, None, Tuple, List, Dict } kind = Kind::None;
    std::string text;            // String
    std::int64_t integer = 0;    // Integer
    bool tooLarge = false;       // Integer beyond int64
    bool boolean = false;        // Boolean
    LiteralList items;           // Tuple, List; Dict as key, value, key, value...
};

// Recursive-descent parser of the literal subset described in npy_header.h.
class LiteralParser {
public:
    LiteralParser(const std::string& name, std::string_view text) : m_name(name), m_text(text) {}

    Literal document() {
        while (m_at < m_text.size() && (m_text[m_at] == ' ' || m_text[m_at] == '\t')) ++m_at;
        Literal value = parseValue(0);
        skipSpace();
        if (m_at != m_text.size())
            error("unexpected '" + printableText(m_text.substr(m_at, 8)) + "' after the header dict");
        return value;
    }

private:
    [[noreturn]] void error(const std::string& problem) const {
        const std::string where = m_key.empty() ? "" : " in '" + printableText(m_key.substr(0, 32)) + "'";
        fail(m_name, "garbled NPY header" + where + " at byte " + std::to_string(m_at) + ": " + problem);
    }
    void skipSpace() {
        while (m_at < m_text.size() &&
               (m_text[m_at] == ' ' || m_text[m_at] == '\t' || m_text[m_at] == '\n' || m_text[m_at] == '\r' || m_text[m_at] == '\f'))
            ++m_at;
    }
    bool accept(char c) {
        skipSpace();
        if (m_at < m_text.size() && m_text[m_at] == c) {
            ++m_at;
            return true;
        }
        return false;
    }
    void expect(char c, const char* where) {
        if (!accept(c)) error(std::string("expected '") + c + "' " + where);
    }

    Literal parseValue(int depth) {
        if (depth > kMaxNesting) error("nested too deeply");
        skipSpace();
        if (m_at >= m_text.size()) error("unexpected end (unbalanced brackets?)");
        const char c = m_text[m_at];
        if (c == '\'' || c == '"') return parseString();
        if (c == '-' || c == '+' || (c >= '0' && c <= '9')) return parseInteger();
        if (c == '{') return parseDict(depth);
        if (c == '[') return parseSequence(depth, ']', Literal::Kind::List);
        if (c == '(') return parseSequence(depth, ')', Literal::Kind::Tuple);
        return parseName();
    }

    Literal parseString() {
        const char quote = m_text[m_at++];
        Literal value;
        value.kind = Literal::Kind::String;
        while (m_at < m_text.size() && m_text[m_at] != quote) {
            char c = m_text[m_at++];
            if (c == '\n' || c == '\r') error("newline inside a string");
            if (c == '\\') {
                if (m_at >= m_text.size()) break;
                c = m_text[m_at++];
                if (c != '\\' && c != '\'' && c != '"') error("unsupported escape in a string");
            }
            value.text += c;
        }
        if (m_at >= m_text.size()) error("unterminated string");
        ++m_at;
        return value;
    }

    Literal parseInteger() {
        Literal value;
        value.kind = Literal::Kind::Integer;
        const bool negative = m_text[m_at] == '-';
        if (m_text[m_at] == '-' || m_text[m_at] == '+') {
            ++m_at;
            skipSpace();
        }
        const std::size_t start = m_at;
        while (m_at < m_text.size() && m_text[m_at] >= '0' && m_text[m_at] <= '9') {
            const int digit = m_text[m_at] - '0';
            if (value.integer > (std::numeric_limits<std::int64_t>::max() - digit) / 10) value.tooLarge = true;
            else value.integer = value.integer * 10 + digit;
            ++m_at;
        }
        if (m_at == start) error("expected a number");
        if (m_at - start > 1 && m_text[start] == '0') error("integer with a leading zero");
        if (m_at < m_text.size() && (std::isalpha(static_cast<unsigned char>(m_text[m_at])) || m_text[m_at] == '_' || m_text[m_at] == '.'))
            error("unsupported number syntax");
        if (negative) value.integer = -value.integer;
        return value;
    }

    Literal parseName() {
        const std::size_t start = m_at;
        while (m_at < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_at])) || m_text[m_at] == '_')) ++m_at;
        const std::string_view word = m_text.substr(start, m_at - start);
        Literal value;
        if (word == "True" || word == "False") {
            value.kind = Literal::Kind::Boolean;
            value.boolean = word == "True";
        } else if (word == "None") {
            value.kind = Literal::Kind::None;
        } else {
            m_at = start;
            error(word.empty() ? "unexpected '" + printableText(m_text.substr(m_at, 1)) + "'"
                               : "'" + printableText(word.substr(0, 32)) + "' is not a literal");
        }
        return value;
    }

    Literal parseSequence(int depth, char close, Literal::Kind kind) {
        ++m_at;
        Literal value;
        value.kind = kind;
        bool sawComma = false;
        while (!accept(close)) {
            value.items.push_back(parseValue(depth + 1));
            if (accept(',')) {
                sawComma = true;
                continue;
            }
            expect(close, kind == Literal::Kind::Tuple ? "to close a tuple" : "to close a list");
            break;
        }
        // (x) is x itself, not a tuple.
        if (kind == Literal::Kind::Tuple && value.items.size() == 1 && !sawComma) return value.items.front();
        return value;
    }

    Literal parseDict(int depth) {
        ++m_at;
        Literal value;
        value.kind = Literal::Kind::Dict;
        while (!accept('}')) {
            value.items.push_back(parseValue(depth + 1));
            expect(':', "after a dict key");
            if (depth == 0) m_key = value.items.back().text;
            value.items.push_back(parseValue(depth + 1));
            if (depth == 0) m_key.clear();
            if (accept(',')) continue;
            expect('}', "to close the header dict");
            break;
        }
        return value;
    }

    const std::string& m_name;
    std::string_view m_text;
    std::size_t m_at = 0;
    std::string m_key; // the top-level key whose value is being parsed, for messages
};

std::vector<std::int64_t> shapeOf(const std::string& name, const Literal& value) {
    if (value.kind != Literal::Kind::Tuple) fail(name, "garbled NPY header: 'shape' is not a tuple");
    if (value.items.size() > kMaxDimensions) fail(name, "NPY shape has more than 64 dimensions");
    std::vector<std::int64_t> shape;
    for (const auto& item : value.items) {
        if (item.kind != Literal::Kind::Integer) fail(name, "garbled NPY header: 'shape' holds a non-integer");
        if (item.tooLarge || item.integer < 0) fail(name, "NPY shape has a negative or too large dimension");
        shape.push_back(item.integer);
    }
    return shape;
}

} // namespace

std::string printableText(std::string_view text) {
    std::string out;
    for (const char c : text) {
        const auto byte = static_cast<unsigned char>(c);
        if (byte < 0x20 || byte >= 0x7f || c == '\\') {
            char escaped[8];
            std::snprintf(escaped, sizeof escaped, "\\x%02x", byte);
            out += escaped;
        } else {
            out += c;
        }
    }
    return out;
}

std::size_t npyHeaderEnd(const std::string& name, std::string_view start) {
    if (start.size() < 8 || start.compare(0, 6, std::string_view(kMagic, 6)) != 0) fail(name, "not an NPY file (bad magic)");
    const int major = static_cast<unsigned char>(start[6]);
    const int minor = static_cast<unsigned char>(start[7]);
    if (major < 1 || major > 3 || minor != 0)
        fail(name, "unsupported NPY format version " + std::to_string(major) + "." + std::to_string(minor) +
                       " (NumPy reads 1.0, 2.0 and 3.0)");
    const std::size_t lengthBytes = major == 1 ? 2 : 4;
    if (start.size() < 8 + lengthBytes) fail(name, "truncated NPY header");
    std::size_t headerLength = 0;
    for (std::size_t b = 0; b < lengthBytes; ++b)
        headerLength |= static_cast<std::size_t>(static_cast<unsigned char>(start[8 + b])) << (8 * b);
    if (headerLength > kMaxNpyHeaderBytes)
        fail(name, "NPY header of " + std::to_string(headerLength) + " bytes exceeds the limit of " +
                       std::to_string(kMaxNpyHeaderBytes) + " (NumPy's own default)");
    return 8 + lengthBytes + headerLength;
}

NpyHeader parseNpyHeader(const std::string& name, std::string_view bytes) {
    NpyHeader header;
    header.dataOffset = npyHeaderEnd(name, bytes);
    if (bytes.size() < header.dataOffset) fail(name, "truncated NPY header");
    header.version = static_cast<unsigned char>(bytes[6]);
    const std::size_t lengthBytes = header.version == 1 ? 2 : 4;
    const std::string_view text = bytes.substr(8 + lengthBytes, header.dataOffset - 8 - lengthBytes);
    const Literal dict = LiteralParser(name, text).document();
    if (dict.kind != Literal::Kind::Dict) fail(name, "garbled NPY header: not a dict");
    std::map<std::string, const Literal*> fields; // the last of duplicate keys wins, as in Python
    for (std::size_t i = 0; i + 1 < dict.items.size(); i += 2) {
        const Literal& key = dict.items[i];
        if (key.kind != Literal::Kind::String) fail(name, "garbled NPY header: a key is not a string");
        if (key.text != "descr" && key.text != "fortran_order" && key.text != "shape")
            fail(name, "garbled NPY header: unexpected key '" + printableText(key.text.substr(0, 32)) + "'");
        fields[key.text] = &dict.items[i + 1];
    }
    for (const char* key : {"descr", "fortran_order", "shape"})
        if (!fields.count(key)) fail(name, std::string("garbled NPY header: no '") + key + "' field");
    const Literal& descr = *fields["descr"];
    if (descr.kind != Literal::Kind::String) fail(name, "dtype is not supported (a structured dtype; float32 or float64 only)");
    header.descr = descr.text;
    const Literal& order = *fields["fortran_order"];
    if (order.kind != Literal::Kind::Boolean) fail(name, "garbled NPY header: fortran_order is not True or False");
    header.fortranOrder = order.boolean;
    header.shape = shapeOf(name, *fields["shape"]);
    return header;
}

} // namespace attnlab
