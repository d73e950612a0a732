#pragma once

// Drives the built `attnlab` executable the way a user does: a fresh working directory per test, NPY
// files written and read by code of its own (nothing shared with core/npy_io, so a bug there cannot
// hide), the process runner, and `--json` output parsed with nlohmann-json.

#include "core/tensor.h"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <bit>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <regex>
#include <set>
#include <stdexcept>
#include <string>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

namespace attnlab::clitest {

namespace fs = std::filesystem;

// ---------------------------------------------------------------------------------------------------
// NPY files

// How a test file stores its array: format version, element type, byte order and memory order.
struct NpyLayout {
    int version = 1;        // 1, 2 or 3
    bool float64 = false;   // '<f8' instead of '<f4'
    bool bigEndian = false; // '>' descr and byte-swapped elements
    bool fortran = false;   // column-major (first index fastest)
};

inline std::string shapeTuple(const std::vector<std::int64_t>& shape) {
    std::string text = "(";
    for (std::size_t a = 0; a < shape.size(); ++a) text += (a ? ", " : "") + std::to_string(shape[a]);
    return text + (shape.size() == 1 ? ",)" : ")");
}

inline std::string headerDict(const std::string& descr, bool fortran, const std::vector<std::int64_t>& shape) {
    return "{'descr': '" + descr + "', 'fortran_order': " + (fortran ? "True" : "False") +
           ", 'shape': " + shapeTuple(shape) + ", }";
}

// Magic, version, header length (2 bytes for v1, 4 for v2/v3, little-endian) and the header padded
// with spaces and a final '\n' so that the data starts at a multiple of 64.
inline std::string npyPrefix(const std::string& dict, int version) {
    const std::size_t lengthBytes = version == 1 ? 2 : 4;
    std::string header = dict;
    const std::size_t unpadded = 6 + 2 + lengthBytes + header.size() + 1;
    header.append((64 - unpadded % 64) % 64, ' ');
    header += '\n';
    std::string prefix = "\x93NUMPY";
    prefix += static_cast<char>(version);
    prefix += '\0';
    for (std::size_t b = 0; b < lengthBytes; ++b) prefix += static_cast<char>((header.size() >> (8 * b)) & 0xFF);
    return prefix + header;
}

inline void writeBytes(const fs::path& path, const std::string& bytes) {
    std::ofstream out(path, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (!out) throw std::runtime_error("cannot write " + path.string());
}

inline std::string readBytes(const fs::path& path) {
    std::ifstream in(path, std::ios::binary);
    if (!in) throw std::runtime_error("cannot read " + path.string());
    return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

// A header `dict` and raw data bytes, as given: for crafting bad files.
inline void writeNpyRaw(const fs::path& path, const std::string& dict, const std::string& data, int version = 1) {
    writeBytes(path, npyPrefix(dict, version) + data);
}

template <typename T>
std::string elementBytes(T value, bool bigEndian) {
    char bytes[sizeof(T)];
    std::memcpy(bytes, &value, sizeof(T));
    if (bigEndian != (std::endian::native == std::endian::big)) std::reverse(bytes, bytes + sizeof(T));
    return std::string(bytes, sizeof(T));
}

// Position in C (row-major) order of the element stored at `stored` in Fortran order.
inline std::size_t cOrderIndex(std::size_t stored, const std::vector<std::int64_t>& shape) {
    std::vector<std::size_t> coords(shape.size());
    for (std::size_t a = 0; a < shape.size(); ++a) {
        coords[a] = stored % static_cast<std::size_t>(shape[a]);
        stored /= static_cast<std::size_t>(shape[a]);
    }
    std::size_t index = 0;
    for (std::size_t a = 0; a < shape.size(); ++a) index = index * static_cast<std::size_t>(shape[a]) + coords[a];
    return index;
}

// `values` in C order, written with the given layout.
inline void writeNpy(const fs::path& path, const std::vector<std::int64_t>& shape, const std::vector<float>& values,
                     const NpyLayout& layout = {}) {
    const std::string descr = std::string(layout.bigEndian ? ">" : "<") + (layout.float64 ? "f8" : "f4");
    std::string data;
    for (std::size_t e = 0; e < values.size(); ++e) {
        const float value = values[layout.fortran ? cOrderIndex(e, shape) : e];
        data += layout.float64 ? elementBytes<double>(value, layout.bigEndian) : elementBytes<float>(value, layout.bigEndian);
    }
    writeNpyRaw(path, headerDict(descr, layout.fortran, shape), data, layout.version);
}

// An NPY file as written by attnlab, parsed by the test's own reader.
struct NpyFile {
    int version = 0;
    std::string descr;
    bool fortran = false;
    std::vector<std::int64_t> shape;
    std::string data;
    std::size_t dataOffset = 0;

    std::size_t count() const {
        std::size_t total = 1;
        for (const auto dim : shape) total *= static_cast<std::size_t>(dim);
        return total;
    }
    std::vector<float> floats() const { // '<f4' only
        std::vector<float> values(data.size() / 4);
        std::memcpy(values.data(), data.data(), values.size() * 4);
        return values;
    }
    std::vector<std::uint8_t> bytes() const { return {data.begin(), data.end()}; }
};

inline NpyFile readNpyFile(const fs::path& path) {
    const std::string bytes = readBytes(path);
    if (bytes.size() < 10 || bytes.compare(0, 6, "\x93NUMPY") != 0) throw std::runtime_error(path.string() + ": no NPY magic");
    NpyFile file;
    file.version = static_cast<unsigned char>(bytes[6]);
    const std::size_t lengthBytes = file.version == 1 ? 2 : 4;
    std::size_t headerLength = 0;
    for (std::size_t b = 0; b < lengthBytes; ++b)
        headerLength |= static_cast<std::size_t>(static_cast<unsigned char>(bytes[8 + b])) << (8 * b);
    file.dataOffset = 8 + lengthBytes + headerLength;
    const std::string header = bytes.substr(8 + lengthBytes, headerLength);
    std::smatch match;
    if (std::regex_search(header, match, std::regex(R"('descr':\s*'([^']*)')"))) file.descr = match[1];
    if (std::regex_search(header, match, std::regex(R"('fortran_order':\s*(True|False))"))) file.fortran = match[1] == "True";
    if (!std::regex_search(header, match, std::regex(R"('shape':\s*\(([^)]*)\))")))
        throw std::runtime_error(path.string() + ": no shape in header '" + header + "'");
    const std::string dims = match[1];
    const std::regex digits(R"(\d+)");
    for (std::sregex_iterator it(dims.begin(), dims.end(), digits), end; it != end; ++it)
        file.shape.push_back(std::stoll(it->str()));
    file.data = bytes.substr(file.dataOffset);
    return file;
}

// ---------------------------------------------------------------------------------------------------
// Test data

// N(0, scale²) values from a fixed seed, rounded to float32.
// An in-process result's values in the type the files are read into, for EXPECT_EQ.
inline std::vector<float> plainFloats(const attnlab::FloatStorage& values) { return {values.begin(), values.end()}; }

inline std::vector<float> gaussianValues(std::size_t count, std::uint64_t seed, double scale = 1.0) {
    std::mt19937_64 engine(seed);
    std::normal_distribution<double> normal(0.0, scale);
    std::vector<float> values(count);
    for (auto& value : values) value = static_cast<float>(normal(engine));
    return values;
}

inline std::size_t elementCount(const std::vector<std::int64_t>& shape) {
    std::size_t total = 1;
    for (const auto dim : shape) total *= static_cast<std::size_t>(dim);
    return total;
}

// ---------------------------------------------------------------------------------------------------
// Running the executable

struct Outcome {
    bool exited = false; // false: ended by a signal (a crash)
    int exitCode = -1;
    int signal = 0;
    std::string out;
    std::string err;
    std::size_t errLines() const { return static_cast<std::size_t>(std::count(err.begin(), err.end(), '\n')); }
};

// Runs `attnlab args...` with `workDir` as its working directory; stdout and stderr go to files in
// `captureDir` (never in workDir, which the tests list). With `maxFileBytes`, every file the command
// writes is limited to that size as by a shell's `ulimit -f`: SIGXFSZ at its default action, which ends
// the process unless the program ignores it itself. With `stdoutTo`, stdout goes there instead (e.g.
// /dev/full), and `out` is empty.
inline Outcome runAttnlab(const std::vector<std::string>& args, const fs::path& workDir, const fs::path& captureDir,
                          std::optional<rlim_t> maxFileBytes = std::nullopt, const std::string& stdoutTo = {}) {
    const std::string capturedOut = (captureDir / "stdout").string(), errPath = (captureDir / "stderr").string();
    const std::string outPath = stdoutTo.empty() ? capturedOut : stdoutTo;
    const std::string workPath = workDir.string();
    std::vector<std::string> storage = {ATTNLAB_EXECUTABLE};
    storage.insert(storage.end(), args.begin(), args.end());
    std::vector<char*> argv;
    for (auto& arg : storage) argv.push_back(arg.data());
    argv.push_back(nullptr);

    const pid_t child = ::fork();
    if (child < 0) throw std::runtime_error(std::string("fork failed: ") + std::strerror(errno));
    if (child == 0) { // only async-signal-safe calls until exec
        const int outFd = ::open(outPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int errFd = ::open(errPath.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
        const int nullFd = ::open("/dev/null", O_RDONLY);
        if (outFd < 0 || errFd < 0 || nullFd < 0 || ::chdir(workPath.c_str()) != 0) ::_exit(126);
        ::dup2(nullFd, 0);
        ::dup2(outFd, 1);
        ::dup2(errFd, 2);
        if (maxFileBytes) {
            ::signal(SIGXFSZ, SIG_DFL);
            const struct rlimit limit = {*maxFileBytes, *maxFileBytes};
            if (::setrlimit(RLIMIT_FSIZE, &limit) != 0) ::_exit(125);
        }
        ::execv(argv[0], argv.data());
        ::_exit(127);
    }
    int status = 0;
    while (::waitpid(child, &status, 0) < 0)
        if (errno != EINTR) throw std::runtime_error(std::string("waitpid failed: ") + std::strerror(errno));
    Outcome outcome;
    outcome.exited = WIFEXITED(status);
    outcome.exitCode = outcome.exited ? WEXITSTATUS(status) : -1;
    outcome.signal = WIFSIGNALED(status) ? WTERMSIG(status) : 0;
    outcome.out = stdoutTo.empty() ? readBytes(outPath) : std::string();
    outcome.err = readBytes(errPath);
    return outcome;
}

inline std::string describe(const std::vector<std::string>& args) {
    std::string text = "attnlab";
    for (const auto& arg : args) text += " " + arg;
    return text;
}

// A fresh directory per test: work/ is the command's working directory, capture/ holds its stdout
// and stderr. Removed with everything in it when the test ends.
class CliTest : public ::testing::Test {
protected:
    void SetUp() override {
        std::string pattern = (fs::temp_directory_path() / "attnlab-cli-XXXXXX").string();
        if (!::mkdtemp(pattern.data())) throw std::runtime_error("mkdtemp failed");
        m_root = pattern;
        fs::create_directory(m_root / "work");
        fs::create_directory(m_root / "capture");
    }
    void TearDown() override {
        std::error_code ignored;
        fs::remove_all(m_root, ignored);
    }

    fs::path work() const { return m_root / "work"; }
    fs::path file(const std::string& name) const { return work() / name; }
    Outcome run(const std::vector<std::string>& args) const { return runAttnlab(args, work(), m_root / "capture"); }

    // Runs a command that must succeed, with nothing on stderr.
    Outcome succeed(const std::vector<std::string>& args) const {
        const Outcome outcome = run(args);
        EXPECT_TRUE(outcome.exited) << describe(args) << " ended by signal " << outcome.signal;
        EXPECT_EQ(outcome.exitCode, 0) << describe(args) << "\n" << outcome.err;
        EXPECT_EQ(outcome.err, "") << describe(args);
        return outcome;
    }

    std::set<std::string> listing() const {
        std::set<std::string> names;
        for (const auto& entry : fs::directory_iterator(work())) names.insert(entry.path().filename().string());
        return names;
    }

    void writeArray(const std::string& name, const std::vector<std::int64_t>& shape, const std::vector<float>& values,
                    const NpyLayout& layout = {}) const {
        writeNpy(file(name), shape, values, layout);
    }

private:
    fs::path m_root;
};

// ---------------------------------------------------------------------------------------------------
// JSON

// `--json` output parsed by nlohmann-json (a library independent of the writer in core/io/json_writer.h).
inline nlohmann::json parseJson(const std::string& text) { return nlohmann::json::parse(text); }

// One entry of `attnlab variants --json`: the id and the flags the command line accepts for it.
struct CliVariant {
    std::string id;
    bool causal = false;
    bool bidirectional = false;
    bool dataDependentPattern = false;
};

// `attnlab variants --json`, run once per test program. The tests that sweep "every id" take their ids
// from here, never from a list of their own.
inline const std::vector<CliVariant>& cliVariants() {
    static const std::vector<CliVariant> variants = [] {
        std::string root = (fs::temp_directory_path() / "attnlab-variants-XXXXXX").string();
        if (!::mkdtemp(root.data())) throw std::runtime_error("mkdtemp failed");
        const Outcome outcome = runAttnlab({"variants", "--json"}, root, root);
        std::error_code ignored;
        fs::remove_all(root, ignored);
        if (!outcome.exited || outcome.exitCode != 0) throw std::runtime_error("attnlab variants --json failed: " + outcome.err);
        const nlohmann::json listing = parseJson(outcome.out);
        std::vector<CliVariant> list;
        for (const auto& entry : listing.at("variants"))
            list.push_back({entry.at("id").get<std::string>(), entry.at("causal").get<bool>(),
                            entry.at("bidirectional").get<bool>(), entry.at("data_dependent_pattern").get<bool>()});
        return list;
    }();
    return variants;
}

inline const CliVariant& cliVariant(const std::string& id) {
    for (const auto& variant : cliVariants())
        if (variant.id == id) return variant;
    throw std::runtime_error("no variant '" + id + "' in attnlab variants --json");
}

inline std::vector<std::string> cliVariantIds(bool causalOnlyWhereSupported = false) {
    std::vector<std::string> ids;
    for (const auto& variant : cliVariants())
        if (!causalOnlyWhereSupported || variant.causal) ids.push_back(variant.id);
    return ids;
}

} // namespace attnlab::clitest
