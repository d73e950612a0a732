// The real executable: `attnlab figure … --slide` and `--font-scale S` for every view and the vector
// formats, slide mode kept in a session, `attnlab --screenshot … --slide`, and their bad inputs (one
// line, exit 2, no file).

#include "gui/figure_command_fixture.h"
#include "views/shell/main_window.h"
#include "views/shell/session_file.h"

#include <gtest/gtest.h>

#include <QImage>
#include <QRegularExpression>

#include <cmath>
#include <string>
#include <utility>
#include <vector>

namespace attnlab {
namespace {

QImage pngAt(const QString& file, double* dpi) {
    QImage image;
    image.loadFromData(readAll(file), "PNG");
    *dpi = image.dotsPerMeterX() * kMetersPerInch;
    return image;
}

TEST_F(FigureCommandTest, SlideDrawsEveryViewAt1920By1080) {
    for (const QString& view : figureViewNames()) {
        SCOPED_TRACE(view.toStdString());
        const QString file = path(view + QStringLiteral(".png"));
        const ProcessRun result = run({QStringLiteral("figure"), view, QStringLiteral("--session"), quickSession(view), QStringLiteral("--slide"),
                                       QStringLiteral("-o"), file});
        ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
        double dpi = 0;
        const QImage image = pngAt(file, &dpi);
        EXPECT_EQ(image.size(), QSize(1920, 1080));
        EXPECT_NEAR(dpi, 96, 0.5);
    }
}

TEST_F(FigureCommandTest, SlideSizesTheVectorFormatsAndTheDpiItsPixels) {
    const QString svg = path(QStringLiteral("slide.svg")), pdf = path(QStringLiteral("slide.pdf")), png = path(QStringLiteral("slide.png"));
    ProcessRun result = run({QStringLiteral("figure"), QStringLiteral("flops"), QStringLiteral("--slide"), QStringLiteral("-o"), svg,
                             QStringLiteral("-o"), pdf});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    EXPECT_TRUE(QString::fromUtf8(readAll(svg)).contains(QStringLiteral("viewBox=\"0 0 1920 1080\"")));
    const QString pdfText = QString::fromLatin1(readAll(pdf));
    EXPECT_TRUE(pdfText.contains(QRegularExpression(QStringLiteral("/MediaBox \\[0 0 1440(\\.0+)? 810(\\.0+)?\\]")))) << "1920 x 1080 px at 96 dpi";
    result = run({QStringLiteral("figure"), QStringLiteral("flops"), QStringLiteral("--slide"), QStringLiteral("--dpi"), QStringLiteral("192"),
                  QStringLiteral("-o"), png});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    double dpi = 0;
    EXPECT_EQ(pngAt(png, &dpi).size(), QSize(3840, 2160));
    // --font-scale keeps the figure's size: a 900 x 600 figure at 96 dpi is 900 x 600 pixels whatever its scale.
    result = run({QStringLiteral("figure"), QStringLiteral("pattern"), QStringLiteral("--font-scale"), QStringLiteral("1.5"), QStringLiteral("--dpi"),
                  QStringLiteral("96"), QStringLiteral("-o"), png});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    EXPECT_EQ(pngAt(png, &dpi).size(), QSize(900, 600));
}

// A session saved in slide mode draws a slide; --width and --height still size a figure from it.
TEST_F(FigureCommandTest, ASessionKeepsSlideModeAndItsFontScale) {
    LabSettings settings;
    settings.n = 64;
    settings.slideMode = true;
    settings.fontScale = 2.5;
    const QString session = path(QStringLiteral("slide.attnlab.json"));
    saveSession(session, Session{settings, QStringLiteral("pattern")});
    EXPECT_EQ(loadSession(session).settings.fontScale, 2.5);
    const QString file = path(QStringLiteral("from-session.png"));
    ProcessRun result = run({QStringLiteral("figure"), QStringLiteral("--session"), session, QStringLiteral("-o"), file});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    double dpi = 0;
    EXPECT_EQ(pngAt(file, &dpi).size(), QSize(1920, 1080));
    result = run({QStringLiteral("figure"), QStringLiteral("--session"), session, QStringLiteral("--width"), QStringLiteral("1280"),
                  QStringLiteral("--height"), QStringLiteral("720"), QStringLiteral("--dpi"), QStringLiteral("96"), QStringLiteral("-o"), file});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    EXPECT_EQ(pngAt(file, &dpi).size(), QSize(1280, 720));
}

TEST_F(FigureCommandTest, ScreenshotInSlideMode) {
    const QString file = path(QStringLiteral("window.png"));
    const ProcessRun result = run({QStringLiteral("--screenshot"), file, QStringLiteral("--session"), quickSession(QStringLiteral("flops")),
                                   QStringLiteral("--slide"), QStringLiteral("--font-scale"), QStringLiteral("1.5")});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    const QImage image(file);
    EXPECT_EQ(image.size(), QSize(1920, 1080)) << "the window of a slide";
    const ProcessRun other = run({QStringLiteral("--screenshot"), path(QStringLiteral("plain.png")), QStringLiteral("--session"),
                                  quickSession(QStringLiteral("flops"))});
    ASSERT_EQ(other.exitCode, 0) << other.err.toStdString();
    EXPECT_NE(QImage(path(QStringLiteral("plain.png"))).size(), QSize(1920, 1080));
}

TEST_F(FigureCommandTest, BadSlideOptionsFailWithOneLineAndNoFile) {
    const QStringList before = files();
    const std::vector<std::pair<const char*, QStringList>> cases = {
        {"font scale zero", {"figure", "pattern", "--font-scale", "0", "-o", path("x.png")}},
        {"font scale negative", {"figure", "pattern", "--font-scale", "-1", "-o", path("x.png")}},
        {"font scale not a number", {"figure", "pattern", "--font-scale", "abc", "-o", path("x.png")}},
        {"font scale huge", {"figure", "pattern", "--font-scale", "1e9", "-o", path("x.png")}},
        {"font scale not finite", {"figure", "pattern", "--font-scale", "nan", "-o", path("x.png")}},
        {"font scale with a tail", {"figure", "pattern", "--font-scale", "2x", "-o", path("x.png")}},
        {"font scale without a value", {"figure", "pattern", "-o", path("x.png"), "--font-scale"}},
        {"font scale leaving no room", {"figure", "pattern", "--font-scale", "4", "--width", "600", "-o", path("x.png")}},
        {"slide with a width", {"figure", "pattern", "--slide", "--width", "800", "-o", path("x.png")}},
        {"slide with a height", {"figure", "timing", "--slide", "--height", "800", "-o", path("x.png")}},
        {"screenshot font scale zero", {"--screenshot", path("x.png"), "--font-scale", "0"}},
        {"screenshot font scale not a number", {"--screenshot", path("x.png"), "--font-scale", "abc"}},
        {"screenshot font scale huge", {"--screenshot", path("x.png"), "--font-scale", "1e9"}},
        {"screenshot font scale negative", {"--screenshot", path("x.png"), "--font-scale", "-1"}},
    };
    for (const auto& [name, arguments] : cases) {
        SCOPED_TRACE(name);
        const ProcessRun result = run(arguments);
        expectOneLineError(result);
        EXPECT_EQ(result.exitCode, 2);
        EXPECT_EQ(files(), before) << "a file was left behind";
    }
}

} // namespace
} // namespace attnlab
