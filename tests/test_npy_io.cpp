// core/npy_io against the test's own NPY writer and reader: every header version, element type, byte
// order and memory order docs/command_line.md allows, the bad files it must reject, and the all-or-nothing output.
#include "test_cli_harness.h"

#include "core/errors.h"
#include "core/io/npy_io.h"

namespace attnlab {
namespace {

using clitest::NpyLayout;
using clitest::plainFloats;
namespace fs = std::filesystem;

class NpyTest : public clitest::CliTest {};

std::string layoutName(const NpyLayout& layout) {
    return "v" + std::to_string(layout.version) + (layout.float64 ? " f8" : " f4") + (layout.bigEndian ? " big" : " little") +
           (layout.fortran ? " Fortran" : " C");
}

TEST_F(NpyTest, ReadsEveryVersionTypeByteOrderAndMemoryOrderInCOrder) {
    const std::vector<std::int64_t> shape = {2, 3, 5};
    // Distinct values that float32 holds exactly, so any misplaced element shows.
    std::vector<float> values(clitest::elementCount(shape));
    for (std::size_t e = 0; e < values.size(); ++e) values[e] = static_cast<float>(e) * 0.25f - 3.0f;
    for (const int version : {1, 2, 3})
        for (const bool float64 : {false, true})
            for (const bool bigEndian : {false, true})
                for (const bool fortran : {false, true}) {
                    const NpyLayout layout{version, float64, bigEndian, fortran};
                    writeArray("a.npy", shape, values, layout);
                    const NpyArray array = readNpy(file("a.npy").string());
                    EXPECT_EQ(array.shape, shape) << layoutName(layout);
                    EXPECT_EQ(plainFloats(array.values), values) << layoutName(layout);
                    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(array.values.data()) % 64, 0u) << "rows start cache lines";
                    EXPECT_EQ(array.dtype, std::string(bigEndian ? ">" : "<") + (float64 ? "f8" : "f4")) << layoutName(layout);
                }
}

TEST_F(NpyTest, FortranOrderOfATwoDimensionalArrayIsTransposedStorage) {
    // [[1, 2, 3], [4, 5, 6]] stored column-major is 1 4 2 5 3 6.
    std::string data;
    for (const float value : {1.0f, 4.0f, 2.0f, 5.0f, 3.0f, 6.0f}) data += clitest::elementBytes(value, false);
    clitest::writeNpyRaw(file("f.npy"), clitest::headerDict("<f4", true, {2, 3}), data);
    const NpyArray array = readNpy(file("f.npy").string());
    EXPECT_EQ(plainFloats(array.values), (std::vector<float>{1, 2, 3, 4, 5, 6}));
}

TEST_F(NpyTest, Float64IsRoundedToNearestFloat32) {
    const double value = 0.1; // not a float32: must come back as float(0.1), not truncated
    clitest::writeNpyRaw(file("d.npy"), clitest::headerDict(">f8", false, {1, 1}), clitest::elementBytes(value, true));
    EXPECT_EQ(plainFloats(readNpy(file("d.npy").string()).values), std::vector<float>{0.1f});
}

// The one-line message of the InputError readNpy throws for the file, or "" when it reads.
std::string readError(const fs::path& path) {
    try {
        readNpy(path.string());
    } catch (const InputError& error) {
        return error.what();
    }
    return "";
}

void expectRejected(const fs::path& path, const std::string& problem) {
    const std::string message = readError(path);
    ASSERT_EQ(message.rfind(path.string(), 0), 0u) << "message does not start with the file: " << message;
    EXPECT_NE(message.find(problem, path.string().size()), std::string::npos)
        << "expected '" << problem << "' in: " << message;
    EXPECT_EQ(message.find('\n'), std::string::npos) << message;
}

TEST_F(NpyTest, RejectsOtherElementTypesNamingThem) {
    const std::string fourBytes(4 * 6, '\0');
    clitest::writeNpyRaw(file("i.npy"), clitest::headerDict("<i4", false, {2, 3}), fourBytes);
    expectRejected(file("i.npy"), "<i4");
    clitest::writeNpyRaw(file("h.npy"), clitest::headerDict("<f2", false, {2, 3}), std::string(2 * 6, '\0'));
    expectRejected(file("h.npy"), "float16");
    clitest::writeNpyRaw(file("c.npy"), clitest::headerDict("<c8", false, {2, 3}), std::string(8 * 6, '\0'));
    expectRejected(file("c.npy"), "<c8");
    clitest::writeNpyRaw(file("s.npy"), "{'descr': [('x', '<f4')], 'fortran_order': False, 'shape': (2, 3), }", fourBytes);
    expectRejected(file("s.npy"), "not supported");
}

// NumPy's other spellings of float32 and float64 read as those types; '|' and '=' and none are native order.
TEST_F(NpyTest, ReadsEveryFloatSpellingNumPyReads) {
    const std::vector<float> values = {1.5f, -2.25f, 3.0f, 0.125f, 7.0f, -1.0f};
    std::string floats, doubles;
    for (const float v : values) floats += clitest::elementBytes<float>(v, false), doubles += clitest::elementBytes<double>(v, false);
    for (const char* descr : {"f4", "|f4", "=f4", "<f", "f", "|f"}) {
        clitest::writeNpyRaw(file("a.npy"), clitest::headerDict(descr, false, {2, 3}), floats);
        EXPECT_EQ(plainFloats(readNpy(file("a.npy").string()).values), values) << descr;
    }
    for (const char* descr : {"f8", "|f8", "<d", "d"}) {
        clitest::writeNpyRaw(file("a.npy"), clitest::headerDict(descr, false, {2, 3}), doubles);
        EXPECT_EQ(plainFloats(readNpy(file("a.npy").string()).values), values) << descr;
    }
    for (const char* bad : {"<f16", "ff4", "<>f4", "f4 ", "F4", "<e"}) {
        clitest::writeNpyRaw(file("b.npy"), clitest::headerDict(bad, false, {2, 3}), floats);
        expectRejected(file("b.npy"), "not supported");
    }
}

// Only versions 1.0, 2.0 and 3.0 exist; a float64 beyond float32's range is named as such, not as an Inf.
TEST_F(NpyTest, RefusesMinorVersionsAndFloat64ValuesFloat32CannotHold) {
    const std::string dict = clitest::headerDict("<f4", false, {2, 3});
    for (const int version : {1, 2, 3}) {
        std::string bytes = clitest::npyPrefix(dict, version) + std::string(4 * 6, '\0');
        bytes[7] = static_cast<char>(version == 3 ? 7 : 1);
        clitest::writeBytes(file("minor.npy"), bytes);
        expectRejected(file("minor.npy"), "version " + std::to_string(version) + "." + (version == 3 ? "7" : "1"));
    }
    std::string data;
    for (const double v : {1.0, 2.0, -1e300, 4.0}) data += clitest::elementBytes<double>(v, false);
    clitest::writeNpyRaw(file("wide.npy"), clitest::headerDict("<f8", false, {2, 2}), data);
    expectRejected(file("wide.npy"), "the float64 value -1e+300 at flat index 2 overflows float32");
}

TEST_F(NpyTest, RejectsDamagedFiles) {
    const std::string dict = clitest::headerDict("<f4", false, {2, 3});
    const std::string data(4 * 6, '\0');

    expectRejected(file("missing.npy"), "cannot open");

    std::string bytes = clitest::npyPrefix(dict, 1) + data;
    bytes[5] = 'X';
    clitest::writeBytes(file("magic.npy"), bytes);
    expectRejected(file("magic.npy"), "magic");

    bytes = clitest::npyPrefix(dict, 1) + data;
    bytes[6] = 4;
    clitest::writeBytes(file("version.npy"), bytes);
    expectRejected(file("version.npy"), "version");

    clitest::writeBytes(file("short_header.npy"), clitest::npyPrefix(dict, 1).substr(0, 40));
    expectRejected(file("short_header.npy"), "truncated");

    clitest::writeBytes(file("short_data.npy"), clitest::npyPrefix(dict, 1) + data.substr(0, 10));
    expectRejected(file("short_data.npy"), "truncated");

    clitest::writeNpyRaw(file("no_dict.npy"), "garbage", data);
    expectRejected(file("no_dict.npy"), "garbled");

    clitest::writeNpyRaw(file("bad_shape.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (2, x), }", data);
    expectRejected(file("bad_shape.npy"), "shape");

    clitest::writeNpyRaw(file("spaced_shape.npy"), "{'descr': '<f4', 'fortran_order': False, 'shape': (2 3), }", data);
    expectRejected(file("spaced_shape.npy"), "shape");

    clitest::writeNpyRaw(file("order.npy"), "{'descr': '<f4', 'fortran_order': Maybe, 'shape': (2, 3), }", data);
    expectRejected(file("order.npy"), "fortran_order");

    clitest::writeNpyRaw(file("no_shape.npy"), "{'descr': '<f4', 'fortran_order': False, }", data);
    expectRejected(file("no_shape.npy"), "shape");

    // A header that claims far more data than the file holds, without the reader allocating for it.
    clitest::writeNpyRaw(file("huge.npy"), clitest::headerDict("<f4", false, {1000000000, 1000000000}), data);
    expectRejected(file("huge.npy"), "NPY");

    clitest::writeBytes(file("empty.npy"), "");
    expectRejected(file("empty.npy"), "magic");
}

TEST_F(NpyTest, WrittenFilesAreVersionOneLittleEndianCOrderWithAlignedData) {
    const std::vector<float> values = {1.5f, -2.0f, 3.25f, 0.0f, 7.0f, -1.0f};
    {
        PendingFile out(file("f.npy").string());
        writeNpyFloat32(out, {2, 3}, values.data());
        out.commit();
    }
    const auto floats = clitest::readNpyFile(file("f.npy"));
    EXPECT_EQ(floats.version, 1);
    EXPECT_EQ(floats.descr, "<f4");
    EXPECT_FALSE(floats.fortran);
    EXPECT_EQ(floats.shape, (std::vector<std::int64_t>{2, 3}));
    EXPECT_EQ(floats.dataOffset % 64, 0u);
    EXPECT_EQ(floats.floats(), values);

    const std::vector<std::uint8_t> mask = {1, 0, 0, 1};
    {
        PendingFile out(file("m.npy").string());
        writeNpyUint8(out, {2, 2}, mask.data());
        out.commit();
    }
    const auto bytes = clitest::readNpyFile(file("m.npy"));
    EXPECT_EQ(bytes.descr, "|u1");
    EXPECT_EQ(bytes.shape, (std::vector<std::int64_t>{2, 2}));
    EXPECT_EQ(bytes.dataOffset % 64, 0u);
    EXPECT_EQ(bytes.bytes(), mask);

    // What core writes, core reads back.
    EXPECT_EQ(plainFloats(readNpy(file("f.npy").string()).values), values);
}

TEST_F(NpyTest, OneDimensionalShapeIsWrittenAsATuple) {
    const std::vector<float> values = {1, 2, 3};
    {
        PendingFile out(file("v.npy").string());
        writeNpyFloat32(out, {3}, values.data());
        out.commit();
    }
    const std::string bytes = clitest::readBytes(file("v.npy"));
    EXPECT_NE(bytes.find("'shape': (3,)"), std::string::npos);
    EXPECT_EQ(readNpy(file("v.npy").string()).shape, std::vector<std::int64_t>{3});
}

TEST_F(NpyTest, PendingFileLeavesNothingUnlessCommitted) {
    {
        PendingFile out(file("o.npy").string());
        out.write("partial", 7);
    }
    EXPECT_TRUE(listing().empty());

    clitest::writeBytes(file("o.npy"), "old contents");
    {
        PendingFile out(file("o.npy").string());
        out.write("new", 3);
        EXPECT_EQ(clitest::readBytes(file("o.npy")), "old contents");
    }
    EXPECT_EQ(clitest::readBytes(file("o.npy")), "old contents");
    EXPECT_EQ(listing(), std::set<std::string>{"o.npy"});
    {
        PendingFile out(file("o.npy").string());
        out.write("new", 3);
        out.commit();
    }
    EXPECT_EQ(clitest::readBytes(file("o.npy")), "new");
    EXPECT_EQ(listing(), std::set<std::string>{"o.npy"});
}

TEST_F(NpyTest, PendingFileInAMissingDirectoryIsAnInputError) {
    EXPECT_THROW(PendingFile(file("no/such/dir/o.npy").string()), InputError);
}

} // namespace
} // namespace attnlab
