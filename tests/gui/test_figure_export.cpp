// Figure export in-process: PNG at the DPI asked (and the default 300) with the screen's pixels, SVG
// that parses and names the run's parameters in <title>/<desc>, PDF with its magic and XMP metadata,
// CSV with a header and one row per datum, and atomic writes that leave nothing behind on failure.

#include "gui/pixel_colors.h"
#include "views/figures/figure_export.h"
#include "views/figures/flops_view.h"
#include "views/figures/pattern_view.h"
#include "views/plot/colormap.h"

#include "core/errors.h"
#include "core/patterns/pattern.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <QApplication>
#include <QDir>
#include <QFile>
#include <QPainter>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <QXmlStreamReader>

#include <cmath>
#include <cstdlib>
#include <memory>
#include <string>

namespace attnlab {
namespace {

constexpr int kIdleTimeoutMs = 60000;
constexpr double kMetersPerInch = 0.0254;

using guitest::sameColor;

QByteArray readAll(const QString& path) {
    QFile file(path);
    return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

void writeText(const QString& path, const QByteArray& bytes) {
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::WriteOnly));
    file.write(bytes);
}

// The text of the SVG's top-level <title> and <desc>, or an error text when the XML does not parse.
struct SvgMetadata {
    QString title, description, error;
};

SvgMetadata svgMetadata(const QByteArray& svg) {
    SvgMetadata metadata;
    QXmlStreamReader xml(svg);
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement()) continue;
        if (xml.name() == QLatin1String("title") && metadata.title.isEmpty()) metadata.title = xml.readElementText();
        else if (xml.name() == QLatin1String("desc") && metadata.description.isEmpty()) metadata.description = xml.readElementText();
    }
    if (xml.hasError()) metadata.error = xml.errorString() + QStringLiteral(" at line %1").arg(xml.lineNumber());
    return metadata;
}

LabSettings longformerSettings() {
    LabSettings settings;
    settings.variant = "longformer";
    settings.params = {{"window", "8"}, {"globals", "0,5"}};
    settings.n = 32;
    settings.d = 32;
    settings.heads = 2;
    settings.causal = true;
    return settings;
}

class FigureExportTest : public ::testing::Test {
protected:
    void SetUp() override {
        ASSERT_TRUE(dir.isValid());
        pattern.resize(900, 600);
        pattern.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&pattern));
        show(longformerSettings());
    }

    void show(const LabSettings& settings) {
        pattern.setSettings(settings);
        ASSERT_TRUE(waitUntilIdle({&pattern}, kIdleTimeoutMs));
        ASSERT_TRUE(pattern.errorText().isEmpty()) << pattern.errorText().toStdString();
    }

    QString path(const QString& name) const { return dir.filePath(name); }

    QTemporaryDir dir;
    PatternView pattern;
};

TEST_F(FigureExportTest, PngRecordsTheDpiAskedAndDefaultsTo300) {
    const QSizeF size(900, 600);
    ExportOptions options;
    EXPECT_EQ(options.dpi, 300.0);
    options.size = size;
    for (const double dpi : {300.0, 150.0, 72.0}) {
        SCOPED_TRACE(dpi);
        const QString file = path(QStringLiteral("figure_%1.png").arg(dpi));
        ExportOptions asked = options;
        if (dpi != 300.0) asked.dpi = dpi; // 300 comes from the default
        exportFigure(pattern, file, asked);
        const QByteArray bytes = readAll(file);
        ASSERT_TRUE(bytes.startsWith("\x89PNG\r\n\x1a\n"));
        QImage image;
        ASSERT_TRUE(image.loadFromData(bytes, "PNG"));
        EXPECT_NEAR(image.dotsPerMeterX(), dpi / kMetersPerInch, 1.0);
        EXPECT_NEAR(image.dotsPerMeterY(), dpi / kMetersPerInch, 1.0);
        EXPECT_EQ(image.width(), std::lround(size.width() * dpi / 96.0));
        EXPECT_EQ(image.height(), std::lround(size.height() * dpi / 96.0));
    }
}

TEST_F(FigureExportTest, PngAt96DpiHasTheScreensPixels) {
    const QImage screen = pattern.grab().toImage().convertToFormat(QImage::Format_RGB32);
    const QImage exported = renderFigure(pattern, QSizeF(pattern.size()), 96.0).convertToFormat(QImage::Format_RGB32);
    ASSERT_EQ(screen.size(), exported.size());
    qint64 different = 0;
    for (int y = 0; y < screen.height(); ++y)
        for (int x = 0; x < screen.width(); ++x) different += sameColor(screen.pixel(x, y), exported.pixel(x, y), 24) ? 0 : 1;
    // Text rasterisation may differ by a pixel here and there; the figure itself must not.
    EXPECT_LT(static_cast<double>(different) / (screen.width() * screen.height()), 0.005) << different << " pixels differ";
}

TEST_F(FigureExportTest, SvgParsesAndNamesTheRunParameters) {
    const QString file = path(QStringLiteral("figure.svg"));
    ExportOptions options;
    options.size = QSizeF(pattern.size());
    exportFigure(pattern, file, options);
    const QByteArray svg = readAll(file);
    const SvgMetadata metadata = svgMetadata(svg);
    ASSERT_TRUE(metadata.error.isEmpty()) << metadata.error.toStdString();
    EXPECT_EQ(metadata.title, pattern.title());
    EXPECT_EQ(svg.count("<title>"), 1);
    EXPECT_EQ(svg.count("<desc>"), 1);
    for (const char* item : {"variant=longformer", "window=8", "globals=0,5", "n=32", "d=32", "h=2", "causal=yes"})
        EXPECT_TRUE(metadata.description.contains(QLatin1String(item))) << item << " missing from <desc>: " << metadata.description.toStdString();

    QSvgRenderer renderer(svg);
    ASSERT_TRUE(renderer.isValid());
    // Drawn back at the same size the SVG shows the same pattern as the screen.
    QImage image(pattern.size(), QImage::Format_RGB32);
    image.fill(Qt::white);
    {
        QPainter painter(&image);
        renderer.render(&painter, QRectF(QPointF(0, 0), QSizeF(pattern.size())));
    }
    const LabSettings settings = longformerSettings();
    const VariantInfo& variant = requireVariant(settings.variant);
    const ProblemShape shape = problemShape(settings, variant);
    const auto reference = buildPattern(variant, shape, prepareParams(variant, shape, settings.params));
    PlaneViewport viewport = pattern.viewport();
    viewport.setPlot(pattern.plotRect(QRectF(pattern.rect()), 0));
    int checked = 0;
    for (std::int64_t i = 0; i < settings.n; i += 3)
        for (std::int64_t j = 0; j < settings.n; j += 2) {
            const QPointF centre = viewport.cellRect({i, j}).center();
            const QRgb colour = image.pixel(centre.toPoint());
            const QRgb expected = reference->allowed(i, j) ? densityColor(1.0) : emptyCellColor();
            EXPECT_TRUE(sameColor(colour, expected, 6)) << "cell (" << i << ", " << j << ") is " << QColor(colour).name().toStdString();
            ++checked;
        }
    EXPECT_GT(checked, 100);
}

TEST_F(FigureExportTest, SvgStaysValidWhenParametersHoldMarkup) {
    LabSettings settings = longformerSettings();
    settings.source = InputSource::NpyFiles;
    settings.qPath = "/tmp/no such <dir>/q&k\".npy";
    pattern.setSettings(settings);
    ASSERT_TRUE(waitUntilIdle({&pattern}, kIdleTimeoutMs));
    const QString file = path(QStringLiteral("markup.svg"));
    exportFigure(pattern, file, ExportOptions{});
    const QByteArray svg = readAll(file);
    const SvgMetadata metadata = svgMetadata(svg);
    ASSERT_TRUE(metadata.error.isEmpty()) << metadata.error.toStdString();
    EXPECT_TRUE(metadata.description.contains(QString::fromStdString(settings.qPath))) << metadata.description.toStdString();
    EXPECT_TRUE(QSvgRenderer(svg).isValid());
}

TEST_F(FigureExportTest, PdfHasItsMagicAndTheRunParametersInItsMetadata) {
    const QString file = path(QStringLiteral("figure.pdf"));
    exportFigure(pattern, file, ExportOptions{});
    const QByteArray pdf = readAll(file);
    ASSERT_TRUE(pdf.startsWith("%PDF-")) << pdf.left(16).toStdString();
    EXPECT_TRUE(pdf.trimmed().endsWith("%%EOF"));
    const int metadata = pdf.indexOf("<x:xmpmeta");
    ASSERT_GE(metadata, 0) << "no XMP metadata";
    const QByteArray xmp = pdf.mid(metadata, pdf.indexOf("</x:xmpmeta>", metadata) - metadata);
    for (const char* item : {"variant=longformer", "window=8", "globals=0,5", "n=32", "causal=yes"})
        EXPECT_TRUE(xmp.contains(item)) << item << " missing from the PDF metadata";
    EXPECT_TRUE(xmp.contains(pattern.title().toHtmlEscaped().toUtf8()));
}

TEST_F(FigureExportTest, PatternCsvHasAHeaderAndOneRowPerQuery) {
    const QString file = path(QStringLiteral("pattern.csv"));
    exportFigure(pattern, file, ExportOptions{});
    const QStringList lines = QString::fromUtf8(readAll(file)).split('\n', Qt::SkipEmptyParts);
    const LabSettings settings = longformerSettings();
    ASSERT_EQ(lines.size(), settings.n + 1);
    EXPECT_EQ(lines.front(), QStringLiteral("panel,variant,query_i,query_token,allowed_count,allowed_ranges"));
    const VariantInfo& variant = requireVariant(settings.variant);
    const ProblemShape shape = problemShape(settings, variant);
    const auto reference = buildPattern(variant, shape, prepareParams(variant, shape, settings.params));
    for (std::int64_t i = 0; i < settings.n; ++i) {
        const QStringList fields = lines[static_cast<int>(i) + 1].split(',');
        ASSERT_EQ(fields.size(), 6) << lines[static_cast<int>(i) + 1].toStdString();
        EXPECT_EQ(fields[0], QStringLiteral("1"));
        EXPECT_EQ(fields[1], QStringLiteral("longformer"));
        EXPECT_EQ(fields[2].toLongLong(), i);
        EXPECT_EQ(fields[3], QString()) << "no tokens, no query token";
        EXPECT_EQ(fields[4].toLongLong(), reference->rowCount(i));
        // The ranges list exactly the allowed keys.
        std::int64_t covered = 0;
        for (const QString& range : fields[5].split(';', Qt::SkipEmptyParts)) {
            const QStringList ends = range.split('-');
            ASSERT_EQ(ends.size(), 2);
            for (std::int64_t j = ends[0].toLongLong(); j <= ends[1].toLongLong(); ++j, ++covered)
                EXPECT_TRUE(reference->allowed(i, j)) << "row " << i << " lists masked key " << j;
        }
        EXPECT_EQ(covered, reference->rowCount(i));
    }
}

TEST_F(FigureExportTest, FlopsExportsEveryFormat) {
    FlopsView flops;
    flops.resize(900, 600);
    flops.show();
    flops.setSettings(longformerSettings());
    ASSERT_TRUE(waitUntilIdle({&flops}, kIdleTimeoutMs));
    exportFigure(flops, path(QStringLiteral("flops.csv")), ExportOptions{});
    const QStringList lines = QString::fromUtf8(readAll(path(QStringLiteral("flops.csv")))).split('\n', Qt::SkipEmptyParts);
    ASSERT_GT(lines.size(), 10);
    const int columns = static_cast<int>(lines.front().split(',').size());
    EXPECT_GE(columns, 2);
    for (const QString& line : lines) EXPECT_EQ(line.split(',').size(), columns) << line.toStdString();
    exportFigure(flops, path(QStringLiteral("flops.svg")), ExportOptions{});
    const SvgMetadata metadata = svgMetadata(readAll(path(QStringLiteral("flops.svg"))));
    ASSERT_TRUE(metadata.error.isEmpty()) << metadata.error.toStdString();
    EXPECT_TRUE(metadata.description.contains(QStringLiteral("variant=longformer")));
    exportFigure(flops, path(QStringLiteral("flops.pdf")), ExportOptions{});
    EXPECT_TRUE(readAll(path(QStringLiteral("flops.pdf"))).startsWith("%PDF-"));
    exportFigure(flops, path(QStringLiteral("flops.png")), ExportOptions{});
    QImage png(path(QStringLiteral("flops.png")));
    ASSERT_FALSE(png.isNull());
    EXPECT_NEAR(png.dotsPerMeterX(), 300 / kMetersPerInch, 1.0);
}

TEST_F(FigureExportTest, FailedExportsLeaveNoFileBehind) {
    const QString missingDirectory = path(QStringLiteral("missing/figure.png"));
    try {
        exportFigure(pattern, missingDirectory, ExportOptions{});
        FAIL() << "exporting into a missing directory succeeded";
    } catch (const InputError& error) {
        EXPECT_TRUE(QString::fromUtf8(error.what()).contains(missingDirectory)) << error.what();
        EXPECT_EQ(QString::fromUtf8(error.what()).count('\n'), 0);
    }
    EXPECT_FALSE(QFileInfo::exists(path(QStringLiteral("missing"))));
    EXPECT_THROW(exportFigure(pattern, path(QStringLiteral("figure.bmp")), ExportOptions{}), InputError);

    // A failed export keeps an existing file as it was; a successful one replaces it whole.
    const QString existing = path(QStringLiteral("kept.png"));
    writeText(existing, "previous contents");
    ExportOptions badDpi;
    badDpi.dpi = 5;
    EXPECT_THROW(exportFigure(pattern, existing, badDpi), InputError);
    EXPECT_EQ(readAll(existing), QByteArray("previous contents"));
    exportFigure(pattern, existing, ExportOptions{});
    EXPECT_FALSE(QImage(existing).isNull());

    // Only the files asked for: no temporaries left over.
    const QStringList entries = QDir(dir.path()).entryList(QDir::Files | QDir::Hidden);
    EXPECT_EQ(entries, QStringList{QStringLiteral("kept.png")});
}

} // namespace
} // namespace attnlab
