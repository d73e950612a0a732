#pragma once

// main() of a Qt test program: offscreen-safe QApplication, QSettings in a fresh temporary directory (a
// test never reads or writes the user's settings), then every test. `beforeTests`, when given, runs once
// the application exists; returning false ends the program with status 1.
#include <gtest/gtest.h>

#include <QApplication>
#include <QSettings>
#include <QStandardPaths>
#include <QTemporaryDir>

#include <functional>

namespace attnlab::guitest {

inline int runGuiTests(int argc, char** argv, const char* name, const std::function<bool()>& beforeTests = {}) {
    QStandardPaths::setTestModeEnabled(true);
    QApplication app(argc, argv);
    QTemporaryDir settingsDir;
    QSettings::setPath(QSettings::NativeFormat, QSettings::UserScope, settingsDir.path());
    QSettings::setPath(QSettings::IniFormat, QSettings::UserScope, settingsDir.path());
    QCoreApplication::setOrganizationName(QStringLiteral("attnlab-tests"));
    QCoreApplication::setApplicationName(QString::fromLatin1(name));
    if (beforeTests && !beforeTests()) return 1;
    ::testing::InitGoogleTest(&argc, argv);
    return RUN_ALL_TESTS();
}

} // namespace attnlab::guitest
