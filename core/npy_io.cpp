#include "core/npy_io.h"

#include "core/errors.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cstring>
#include <fcntl.h>
#include <fstream>
#include <limits>
#include <random>
#include <sys/stat.h>
#include <unistd.h>

namespace attnlab {

namespace {

constexpr char kMagic[] = "\x93NUMPY";

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
    throw InputError(path + ": " + problem);
}

std::string readFile(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) fail(path, std::string("cannot open: ") + std::strerror(errno));
    std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (in.bad()) fail(path, "read error");
    return bytes;
}

// Value text of 'key' in the header dict, up to the next top-level ',' or '}'.
std::string headerField(const std::string& path, const std::string& header, const std::string& key) {
    std::size_t at = header.find("'" + key + "'");
    if (at == std::string::npos) at = header.find("\"" + key + "\"");
    if (at == std::string::npos) fail(path, "garbled NPY header: no '" + key + "' field");
    at = header.find(':', at);
    if (at == std::string::npos) fail(path, "garbled NPY header near '" + key + "'");
    ++at;
    while (at < header.size() && header[at] == ' ') ++at;
    std::size_t end = at;
    int depth = 0;
    while (end < header.size()) {
        const char c = header[end];
        if (c == '(' || c == '[') ++depth;
        if (c == ')' || c == ']') --depth;
        if (depth == 0 && (c == ',' || c == '}')) break;
        ++end;
    }
    if (end >= header.size()) fail(path, "garbled NPY header near '" + key + "'");
    std::string value = header.substr(at, end - at);
    while (!value.empty() && value.back() == ' ') value.pop_back();
    return value;
}

std::vector<std::int64_t> parseShape(const std::string& path, const std::string& text) {
    if (text.size() < 2 || text.front() != '(' || text.back() != ')') fail(path, "garbled NPY shape '" + text + "'");
    std::vector<std::int64_t> shape;
    std::string item;
    for (std::size_t p = 1; p < text.size(); ++p) {
        const char c = text[p];
        if (c == ',' || c == ')') {
            const auto first = item.find_first_not_of(' '), last = item.find_last_not_of(' ');
            item = first == std::string::npos ? "" : item.substr(first, last - first + 1);
            if (!item.empty()) {
                if (!std::all_of(item.begin(), item.end(), [](char x) { return x >= '0' && x <= '9'; }) || item.size() > 15)
                    fail(path, "garbled NPY shape '" + text + "'");
                shape.push_back(std::stoll(item));
            }
            item.clear();
        } else {
            item += c;
        }
    }
    return shape;
}

std::string describeDtype(const std::string& descr) {
    if (descr.size() >= 2 && descr.substr(descr.size() - 2) == "f2") return "float16";
    return descr;
}

template <typename Stored>
Stored loadElement(const char* bytes, bool swap) {
    Stored value;
    if (!swap) {
        std::memcpy(&value, bytes, sizeof(Stored));
        return value;
    }
    char reversed[sizeof(Stored)];
    std::reverse_copy(bytes, bytes + sizeof(Stored), reversed);
    std::memcpy(&value, reversed, sizeof(Stored));
    return value;
}

// Index into C order of the element stored at position `storedIndex` in Fortran order.
std::size_t cIndexOfFortran(std::size_t storedIndex, const std::vector<std::int64_t>& shape) {
    std::size_t cIndex = 0, stride = 1;
    std::vector<std::size_t> coords(shape.size());
    for (std::size_t a = 0; a < shape.size(); ++a) {
        coords[a] = storedIndex % static_cast<std::size_t>(shape[a]);
        storedIndex /= static_cast<std::size_t>(shape[a]);
    }
    for (std::size_t a = shape.size(); a-- > 0;) {
        cIndex += coords[a] * stride;
        stride *= static_cast<std::size_t>(shape[a]);
    }
    return cIndex;
}

} // namespace

NpyArray readNpy(const std::string& path) {
    const std::string bytes = readFile(path);
    if (bytes.size() < 10 || bytes.compare(0, 6, kMagic, 6) != 0) fail(path, "not an NPY file (bad magic)");
    const int major = static_cast<unsigned char>(bytes[6]);
    if (major < 1 || major > 3) fail(path, "unsupported NPY format version " + std::to_string(major));
    const std::size_t lengthBytes = major == 1 ? 2 : 4;
    if (bytes.size() < 8 + lengthBytes) fail(path, "truncated NPY header");
    std::size_t headerLength = 0;
    for (std::size_t b = 0; b < lengthBytes; ++b)
        headerLength |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + b])) << (8 * b);
    const std::size_t dataStart = 8 + lengthBytes + headerLength;
    if (bytes.size() < dataStart) fail(path, "truncated NPY header");
    const std::string header = bytes.substr(8 + lengthBytes, headerLength);
    if (header.find('{') == std::string::npos) fail(path, "garbled NPY header");

    NpyArray array;
    std::string descr = headerField(path, header, "descr");
    if (descr.size() < 3 || (descr.front() != '\'' && descr.front() != '"'))
        fail(path, "dtype " + descr + " is not supported (float32 or float64 only)");
    descr = descr.substr(1, descr.size() - 2);
    array.dtype = descr;
    const std::string order = headerField(path, header, "fortran_order");
    if (order != "True" && order != "False") fail(path, "garbled NPY header: fortran_order is '" + order + "'");
    array.shape = parseShape(path, headerField(path, header, "shape"));

    const bool isFloat32 = descr == "<f4" || descr == ">f4" || descr == "=f4";
    const bool isFloat64 = descr == "<f8" || descr == ">f8" || descr == "=f8";
    if (!isFloat32 && !isFloat64)
        fail(path, "dtype " + describeDtype(descr) + " is not supported (float32 or float64 only)");
    const std::size_t itemSize = isFloat32 ? 4 : 8;
    const bool swap = (descr[0] == '>') != (std::endian::native == std::endian::big);

    std::size_t count = 1;
    for (const auto dim : array.shape) {
        if (dim != 0 && count > std::numeric_limits<std::size_t>::max() / 16 / static_cast<std::size_t>(dim))
            fail(path, "NPY shape is too large");
        count *= static_cast<std::size_t>(dim);
    }
    const std::size_t dataBytes = count * itemSize;
    if (bytes.size() < dataStart + dataBytes)
        fail(path, "truncated NPY data: expected " + std::to_string(dataBytes) + " bytes, found " +
                       std::to_string(bytes.size() - dataStart));
    if (bytes.size() > dataStart + dataBytes)
        fail(path, "garbled NPY file: " + std::to_string(bytes.size() - dataStart - dataBytes) +
                       " bytes after the data");

    array.values.resize(count);
    const bool fortran = order == "True" && array.shape.size() > 1;
    const char* data = bytes.data() + dataStart;
    for (std::size_t e = 0; e < count; ++e) {
        const float value = isFloat32 ? loadElement<float>(data + e * 4, swap)
                                      : static_cast<float>(loadElement<double>(data + e * 8, swap));
        array.values[fortran ? cIndexOfFortran(e, array.shape) : e] = value;
    }
    return array;
}

PendingFile::PendingFile(std::string destination) : m_destination(std::move(destination)) {
    std::random_device entropy;
    m_temporary = m_destination + ".partial-" + std::to_string(entropy() % 1000000000u);
    m_fd = ::open(m_temporary.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
    if (m_fd < 0) throw InputError(m_destination + ": cannot create: " + std::strerror(errno));
}

PendingFile::~PendingFile() {
    if (m_fd >= 0) ::close(m_fd);
    if (!m_committed) ::unlink(m_temporary.c_str());
}

void PendingFile::write(const void* data, std::size_t bytes) {
    const char* cursor = static_cast<const char*>(data);
    while (bytes > 0) {
        const ssize_t written = ::write(m_fd, cursor, std::min<std::size_t>(bytes, 1u << 30));
        if (written < 0) {
            if (errno == EINTR) continue;
            throw InputError(m_destination + ": write failed: " + std::strerror(errno));
        }
        cursor += written;
        bytes -= static_cast<std::size_t>(written);
    }
}

void PendingFile::commit() {
    if (::fsync(m_fd) != 0 || ::close(m_fd) != 0) {
        m_fd = -1;
        throw InputError(m_destination + ": write failed: " + std::strerror(errno));
    }
    m_fd = -1;
    if (::rename(m_temporary.c_str(), m_destination.c_str()) != 0)
        throw InputError(m_destination + ": cannot rename into place: " + std::strerror(errno));
    m_committed = true;
}

namespace {

void writeHeader(PendingFile& file, const std::string& descr, const std::vector<std::int64_t>& shape) {
    std::string dims;
    // Python tuple syntax: "(3,)" for one dimension, "(2, 3)" for more.
    for (std::size_t a = 0; a < shape.size(); ++a) dims += (a ? ", " : "") + std::to_string(shape[a]);
    if (shape.size() == 1) dims += ',';
    std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': (" + dims + "), }";
    const std::size_t unpadded = 10 + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    std::string prefix(kMagic, 6);
    prefix += '\x01';
    prefix += '\x00';
    prefix += static_cast<char>(header.size() & 0xFF);
    prefix += static_cast<char>((header.size() >> 8) & 0xFF);
    file.write(prefix.data(), prefix.size());
    file.write(header.data(), header.size());
}

std::size_t elementCount(const std::vector<std::int64_t>& shape) {
    std::size_t count = 1;
    for (const auto dim : shape) count *= static_cast<std::size_t>(dim);
    return count;
}

} // namespace

void writeNpyFloat32(PendingFile& file, const std::vector<std::int64_t>& shape, const float* values) {
    static_assert(std::endian::native == std::endian::little, "NPY writer assumes a little-endian host");
    writeHeader(file, "<f4", shape);
    file.write(values, elementCount(shape) * sizeof(float));
}

void writeNpyUint8(PendingFile& file, const std::vector<std::int64_t>& shape, const std::uint8_t* values) {
    writeHeader(file, "|u1", shape);
    file.write(values, elementCount(shape));
}

} // namespace attnlab
