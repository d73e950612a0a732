#pragma once

// Runs the real `attnlab` executable headless in a fresh directory per test (offscreen platform, its own
// empty configuration, no XDG_RUNTIME_DIR, as in a bare container).

#include "views/shell/session_file.h"

#include <gtest/gtest.h>

#include <QDir>
#include <QFile>
#include <QProcess>
#include <QTemporaryDir>

namespace attnlab {

inline constexpr int kRunTimeoutMs = 120000;
inline constexpr double kMetersPerInch = 0.0254;

struct ProcessRun {
    int exitCode = -1;
    bool finished = false;
    QString out, err;
};

class FigureCommandTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(dir.isValid());
        ASSERT_TRUE(QDir().mkpath(configDir()));
    }

    QString configDir() const { return dir.filePath(QStringLiteral(".config")); }

    // Runs attnlab with `arguments` on the offscreen platform, with its own (empty) configuration and no
    // XDG_RUNTIME_DIR, as in a bare container.
    ProcessRun run(const QStringList& arguments) const {
        QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
        environment.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
        return run(arguments, environment);
    }

    ProcessRun run(const QStringList& arguments, QProcessEnvironment environment) const {
        QProcess process;
        environment.insert(QStringLiteral("XDG_CONFIG_HOME"), configDir());
        environment.remove(QStringLiteral("XDG_RUNTIME_DIR"));
        process.setProcessEnvironment(environment);
        process.setWorkingDirectory(dir.path());
        process.start(QStringLiteral(ATTNLAB_EXECUTABLE), arguments);
        ProcessRun result;
        result.finished = process.waitForStarted(kRunTimeoutMs) && process.waitForFinished(kRunTimeoutMs);
        if (!result.finished) process.kill();
        result.exitCode = process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
        result.out = QString::fromUtf8(process.readAllStandardOutput());
        result.err = QString::fromUtf8(process.readAllStandardError());
        return result;
    }

    QString path(const QString& name) const { return dir.filePath(name); }

    QStringList files() const {
        QStringList names = QDir(dir.path()).entryList(QDir::Files | QDir::Hidden | QDir::Dirs | QDir::NoDotAndDotDot);
        names.removeAll(QStringLiteral(".config"));
        return names;
    }

    // A session that keeps every view quick: the timing view measures n = 64 and 128 only.
    QString quickSession(const QString& view) const {
        LabSettings settings;
        settings.n = 128;
        settings.timingMaxN = 128;
        const QString file = path(QStringLiteral("quick-%1.attnlab.json").arg(view));
        saveSession(file, Session{settings, view});
        return file;
    }

    QTemporaryDir dir;
};

// A refused command: exit 2 (or another failure), one line on stderr, nothing on stdout.
inline void expectOneLineError(const ProcessRun& result) {
    EXPECT_TRUE(result.finished);
    EXPECT_NE(result.exitCode, 0);
    EXPECT_TRUE(result.err.startsWith(QStringLiteral("attnlab: error: "))) << result.err.toStdString();
    EXPECT_EQ(result.err.count('\n'), 1) << "stderr: " << result.err.toStdString();
    EXPECT_TRUE(result.err.endsWith('\n'));
    EXPECT_TRUE(result.out.isEmpty()) << result.out.toStdString();
}

inline QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

} // namespace attnlab
