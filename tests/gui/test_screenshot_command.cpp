// The real executable's `attnlab --screenshot FILE --view NAME`: every view (distinct pictures), the
// first-run figure without a session, its errors (one line, exit 2, no file) and its time limit.

#include "gui/figure_command_fixture.h"
#include "views/shell/main_window.h"
#include "views/shell/model_presets.h"
#include "views/shell/session_file.h"

#include <gtest/gtest.h>

#include <QCryptographicHash>
#include <QDir>
#include <QFile>
#include <QImage>
#include <QProcess>

#include <set>

namespace attnlab {
namespace {

TEST_F(FigureCommandTest, ScreenshotOfEveryView) {
    QStringList views = figureViewNames();
    views << QStringLiteral("lab");
    std::set<QByteArray> distinct;
    for (const QString& view : views) {
        SCOPED_TRACE(view.toStdString());
        const QString file = path(QStringLiteral("window-%1.png").arg(view));
        const ProcessRun result = run({QStringLiteral("--screenshot"), file, QStringLiteral("--view"), view, QStringLiteral("--session"),
                                quickSession(view)});
        ASSERT_TRUE(result.finished);
        EXPECT_EQ(result.exitCode, 0) << result.err.toStdString();
        EXPECT_TRUE(result.err.isEmpty()) << "stderr: " << result.err.toStdString();
        const QImage image(file);
        ASSERT_FALSE(image.isNull());
        EXPECT_GE(image.width(), 800);
        EXPECT_GE(image.height(), 600);
        distinct.insert(QCryptographicHash::hash(readAll(file), QCryptographicHash::Sha1));
    }
    EXPECT_EQ(distinct.size(), static_cast<std::size_t>(views.size())) << "two views gave the same screenshot";
}

// Without a session a screenshot shows what a first run shows (the README's Sparse Transformer figure), not
// full attention's flat square: the same pixels above the status bar as a session holding that preset.
TEST_F(FigureCommandTest, ScreenshotWithoutASessionShowsTheFirstRunFigure) {
    const FigurePreset& first = firstRunPreset();
    EXPECT_EQ(first.id, QStringLiteral("sparse-transformer"));
    saveSession(path(QStringLiteral("first.attnlab.json")), Session{first.settings, first.view});
    saveSession(path(QStringLiteral("full.attnlab.json")), Session{LabSettings{}, first.view});
    const auto shot = [&](const QString& name, const QStringList& extra) {
        const QString file = path(name);
        const ProcessRun result = run(QStringList{QStringLiteral("--screenshot"), file} + extra);
        EXPECT_EQ(result.exitCode, 0) << result.err.toStdString();
        const QImage image(file);
        // The status bar names an opened session: only the window above it is compared.
        return image.isNull() ? image : image.copy(0, 0, image.width(), image.height() - 40);
    };
    const QImage fresh = shot(QStringLiteral("fresh.png"), {});
    const QImage preset = shot(QStringLiteral("first.png"), {QStringLiteral("--session"), path(QStringLiteral("first.attnlab.json"))});
    const QImage full = shot(QStringLiteral("full.png"), {QStringLiteral("--session"), path(QStringLiteral("full.attnlab.json"))});
    ASSERT_FALSE(fresh.isNull());
    EXPECT_TRUE(fresh == preset) << "the screenshot without a session is not the first-run figure";
    EXPECT_FALSE(fresh == full) << "the screenshot without a session is full attention's";
}

TEST_F(FigureCommandTest, ScreenshotErrors) {
    ASSERT_TRUE(QFile(path(QStringLiteral("broken.attnlab.json"))).open(QIODevice::WriteOnly));
    ASSERT_TRUE(QDir().mkpath(path(QStringLiteral("folder"))));
    // Sessions reading Q from a file that is missing, a directory or not NPY at all.
    for (const auto& [name, q] : {std::pair<const char*, QString>{"missing-q", path(QStringLiteral("missing.npy"))},
                                  {"folder-q", path(QStringLiteral("folder"))}, {"passwd-q", QStringLiteral("/etc/passwd")}}) {
        LabSettings settings;
        settings.source = InputSource::NpyFiles;
        settings.qPath = q.toStdString();
        saveSession(path(QString::fromLatin1(name) + QStringLiteral(".attnlab.json")), Session{settings, QStringLiteral("accuracy")});
    }
    const QStringList before = files();
    const std::vector<std::pair<const char*, QStringList>> cases = {
        {"unknown view", {"--screenshot", path("x.png"), "--view", "nonesuch"}},
        {"missing directory", {"--screenshot", path("missing/x.png"), "--view", "pattern"}},
        {"missing value", {"--screenshot", path("x.png"), "--view"}},
        {"broken session", {"--screenshot", path("x.png"), "--session", path("broken.attnlab.json")}},
        {"session is a directory", {"--screenshot", path("x.png"), "--session", path("folder")}},
        {"missing Q file", {"--screenshot", path("x.png"), "--session", path("missing-q.attnlab.json")}},
        {"Q file is a directory", {"--screenshot", path("x.png"), "--session", path("folder-q.attnlab.json")}},
        {"Q file is not NPY", {"--screenshot", path("x.png"), "--session", path("passwd-q.attnlab.json")}},
        {"bad time limit", {"--screenshot", path("x.png"), "--time-limit", "0"}},
        {"time limit not a number", {"--screenshot", path("x.png"), "--time-limit", "soon"}},
    };
    for (const auto& [name, arguments] : cases) {
        SCOPED_TRACE(name);
        expectOneLineError(run(arguments));
        EXPECT_EQ(files(), before) << "a file was left behind";
    }
}

// n = 65,536 keeps the accuracy view busy far longer than the time limit given: the screenshot cancels the
// work, says so in one line, exits 3 and writes no file. (How soon after the limit it stops is the
// scheduler's business on a busy machine, so the test asserts the outcome, not the wall time.)
TEST_F(FigureCommandTest, ScreenshotStopsAtItsTimeLimit) {
    LabSettings settings;
    settings.n = 65536;
    const QString session = path(QStringLiteral("long.attnlab.json"));
    saveSession(session, Session{settings, QStringLiteral("accuracy")});
    const QStringList before = files();
    const ProcessRun result = run({QStringLiteral("--screenshot"), path(QStringLiteral("long.png")), QStringLiteral("--session"),
                                   session, QStringLiteral("--time-limit"), QStringLiteral("2")});
    ASSERT_TRUE(result.finished);
    EXPECT_EQ(result.exitCode, 3) << result.err.toStdString();
    EXPECT_EQ(result.err.count('\n'), 1) << result.err.toStdString();
    EXPECT_TRUE(result.err.contains(QStringLiteral("time limit of 2 s"))) << result.err.toStdString();
    EXPECT_TRUE(result.err.contains(QStringLiteral("the accuracy view"))) << result.err.toStdString();
    EXPECT_TRUE(result.err.contains(QStringLiteral("--time-limit"))) << result.err.toStdString();
    EXPECT_EQ(files(), before) << "a screenshot was written after the time limit";
}

TEST_F(FigureCommandTest, TheWindowWithoutADisplayFailsWithOneLine) {
    QProcessEnvironment environment = QProcessEnvironment::systemEnvironment();
    for (const char* name : {"DISPLAY", "WAYLAND_DISPLAY", "QT_QPA_PLATFORM"}) environment.remove(QString::fromLatin1(name));
    const ProcessRun result = run({}, environment);
    ASSERT_TRUE(result.finished);
    EXPECT_EQ(result.exitCode, 2) << result.err.toStdString();
    EXPECT_EQ(result.err.count(QLatin1Char('\n')), 1) << result.err.toStdString();
    EXPECT_TRUE(result.err.startsWith(QStringLiteral("attnlab: error: no display"))) << result.err.toStdString();
}

} // namespace
} // namespace attnlab
