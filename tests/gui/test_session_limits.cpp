// Session files that could cost unbounded time or memory or be read wrongly: a file over the size limit
// (a 50 MB variant name, 2 million parameter keys) refused before it is parsed, integers that do not fit
// (refused instead of wrapped, reported as written), texts and key counts over their limits, and NPY input
// files that are missing, a directory, a device or not NPY at all, refused when the session is opened;
// and a deterministic mutation run of the session loader.
#include "views/shell/session_file.h"

#include "core/errors.h"
#include "fuzz/fuzz_mutation.h"
#include "fuzz/fuzz_session_entry.h"

#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QJsonDocument>
#include <QTemporaryDir>

#include <fcntl.h>
#include <string>
#include <sys/stat.h>
#include <tuple>
#include <unistd.h>
#include <vector>

namespace attnlab {
namespace {

class SessionLimitsTest : public ::testing::Test {
protected:
    void SetUp() override { ASSERT_TRUE(m_dir.isValid()); }

    QString path(const QString& name) const { return m_dir.filePath(name); }

    QString write(const QString& name, const QByteArray& bytes) const {
        QFile file(path(name));
        EXPECT_TRUE(file.open(QIODevice::WriteOnly));
        EXPECT_EQ(file.write(bytes), bytes.size());
        return file.fileName();
    }

    static QByteArray session(const QByteArray& settings) {
        return R"({"format": "attnlab-session", "version": 1, "settings": )" + settings + "}";
    }

    // The message of loadSession(file): fails the test when the file is accepted.
    static std::string refusal(const QString& file) {
        try {
            loadSession(file);
        } catch (const InputError& error) {
            const std::string message = error.what();
            EXPECT_EQ(message.find('\n'), std::string::npos) << message;
            return message;
        }
        ADD_FAILURE() << "accepted " << file.toStdString();
        return {};
    }

    // A valid float32 NPY file of shape (rows, cols), zeros.
    QString npy(const QString& name, int rows, int cols) const {
        QByteArray header = QStringLiteral("{'descr': '<f4', 'fortran_order': False, 'shape': (%1, %2), }")
                                .arg(rows).arg(cols).toLatin1();
        while ((10 + header.size() + 1) % 64 != 0) header += ' ';
        header += '\n';
        QByteArray bytes("\x93NUMPY\x01\x00", 8);
        bytes += static_cast<char>(header.size() & 0xff);
        bytes += static_cast<char>(header.size() >> 8);
        bytes += header;
        bytes += QByteArray(4 * rows * cols, '\0');
        return write(name, bytes);
    }

private:
    QTemporaryDir m_dir;
};

TEST_F(SessionLimitsTest, IntegersThatDoNotFitAreRefusedNotWrapped) {
    const std::string heads = refusal(write(QStringLiteral("heads.json"), session(R"({"heads": 4294967297})")));
    EXPECT_NE(heads.find("'heads' = 4294967297 is out of range [1, 256]"), std::string::npos) << heads;
    const std::string huge = refusal(write(QStringLiteral("huge.json"), session(R"({"n": 1e300})")));
    EXPECT_NE(huge.find("'n' = 1e+300 is out of range [1, 65536]"), std::string::npos) << huge;
    const std::string fraction = refusal(write(QStringLiteral("fraction.json"), session(R"({"n": 256.7})")));
    EXPECT_NE(fraction.find("'n' = 256.7 is not a whole number"), std::string::npos) << fraction;
    const std::string negative = refusal(write(QStringLiteral("negative.json"), session(R"({"layers": -9007199254740993})")));
    EXPECT_NE(negative.find("'layers' = -9007199254740992 is out of range [1, 64]"), std::string::npos) << negative;
    // A whole number written as a double is still that number.
    EXPECT_EQ(loadSession(write(QStringLiteral("whole.json"), session(R"({"n": 512.0, "heads": 3e0})"))).settings.n, 512);
}

TEST_F(SessionLimitsTest, FilesOverTheSizeLimitAreRefusedBeforeParsing) {
    const QByteArray name(50 * 1000 * 1000, 'x');
    const std::string longName = refusal(write(QStringLiteral("name.json"), session(R"({"variant": ")" + name + R"("})")));
    EXPECT_NE(longName.find("over the " + std::to_string(kMaxSessionBytes) + "-byte limit"), std::string::npos)
        << longName.substr(0, 200);
    EXPECT_LT(longName.size(), 400u) << "the message quotes the file's content";

    QByteArray keys = "{";
    for (int k = 0; k < 2000000; ++k) keys += "\"k" + QByteArray::number(k) + "\": \"1\", ";
    keys += "\"last\": \"1\"}";
    const std::string manyKeys = refusal(write(QStringLiteral("keys.json"), session(R"({"params": )" + keys + "}")));
    EXPECT_NE(manyKeys.find("-byte limit"), std::string::npos) << manyKeys.substr(0, 200);
}

TEST_F(SessionLimitsTest, TextsAndKeyCountsHaveLimitsWithinTheFile) {
    QByteArray keys = "{";
    for (int k = 0; k <= kMaxSessionParams; ++k) keys += (k ? ", " : "") + ("\"k" + QByteArray::number(k) + "\": \"1\"");
    keys += "}";
    const std::string manyKeys = refusal(write(QStringLiteral("keys.json"), session(R"({"params": )" + keys + "}")));
    EXPECT_NE(manyKeys.find("'params' has 257 entries, more than the 256"), std::string::npos) << manyKeys;
    // The same limits hold for settings that do not come from a file (the last state kept by QSettings).
    const QJsonObject tooMany = QJsonDocument::fromJson(R"({"params": )" + keys + "}").object();
    EXPECT_THROW(settingsFromJson(tooMany), InputError);

    const QByteArray longPath(kMaxSessionText + 1, 'p');
    const std::string path = refusal(write(QStringLiteral("path.json"), session(R"({"q_path": ")" + longPath + R"("})")));
    EXPECT_NE(path.find("'q_path' has 4097 characters"), std::string::npos) << path;
    const std::string control = refusal(write(QStringLiteral("control.json"), session(R"({"variant": "a\u001b[2Jb"})")));
    EXPECT_EQ(control.find('\x1b'), std::string::npos) << "a control byte reached the message";
    EXPECT_NE(control.find("unknown variant"), std::string::npos) << control;
}

TEST_F(SessionLimitsTest, NpyInputFilesAreCheckedWhenTheSessionOpens) {
    const QString q = npy(QStringLiteral("q.npy"), 16, 8);
    const QString v = npy(QStringLiteral("v.npy"), 16, 4);
    ASSERT_TRUE(QDir().mkpath(path(QStringLiteral("folder.npy"))));
    const QString text = write(QStringLiteral("notes.npy"), "just some text\n");
    const auto withFiles = [&](const QString& name, const QString& qPath, const QString& vPath) {
        return write(name, session(QStringLiteral(R"({"source": "npy", "q_path": "%1", "v_path": "%2"})")
                                       .arg(qPath, vPath).toUtf8()));
    };
    const Session valid = loadSession(withFiles(QStringLiteral("valid.json"), q, v));
    EXPECT_EQ(valid.settings.qPath, q.toStdString());

    const std::vector<std::tuple<const char*, QString, QString, const char*>> cases = {
        {"missing", path(QStringLiteral("missing.npy")), v, "'q_path': "},
        {"directory", path(QStringLiteral("folder.npy")), v, "is a directory"},
        {"system file", QStringLiteral("/etc/passwd"), v, "'q_path': /etc/passwd: "},
        {"device", QStringLiteral("/dev/zero"), v, "not a regular file"},
        {"text", text, v, "'q_path': "},
        {"bad v", q, text, "'v_path': "},
        {"empty q", QString(), v, "'q_path' is empty"},
    };
    for (const auto& [name, qPath, vPath, expected] : cases) {
        SCOPED_TRACE(name);
        const std::string message = refusal(withFiles(QString::fromLatin1(name) + QStringLiteral(".json"), qPath, vPath));
        EXPECT_NE(message.find(expected), std::string::npos) << message;
    }
}

// Relative input paths are read from the session file's folder, whatever the working directory.
TEST_F(SessionLimitsTest, RelativeInputPathsAreReadFromTheSessionsFolder) {
    ASSERT_TRUE(QDir().mkpath(path(QStringLiteral("lecture/data"))));
    const QString q = npy(QStringLiteral("lecture/data/q.npy"), 16, 8);
    const QString v = npy(QStringLiteral("lecture/v.npy"), 16, 4);
    const QString file = write(QStringLiteral("lecture/session.json"),
                               session(R"({"source": "npy", "q_path": "data/q.npy", "v_path": "./data/../v.npy"})"));
    const QString before = QDir::currentPath();
    ASSERT_TRUE(QDir::setCurrent(QDir::rootPath()));
    const Session loaded = loadSession(file);
    QDir::setCurrent(before);
    EXPECT_EQ(loaded.settings.qPath, QFileInfo(q).absoluteFilePath().toStdString());
    EXPECT_EQ(loaded.settings.vPath, QFileInfo(v).absoluteFilePath().toStdString());
    EXPECT_EQ(loaded.settings.kPath, "");
}

TEST_F(SessionLimitsTest, JsonOfTheWrongShapeIsNamedAsSuch) {
    for (const auto& [text, kind] : std::vector<std::pair<QByteArray, std::string>>{
             {"[]", "an array"}, {"null", "null"}, {" 42 ", "a number"}, {"\"s\"", "a string"}, {"true", "a boolean"}}) {
        const std::string message = refusal(write(QString::fromStdString("shape-" + std::to_string(text.size()) + kind + ".json"), text));
        EXPECT_NE(message.find("is JSON of the wrong shape: " + kind), std::string::npos) << message;
    }
    EXPECT_NE(refusal(write(QStringLiteral("broken.json"), "{\"format\": ")).find("is not JSON"), std::string::npos);
    EXPECT_NE(refusal(write(QStringLiteral("two.json"), "1 2")).find("is not JSON"), std::string::npos);
}

TEST_F(SessionLimitsTest, ADirectoryIsNotASession) {
    ASSERT_TRUE(QDir().mkpath(path(QStringLiteral("folder.attnlab.json"))));
    const std::string message = refusal(path(QStringLiteral("folder.attnlab.json")));
    EXPECT_NE(message.find("is a directory"), std::string::npos) << message;
}

// Saving a session replaces only a regular file, and never the NPY files the session reads.
TEST_F(SessionLimitsTest, SavingRefusesAFifoAndTheSessionsOwnInputs) {
    const QString fifo = path(QStringLiteral("pipe.attnlab.json"));
    ASSERT_EQ(::mkfifo(fifo.toLocal8Bit().constData(), 0644), 0);
    const int reader = ::open(fifo.toLocal8Bit().constData(), O_RDONLY | O_NONBLOCK); // a wrong open must not block
    EXPECT_THROW(saveSession(fifo, Session{}), InputError);
    ::close(reader);
    struct stat info = {};
    ASSERT_EQ(::lstat(fifo.toLocal8Bit().constData(), &info), 0);
    EXPECT_TRUE(S_ISFIFO(info.st_mode)) << "the FIFO was replaced";

    Session reading;
    reading.settings.source = InputSource::NpyFiles;
    reading.settings.qPath = npy(QStringLiteral("q.npy"), 16, 8).toStdString();
    const QByteArray before = [&] {
        QFile q(path(QStringLiteral("q.npy")));
        return q.open(QIODevice::ReadOnly) ? q.readAll() : QByteArray();
    }();
    ASSERT_TRUE(QFile::link(path(QStringLiteral("q.npy")), path(QStringLiteral("q-link.json"))));
    try {
        saveSession(path(QStringLiteral("q-link.json")), reading);
        ADD_FAILURE() << "the session was saved over its own Q file";
    } catch (const InputError& error) {
        EXPECT_NE(std::string(error.what()).find("same file as the input --q"), std::string::npos) << error.what();
    }
    QFile q(path(QStringLiteral("q.npy")));
    ASSERT_TRUE(q.open(QIODevice::ReadOnly));
    EXPECT_EQ(q.readAll(), before);
}

// The deterministic fuzz run of the session loader (the libFuzzer target fuzz_session runs the same entry
// point for hours): seeded mutations of tests/fuzz/corpus/session, each refused cleanly or round-tripped.
TEST(SessionFuzz, TheLoaderSurvivesThreeThousandMutations) { fuzz::runMutations("session", fuzz::sessionInput, 3000, 4); }

} // namespace
} // namespace attnlab
