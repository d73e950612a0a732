// The real executable, headless: `attnlab figure VIEW -o FILE` for every view and format and its errors
// (exit code, one line on stderr, no file left behind); `--screenshot` is tested in
// test_screenshot_command.cpp.

#include "gui/csv_table.h"
#include "gui/figure_command_fixture.h"
#include "views/shell/main_window.h"
#include "views/shell/model_presets.h"
#include "views/shell/session_file.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QPainter>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QXmlStreamReader>

#include <cmath>
#include <utility>
#include <string>

namespace attnlab {
namespace {

QString svgDescription(const QByteArray& svg, QString* error) {
    QXmlStreamReader xml(svg);
    QString description;
    while (!xml.atEnd()) {
        xml.readNext();
        if (xml.isStartElement() && xml.name() == QLatin1String("desc") && description.isEmpty()) description = xml.readElementText();
    }
    if (xml.hasError()) *error = xml.errorString();
    return description;
}

// What a valid file of each format looks like; empty when `file` is one.
std::string checkFile(const QString& file, const QString& format, double dpi = 300) {
    const QByteArray bytes = readAll(file);
    if (bytes.isEmpty()) return "empty or missing";
    if (format == QLatin1String("png")) {
        QImage image;
        if (!image.loadFromData(bytes, "PNG")) return "not a PNG";
        if (std::abs(image.dotsPerMeterX() - dpi / kMetersPerInch) > 1.0)
            return "PNG at " + std::to_string(image.dotsPerMeterX() * kMetersPerInch) + " dpi";
        return {};
    }
    if (format == QLatin1String("svg")) {
        QString error;
        const QString description = svgDescription(bytes, &error);
        if (!error.isEmpty()) return "SVG does not parse: " + error.toStdString();
        if (!QSvgRenderer(bytes).isValid()) return "QSvgRenderer rejects the SVG";
        if (!description.contains(QStringLiteral("n="))) return "no run parameters in <desc>: " + description.toStdString();
        return {};
    }
    if (format == QLatin1String("pdf")) return bytes.startsWith("%PDF-") ? std::string() : "no %PDF- magic";
    const QStringList lines = QString::fromUtf8(bytes).split('\n', Qt::SkipEmptyParts);
    if (lines.size() < 2) return "CSV without rows";
    const auto columns = lines.front().split(',').size();
    if (columns < 2) return "CSV header has one column: " + lines.front().toStdString();
    return {};
}

TEST_F(FigureCommandTest, EveryViewWritesEveryFormat) {
    for (const QString& view : figureViewNames())
        for (const QString& format : {QStringLiteral("png"), QStringLiteral("svg"), QStringLiteral("pdf"), QStringLiteral("csv")}) {
            SCOPED_TRACE((view + "." + format).toStdString());
            const QString file = path(view + QLatin1Char('.') + format);
            const ProcessRun result = run({QStringLiteral("figure"), view, QStringLiteral("-o"), file, QStringLiteral("--n"), QStringLiteral("64"),
                                    QStringLiteral("--timing-max-n"), QStringLiteral("128")});
            ASSERT_TRUE(result.finished);
            EXPECT_EQ(result.exitCode, 0) << result.err.toStdString();
            EXPECT_TRUE(result.err.isEmpty()) << "stderr: " << result.err.toStdString();
            EXPECT_EQ(checkFile(file, format), "");
        }
}

TEST_F(FigureCommandTest, OptionsShapeTheFigure) {
    const QString png = path(QStringLiteral("small.png"));
    ProcessRun result = run({QStringLiteral("figure"), QStringLiteral("pattern"), QStringLiteral("-o"), png, QStringLiteral("--dpi"),
                      QStringLiteral("150"), QStringLiteral("--width"), QStringLiteral("640"), QStringLiteral("--height"),
                      QStringLiteral("480"), QStringLiteral("--variant"), QStringLiteral("strided"), QStringLiteral("--causal")});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    EXPECT_EQ(checkFile(png, QStringLiteral("png"), 150), "");
    const QImage image(png);
    EXPECT_EQ(image.size(), QSize(1000, 750));

    const QString svg = path(QStringLiteral("compare.svg"));
    result = run({QStringLiteral("figure"), QStringLiteral("pattern"), QStringLiteral("--out"), svg, QStringLiteral("--compare"),
                  QStringLiteral("full,strided,bigbird"), QStringLiteral("--n"), QStringLiteral("48"), QStringLiteral("--set"),
                  QStringLiteral("stride=4")});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    QString error;
    const QString description = svgDescription(readAll(svg), &error);
    ASSERT_TRUE(error.isEmpty()) << error.toStdString();
    EXPECT_TRUE(description.contains(QStringLiteral("variants=full | strided (stride=4) | bigbird"))) << description.toStdString();
    EXPECT_TRUE(description.contains(QStringLiteral("n=48"))) << description.toStdString();
}

// The inference figure draws the KV cache against --budget-line. LLaMA-70B's shape keeps L·h_kv·(d + dv)·4
// = 80·8·256·4 bytes per token with full attention: the cache passes B bytes at the least n with
// n·655360 > B. --memory-budget (and ATTNLAB_MEMORY_BUDGET) is the jobs' budget, as in every subcommand,
// and does not move the line; a job over it ends the command with exit 2 and no file.
TEST_F(FigureCommandTest, InferenceDrawsTheBudgetLineAndKeepsTheJobBudgetApart) {
    const QStringList shape = {QStringLiteral("figure"), QStringLiteral("inference"), QStringLiteral("--heads"), QStringLiteral("64"),
                               QStringLiteral("--kv-heads"), QStringLiteral("8"), QStringLiteral("--d"), QStringLiteral("128"),
                               QStringLiteral("--model-layers"), QStringLiteral("80"), QStringLiteral("--timing-max-n"),
                               QStringLiteral("256"), QStringLiteral("-o")};
    const auto budgetAndRunOut = [&](const QString& csv) {
        std::pair<QString, QString> found;
        for (const QString& line : QString::fromUtf8(readAll(csv)).split(QLatin1Char('\n'))) {
            const QStringList fields = guitest::csvFields(line);
            if (fields.size() < 5) continue;
            if (fields[0] == QStringLiteral("budget")) found.first = fields[4];
            if (fields[0] == QStringLiteral("runs_out") && fields[1] == QStringLiteral("full")) found.second = fields[4];
        }
        return found;
    };
    const QString given = path(QStringLiteral("given.csv"));
    ProcessRun result = run(QStringList(shape) << given << QStringLiteral("--budget-line") << QStringLiteral("64G"));
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    EXPECT_EQ(budgetAndRunOut(given), std::make_pair(QStringLiteral("68719476736"), QStringLiteral("104858")));

    const QString jobBudget = path(QStringLiteral("job-budget.csv"));
    result = run(QStringList(shape) << jobBudget << QStringLiteral("--memory-budget") << QStringLiteral("64G"));
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    EXPECT_NE(budgetAndRunOut(jobBudget).first, QStringLiteral("68719476736"));

    for (const QString& bad : {QStringLiteral("lots"), QStringLiteral("0"), QStringLiteral("-1G"), QString()}) {
        result = run(QStringList(shape) << path(QStringLiteral("bad.csv")) << QStringLiteral("--budget-line") << bad);
        EXPECT_EQ(result.exitCode, 2) << bad.toStdString();
        EXPECT_EQ(result.err.count(QLatin1Char('\n')), 1) << result.err.toStdString();
        EXPECT_FALSE(QFileInfo::exists(path(QStringLiteral("bad.csv"))));
    }

    // accuracy at n = 4096 plans megabytes: a 1K job budget refuses it.
    result = run({QStringLiteral("figure"), QStringLiteral("accuracy"), QStringLiteral("--n"), QStringLiteral("4096"),
                  QStringLiteral("--memory-budget"), QStringLiteral("1K"), QStringLiteral("-o"), path(QStringLiteral("acc.csv"))});
    EXPECT_EQ(result.exitCode, 2) << result.err.toStdString();
    EXPECT_EQ(result.err.count(QLatin1Char('\n')), 1) << result.err.toStdString();
    EXPECT_TRUE(result.err.contains(QStringLiteral("job budget"))) << result.err.toStdString();
    EXPECT_FALSE(QFileInfo::exists(path(QStringLiteral("acc.csv"))));
}

// Pixels of `image` within `tolerance` of `colour` in each channel.
int pixelsOf(const QImage& image, QRgb colour, int tolerance = 6) {
    int count = 0;
    for (int y = 0; y < image.height(); y += 2)
        for (int x = 0; x < image.width(); x += 2) {
            const QRgb p = image.pixel(x, y);
            count += std::abs(qRed(p) - qRed(colour)) <= tolerance && std::abs(qGreen(p) - qGreen(colour)) <= tolerance &&
                     std::abs(qBlue(p) - qBlue(colour)) <= tolerance;
        }
    return count;
}

TEST_F(FigureCommandTest, ComponentsAndFactorisedHeadsAreWritten) {
    // Okabe-Ito blue, orange and bluish green: the colours of components 1, 2 and 3.
    const QRgb blue = qRgb(0x00, 0x72, 0xb2), orange = qRgb(0xe6, 0x9f, 0x00), green = qRgb(0x00, 0x9e, 0x73);
    const QString coloured = path(QStringLiteral("streaming.png"));
    ProcessRun result = run({QStringLiteral("figure"), QStringLiteral("pattern"), QStringLiteral("--variant"), QStringLiteral("custom"),
                             QStringLiteral("--set"), QStringLiteral("expr=band(4) | sink(4)"), QStringLiteral("--causal"),
                             QStringLiteral("--n"), QStringLiteral("64"), QStringLiteral("--components"), QStringLiteral("--dpi"),
                             QStringLiteral("96"), QStringLiteral("-o"), coloured});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    QImage image(coloured);
    ASSERT_FALSE(image.isNull());
    EXPECT_GT(pixelsOf(image, blue), 500);
    EXPECT_GT(pixelsOf(image, orange), 200);
    EXPECT_LT(pixelsOf(image, green), 5) << "two components, two colours";

    const QString heads = path(QStringLiteral("bigbird.svg"));
    result = run({QStringLiteral("figure"), QStringLiteral("pattern"), QStringLiteral("--variant"), QStringLiteral("bigbird"),
                  QStringLiteral("--n"), QStringLiteral("48"), QStringLiteral("--components"), QStringLiteral("--split"),
                  QStringLiteral("-o"), heads});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    QSvgRenderer renderer(heads);
    ASSERT_TRUE(renderer.isValid());
    image = QImage(renderer.defaultSize(), QImage::Format_RGB32);
    image.fill(Qt::white);
    QPainter painter(&image);
    renderer.render(&painter);
    painter.end();
    for (const QRgb colour : {blue, orange, green}) EXPECT_GT(pixelsOf(image, colour), 50) << QColor(colour).name().toStdString();
    const QString svgText = QString::fromUtf8(readAll(heads));
    for (const char* name : {"A(1): sliding window (w = 6)", "A(2): global (g = 2)", "A(3): random (r = 3)"})
        EXPECT_TRUE(svgText.contains(QString::fromUtf8(name))) << name;
}

TEST_F(FigureCommandTest, BlockViewIsWrittenWithItsCounts) {
    // BigBird's block mode at n = 1024 in blocks of 64: 16 × 16 blocks, each full or empty, tinted orange
    // where full; the counts are printed beside nnz.
    const QString out = path(QStringLiteral("blocks.svg"));
    const ProcessRun result = run({QStringLiteral("figure"), QStringLiteral("pattern"), QStringLiteral("--variant"), QStringLiteral("bigbird"),
                                   QStringLiteral("--set"), QStringLiteral("block=64"), QStringLiteral("--set"), QStringLiteral("window=3"),
                                   QStringLiteral("--set"), QStringLiteral("globals=1"), QStringLiteral("--n"), QStringLiteral("1024"),
                                   QStringLiteral("--blocks"), QStringLiteral("64"), QStringLiteral("-o"), out});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    const QString svgText = QString::fromUtf8(readAll(out));
    EXPECT_TRUE(svgText.contains(QStringLiteral("blocks 64 × 64:"))) << "the counts line";
    EXPECT_TRUE(svgText.contains(QStringLiteral("0 partial"))) << "block-mode BigBird has no partial block of its own size";
    EXPECT_TRUE(svgText.contains(QStringLiteral("computed ÷ allowed cells: 1.00")));
}

// The grid view from the command line: the query cell chosen with --query, on the pattern and reach
// figures, and every grid preset.
TEST_F(FigureCommandTest, GridViewsAndGridPresetsAreWritten) {
    for (const QString& view : {QStringLiteral("pattern"), QStringLiteral("reach")}) {
        const QString out = path(view + QStringLiteral("-grid.png"));
        const ProcessRun result = run({QStringLiteral("figure"), view, QStringLiteral("--variant"), QStringLiteral("custom"), QStringLiteral("--set"),
                                       QStringLiteral("expr=neighborhood(3) | same_col"), QStringLiteral("--grid"), QStringLiteral("3,6,5"),
                                       QStringLiteral("--order"), QStringLiteral("morton"), QStringLiteral("--query"), QStringLiteral("17"),
                                       QStringLiteral("-o"), out});
        EXPECT_EQ(result.exitCode, 0) << result.err.toStdString();
        EXPECT_FALSE(QImage(out).isNull());
    }
    for (const char* preset : {"sparse-transformer-image", "sparse-transformer-image-reach", "natten", "swin", "axial", "sliding-tile-raster",
                               "sliding-tile", "neighbourhood-orders"}) {
        SCOPED_TRACE(preset);
        const QString out = path(QStringLiteral("%1.svg").arg(QLatin1String(preset)));
        const ProcessRun result = run({QStringLiteral("figure"), QStringLiteral("--preset"), QLatin1String(preset), QStringLiteral("-o"), out});
        EXPECT_EQ(result.exitCode, 0) << result.err.toStdString();
        EXPECT_TRUE(result.err.isEmpty()) << result.err.toStdString();
        // Named by the problem's grid in the caption.
        EXPECT_TRUE(QString::fromUtf8(readAll(out)).contains(QStringLiteral("grid="))) << "no grid in the caption";
    }
}

// The timing and FLOP figures over image sizes with the block kernel's cost, read back from their CSV:
// each timing row names its image, the block prediction fitted beside the cost model's; the FLOP CSV
// counts the blocks at the size asked.
TEST_F(FigureCommandTest, TimingAndFlopsOverImageSizesWithTheBlockCost) {
    const QString timing = path(QStringLiteral("timing.csv")), flops = path(QStringLiteral("flops.csv"));
    const QStringList grid = {QStringLiteral("--variant"), QStringLiteral("custom"), QStringLiteral("--set"), QStringLiteral("expr=neighborhood(3)"),
                              QStringLiteral("--grid"), QStringLiteral("8,8"), QStringLiteral("--d"), QStringLiteral("16")};
    ProcessRun result = run(QStringList{QStringLiteral("figure"), QStringLiteral("timing")} + grid +
                            QStringList{QStringLiteral("--timing-max-n"), QStringLiteral("256"), QStringLiteral("--block-cost"), QStringLiteral("16"),
                                        QStringLiteral("-o"), timing});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    const guitest::CsvTable times = guitest::readCsv(QString::fromUtf8(readAll(timing)));
    const auto column = [&](const guitest::CsvTable& table, const char* name) { return table.header.indexOf(QString::fromLatin1(name)); };
    ASSERT_EQ(times.rows.size(), 3u); // 8×8, 12×12, 16×16
    const QStringList images = {QStringLiteral("8,8"), QStringLiteral("12,12"), QStringLiteral("16,16")};
    for (std::size_t k = 0; k < times.rows.size(); ++k) {
        const QStringList& row = times.rows[k];
        EXPECT_EQ(row[column(times, "grid")], images[static_cast<qsizetype>(k)]);
        EXPECT_EQ(row[column(times, "block_size")], QStringLiteral("16"));
        EXPECT_GE(row[column(times, "block_macs")].toDouble(), row[column(times, "macs")].toDouble());
        EXPECT_GT(row[column(times, "block_predicted_s")].toDouble(), 0.0);
    }
    result = run(QStringList{QStringLiteral("figure"), QStringLiteral("flops")} + grid +
                 QStringList{QStringLiteral("--block-cost"), QStringLiteral("16"), QStringLiteral("-o"), flops});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    const QString text = QString::fromUtf8(readAll(flops));
    EXPECT_TRUE(text.contains(QStringLiteral("block_kernel_at_n,custom,64,block_size,16,cells"))) << text.toStdString();
    EXPECT_TRUE(text.contains(QStringLiteral("block_kernel_at_n,custom,64,allowed_cells,576,cells")));
}

// --flop-layer standard costs relu2 in the standard layer (its CSV has the FFN term and no GAU
// comparison); the default is FLASH's GAU layer.
TEST_F(FigureCommandTest, FlopLayerChoosesTheLayerOfTheFlashVariants) {
    const QString gau = path(QStringLiteral("gau.csv")), standard = path(QStringLiteral("standard.csv"));
    const QStringList shape = {QStringLiteral("figure"), QStringLiteral("flops"), QStringLiteral("--variant"), QStringLiteral("relu2"),
                               QStringLiteral("--n"), QStringLiteral("512"), QStringLiteral("--heads"), QStringLiteral("12")};
    ProcessRun result = run(shape + QStringList{QStringLiteral("-o"), gau});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    result = run(shape + QStringList{QStringLiteral("--flop-layer"), QStringLiteral("standard"), QStringLiteral("-o"), standard});
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    const QString inGau = QString::fromUtf8(readAll(gau)), inStandard = QString::fromUtf8(readAll(standard));
    EXPECT_TRUE(inGau.contains(QStringLiteral("layer,relu2,512,uv_proj,"))) << inGau.toStdString();
    EXPECT_FALSE(inGau.contains(QStringLiteral(",ffn,")));
    // 2 · n · (hd) · 4hd at n = 512, hd = 768.
    EXPECT_TRUE(inStandard.contains(QStringLiteral("layer,relu2,512,ffn,2415919104,macs\n"))) << inStandard.toStdString();
    EXPECT_FALSE(inStandard.contains(QStringLiteral("uv_proj")));
    EXPECT_FALSE(inStandard.contains(QStringLiteral("gau_comparison")));
}

TEST_F(FigureCommandTest, BadInputFailsWithOneLineAndNoFile) {
    ASSERT_TRUE(QDir(dir.path()).mkdir(QStringLiteral("folder.png")));
    const QStringList before = files();
    const std::vector<std::pair<const char*, QStringList>> cases = {
        {"unknown view", {"figure", "nonesuch", "-o", path("x.png")}},
        {"no view", {"figure", "-o", path("x.png")}},
        {"unknown variant", {"figure", "pattern", "--variant", "nonesuch", "-o", path("x.png")}},
        {"unknown compared variant", {"figure", "pattern", "--compare", "full,nonesuch", "-o", path("x.png")}},
        {"one compared variant", {"figure", "pattern", "--compare", "full", "-o", path("x.png")}},
        {"bad extension", {"figure", "pattern", "-o", path("x.bmp")}},
        {"no extension", {"figure", "flops", "-o", path("x")}},
        {"missing directory", {"figure", "pattern", "-o", path("missing/x.png")}},
        {"a directory", {"figure", "pattern", "-o", path("folder.png")}},
        {"no output", {"figure", "pattern"}},
        {"invalid parameter", {"figure", "pattern", "--variant", "longformer", "--set", "window=-3", "-o", path("x.png")}},
        {"unknown parameter", {"figure", "pattern", "--set", "nonesuch=1", "-o", path("x.png")}},
        {"parameter no compared variant has", {"figure", "pattern", "--compare", "full,bigbird", "--set", "stride=4", "-o", path("x.png")}},
        {"dpi out of range", {"figure", "pattern", "--dpi", "5", "-o", path("x.png")}},
        {"n out of range", {"figure", "pattern", "--n", "0", "-o", path("x.png")}},
        {"unknown option", {"figure", "pattern", "--frobnicate", "-o", path("x.png")}},
        {"causal-only variant without --causal", {"figure", "pattern", "--variant", "xl", "-o", path("x.png")}},
        {"bidirectional-only variant with --causal", {"figure", "timing", "--variant", "linformer", "--causal", "-o", path("x.png")}},
        {"input scale not a number", {"figure", "accuracy", "--input-scale", "half", "-o", path("x.png")}},
        {"input scale out of range", {"figure", "accuracy", "--input-scale", "0", "-o", path("x.png")}},
        {"unknown error measure", {"figure", "accuracy", "--error-measure", "kl", "-o", path("x.png")}},
        {"kv heads not dividing heads", {"figure", "inference", "--heads", "4", "--kv-heads", "3", "-o", path("x.png")}},
        {"kv heads above heads", {"figure", "roofline", "--heads", "4", "--kv-heads", "8", "-o", path("x.png")}},
        {"memory budget not a size", {"figure", "inference", "--memory-budget", "lots", "-o", path("x.png")}},
        {"split without components", {"figure", "pattern", "--split", "-o", path("x.png")}},
        {"components with weights", {"figure", "pattern", "--components", "--weights", "-o", path("x.png")}},
        {"components of another view", {"figure", "reach", "--components", "-o", path("x.png")}},
        {"block size zero", {"figure", "pattern", "--blocks", "0", "-o", path("x.png")}},
        {"block size not a number", {"figure", "pattern", "--blocks", "big", "-o", path("x.png")}},
        {"blocks of another view", {"figure", "flops", "--blocks", "64", "-o", path("x.png")}},
        {"bad expression", {"figure", "pattern", "--variant", "custom", "--set", "expr=band(4) | blok(2)", "-o", path("x.png")}},
        {"query without a grid", {"figure", "pattern", "--query", "3", "-o", path("x.png")}},
        {"query not a number", {"figure", "pattern", "--grid", "8,8", "--query", "centre", "-o", path("x.png")}},
        {"query negative", {"figure", "pattern", "--grid", "8,8", "--query", "-1", "-o", path("x.png")}},
        {"query past the grid", {"figure", "reach", "--grid", "8,8", "--query", "64", "-o", path("x.png")}},
        {"query of another view", {"figure", "flops", "--grid", "8,8", "--query", "3", "-o", path("x.png")}},
        {"query past a preset's grid", {"figure", "--preset", "swin", "--query", "64", "-o", path("x.png")}},
        {"block cost zero", {"figure", "flops", "--block-cost", "0", "-o", path("x.png")}},
        {"block cost not a number", {"figure", "timing", "--block-cost", "wide", "-o", path("x.png")}},
        {"block cost of another view", {"figure", "pattern", "--block-cost", "64", "-o", path("x.png")}},
        {"flop layer not a layer", {"figure", "flops", "--variant", "relu2", "--flop-layer", "ffn", "-o", path("x.png")}},
        {"flop layer empty", {"figure", "flops", "--variant", "relu2", "--flop-layer", "", "-o", path("x.png")}},
        {"flop layer of a variant without a GAU layer", {"figure", "flops", "--variant", "full", "--flop-layer", "gau", "-o", path("x.png")}},
        {"flop layer of another view", {"figure", "timing", "--variant", "relu2", "--flop-layer", "standard", "-o", path("x.png")}},
        {"panel order without a grid", {"figure", "pattern", "--panel", "full order=morton", "--panel", "full", "-o", path("x.png")}},
        {"panel order not an order", {"figure", "pattern", "--grid", "8,8", "--panel", "full order=spiral", "--panel", "full", "-o", path("x.png")}},
        {"panel tiles not dividing", {"figure", "pattern", "--grid", "8,8", "--panel", "full", "--panel", "full order=tiles:3,3", "-o", path("x.png")}},
        {"panel order twice", {"figure", "pattern", "--grid", "8,8", "--panel", "full order=morton order=raster", "--panel", "full", "-o", path("x.png")}},
        {"panel order empty", {"figure", "pattern", "--grid", "8,8", "--panel", "full order=", "--panel", "full", "-o", path("x.png")}},
    };
    for (const auto& [name, arguments] : cases) {
        SCOPED_TRACE(name);
        expectOneLineError(run(arguments));
        EXPECT_EQ(files(), before) << "a file was left behind";
    }
}

// `figure` refuses what `pattern` refuses, with the same line.
TEST_F(FigureCommandTest, CausalRulesAreThoseOfPattern) {
    const ProcessRun figure = run({QStringLiteral("figure"), QStringLiteral("pattern"), QStringLiteral("--variant"), QStringLiteral("xl"),
                                   QStringLiteral("-o"), path(QStringLiteral("xl.png"))});
    const ProcessRun pattern = run({QStringLiteral("pattern"), QStringLiteral("--variant"), QStringLiteral("xl"), QStringLiteral("--n"),
                                    QStringLiteral("64"), QStringLiteral("--out"), path(QStringLiteral("xl.npy"))});
    EXPECT_EQ(figure.exitCode, 2);
    EXPECT_EQ(figure.err, pattern.err);
    EXPECT_TRUE(files().isEmpty());
}

} // namespace
} // namespace attnlab
