#include "core/io/npy_io.h"

#include "core/errors.h"
#include "core/io/npy_header.h"
#include "core/jobs/memory_budget.h"

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <limits>
#include <string_view>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>

namespace attnlab {

namespace {

[[noreturn]] void fail(const std::string& path, const std::string& problem) {
    throw InputError(path + ": " + problem);
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

namespace {

// Element count and data bytes the header promises, refused when they overflow.
std::pair<std::size_t, std::size_t> dataSize(const std::string& path, const NpyHeader& header, std::size_t itemSize) {
    std::size_t count = 1;
    for (const auto dim : header.shape) {
        if (dim != 0 && count > std::numeric_limits<std::size_t>::max() / 16 / static_cast<std::size_t>(dim))
            fail(path, "NPY shape is too large");
        count *= static_cast<std::size_t>(dim);
    }
    return {count, count * itemSize};
}

struct ElementType {
    bool isFloat32 = false;
    std::size_t itemSize = 0;
    bool swap = false;
};

// The spellings NumPy reads as float32 or float64: an optional byte order ('<', '>', or '=' and '|' for
// native, as is none) and 'f4' or 'f', 'f8' or 'd'.
ElementType elementType(const std::string& path, const std::string& descr) {
    const bool ordered = !descr.empty() && std::string_view("<>=|").find(descr[0]) != std::string_view::npos;
    const std::string kind = ordered ? descr.substr(1) : descr;
    const bool isFloat32 = kind == "f4" || kind == "f";
    const bool isFloat64 = kind == "f8" || kind == "d";
    if (!isFloat32 && !isFloat64)
        fail(path, "dtype " + printableText(describeDtype(descr).substr(0, 32)) + " is not supported (float32 or float64 only)");
    const bool bigEndian = ordered && descr[0] == '>' ? true : ordered && descr[0] == '<' ? false : std::endian::native == std::endian::big;
    return {isFloat32, isFloat32 ? 4u : 8u, bigEndian != (std::endian::native == std::endian::big)};
}

// The file's size must be exactly header + data: checked before any data is read or allocated.
void checkFileSize(const std::string& path, std::size_t fileBytes, std::size_t dataStart, std::size_t dataBytes) {
    if (fileBytes - dataStart < dataBytes)
        fail(path, "truncated NPY data: expected " + std::to_string(dataBytes) + " bytes, found " +
                       std::to_string(fileBytes - dataStart));
    if (fileBytes - dataStart > dataBytes)
        fail(path, "garbled NPY file: " + std::to_string(fileBytes - dataStart - dataBytes) + " bytes after the data");
}

// A float64 value beyond float32's range is refused as such (it is finite in the file, not an Inf).
NpyArray decode(const std::string& path, const NpyHeader& header, const ElementType& type, std::size_t count, const char* data) {
    NpyArray array;
    array.shape = header.shape;
    array.dtype = header.descr;
    array.values.resize(count);
    const bool fortran = header.fortranOrder && array.shape.size() > 1;
    for (std::size_t e = 0; e < count; ++e) {
        float value = 0;
        if (type.isFloat32) {
            value = loadElement<float>(data + e * 4, type.swap);
        } else {
            const double wide = loadElement<double>(data + e * 8, type.swap);
            value = static_cast<float>(wide);
            if (std::isfinite(wide) && !std::isfinite(value)) {
                char text[32];
                std::snprintf(text, sizeof text, "%.6g", wide);
                fail(path, std::string("the float64 value ") + text + " at flat index " + std::to_string(e) +
                               " overflows float32 (largest 3.40282e+38), which attnlab computes in");
            }
        }
        array.values[fortran ? cIndexOfFortran(e, array.shape) : e] = value;
    }
    return array;
}

class FileReader {
public:
    explicit FileReader(const std::string& path) : m_path(path) {
        // Non-blocking open: a FIFO must be refused below, not waited on.
        m_fd = ::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NONBLOCK);
        if (m_fd < 0) fail(path, std::string("cannot open: ") + std::strerror(errno));
        struct stat info = {};
        if (::fstat(m_fd, &info) != 0) fail(path, std::string("cannot open: ") + std::strerror(errno));
        if (S_ISDIR(info.st_mode)) fail(path, "is a directory, not an NPY file");
        if (!S_ISREG(info.st_mode)) fail(path, "is not a regular file (a device, FIFO or socket); NPY input must be a file");
        m_size = static_cast<std::size_t>(info.st_size);
    }
    ~FileReader() { ::close(m_fd); }
    FileReader(const FileReader&) = delete;
    FileReader& operator=(const FileReader&) = delete;

    std::size_t size() const { return m_size; }
    void read(char* into, std::size_t bytes, std::size_t offset) const {
        while (bytes > 0) {
            const ssize_t got = ::pread(m_fd, into, std::min<std::size_t>(bytes, 1u << 30), static_cast<off_t>(offset));
            if (got < 0 && errno == EINTR) continue;
            if (got < 0) fail(m_path, std::string("read error: ") + std::strerror(errno));
            if (got == 0) fail(m_path, "file shrank while being read");
            into += got;
            offset += static_cast<std::size_t>(got);
            bytes -= static_cast<std::size_t>(got);
        }
    }

private:
    const std::string& m_path;
    int m_fd = -1;
    std::size_t m_size = 0;
};

} // namespace

NpyArray parseNpy(const std::string& name, std::string_view bytes) {
    const NpyHeader header = parseNpyHeader(name, bytes);
    const ElementType type = elementType(name, header.descr);
    const auto [count, dataBytes] = dataSize(name, header, type.itemSize);
    checkFileSize(name, bytes.size(), header.dataOffset, dataBytes);
    return decode(name, header, type, count, bytes.data() + header.dataOffset);
}

namespace {

// What readNpy and inspectNpy know once the header is read and checked against the file's size.
struct CheckedLayout {
    NpyHeader header;
    ElementType type;
    std::size_t count = 0;
    std::size_t dataBytes = 0;
};

CheckedLayout checkedLayout(const std::string& path, const FileReader& file) {
    std::string start(std::min(file.size(), kNpyPreambleBytes), '\0');
    file.read(start.data(), start.size(), 0);
    const std::size_t headerEnd = npyHeaderEnd(path, start);
    if (file.size() < headerEnd) fail(path, "truncated NPY header");
    std::string headerBytes(headerEnd, '\0');
    file.read(headerBytes.data(), headerEnd, 0);
    CheckedLayout layout;
    layout.header = parseNpyHeader(path, headerBytes);
    layout.type = elementType(path, layout.header.descr);
    std::tie(layout.count, layout.dataBytes) = dataSize(path, layout.header, layout.type.itemSize);
    checkFileSize(path, file.size(), headerEnd, layout.dataBytes);
    return layout;
}

} // namespace

NpyHeader inspectNpy(const std::string& path) {
    const FileReader file(path);
    return checkedLayout(path, file).header;
}

NpyArray readNpy(const std::string& path) {
    const FileReader file(path);
    const CheckedLayout layout = checkedLayout(path, file);
    requireMemory(static_cast<double>(layout.dataBytes) + 4.0 * static_cast<double>(layout.count), "reading " + path);
    std::vector<char> data(layout.dataBytes);
    file.read(data.data(), layout.dataBytes, layout.header.dataOffset);
    return decode(path, layout.header, layout.type, layout.count, data.data());
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
    std::string prefix("\x93NUMPY", 6);
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
