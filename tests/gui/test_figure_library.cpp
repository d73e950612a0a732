// The headless figure renderer (`attnlab figure`) driven in process through the attnlab_figures
// library: the figure's data against independent math, the written image, and bad input refused with
// one message and no file left behind.

#include "app/figure_command.h"

#include "core/errors.h"

#include <gtest/gtest.h>

#include <QFile>
#include <QImage>
#include <QTemporaryDir>

#include <algorithm>
#include <string>
#include <vector>

namespace attnlab {
namespace {

class FigureLibraryTest : public ::testing::Test {
protected:
    std::string path(const char* name) const { return dir.filePath(QString::fromLatin1(name)).toStdString(); }

    static QStringList lines(const std::string& file) {
        QFile csv(QString::fromStdString(file));
        EXPECT_TRUE(csv.open(QIODevice::ReadOnly)) << file;
        return QString::fromUtf8(csv.readAll()).split(QLatin1Char('\n'), Qt::SkipEmptyParts);
    }

    // The message figureCommand throws for `args` (empty when it does not throw).
    static std::string refusal(const std::vector<std::string>& args) {
        try {
            figureCommand(args);
        } catch (const InputError& error) {
            return error.what();
        }
        return {};
    }

    QTemporaryDir dir;
};

// Longformer without globals and window 8 reaches 4 positions further per layer, up to the sequence's end.
TEST_F(FigureLibraryTest, ReachCsvMatchesTheWindowsGrowth) {
    const std::string out = path("reach.csv");
    ASSERT_EQ(figureCommand({"reach", "--variant", "longformer", "--set", "window=8", "--n", "40", "--layers", "12", "-o", out}), 0);
    const QStringList rows = lines(out);
    ASSERT_EQ(rows.size(), 1 + 13);
    EXPECT_TRUE(rows.front().startsWith(QStringLiteral("layer,variant,params,fraction_reachable,mean_reach,max_reach")));
    for (int l = 0; l <= 12; ++l) {
        // The params field is quoted and holds spaces only: the comma split keeps column positions.
        const QStringList fields = rows[l + 1].split(QLatin1Char(','));
        ASSERT_GE(fields.size(), 7);
        EXPECT_EQ(fields[0].toInt(), l);
        EXPECT_EQ(fields[5].toDouble(), std::min(4 * l, 39)) << "layer " << l;
    }
}

TEST_F(FigureLibraryTest, PngIsWrittenAtTheDpiAsked) {
    const std::string out = path("flops.png");
    ASSERT_EQ(figureCommand({"flops", "--variant", "strided", "--n", "1024", "--dpi", "150", "--width", "400", "--height", "300",
                             "-o", out}),
              0);
    const QImage image(QString::fromStdString(out));
    ASSERT_FALSE(image.isNull());
    EXPECT_EQ(image.width(), 625) << "400 logical pixels at 96 dpi are 625 at 150 dpi";
    EXPECT_NEAR(image.dotsPerMeterX() * 0.0254, 150.0, 1.0);
}

TEST_F(FigureLibraryTest, BadInputIsRefusedWithOneMessageAndNoFile) {
    const std::string out = path("bad.png");
    EXPECT_NE(refusal({"pattern", "--variant", "xl", "--causal", "--d", "63", "-o", out}).find("even head size"), std::string::npos);
    EXPECT_NE(refusal({"reach", "--compare", "full", "-o", out}).find("--compare takes 2 to 4"), std::string::npos);
    EXPECT_NE(refusal({"nonsense", "-o", out}).find("unknown view"), std::string::npos);
    EXPECT_NE(refusal({"pattern", "--variant", "nope", "-o", out}), "");
    EXPECT_FALSE(QFile::exists(QString::fromStdString(out)));
}

} // namespace
} // namespace attnlab
