#include "views/figures/figure_export.h"

#include "views/figures/figure_view.h"
#include "views/figures/svg_text_anchors.h"
#include "views/figures/tikz_export.h"
#include "views/plot/animation_frame.h"

#include "core/errors.h"

#include <QBuffer>
#include <QClipboard>
#include <QCoreApplication>
#include <QDeadlineTimer>
#include <QFileInfo>
#include <QGuiApplication>
#include <QPainter>
#include <QPdfWriter>
#include <QSvgGenerator>
#include <QThread>

#include <cmath>

namespace attnlab {

namespace {

constexpr double kLogicalDpi = 96.0;
constexpr double kMetersPerInch = 0.0254;

// The figure into `rect`; an animation's frame first puts its swept value above it (animation_frame.h).
void paintExported(const FigureView& view, QPainter& painter, const QRectF& rect) {
    view.paintFigure(painter, paintAnimationLabel(painter, rect));
}

[[noreturn]] void fail(const QString& path, const QString& why) {
    throw InputError("cannot export '" + path.toStdString() + "': " + why.toStdString());
}

QByteArray renderPng(const FigureView& view, const QString& path, const ExportOptions& options) {
    const QImage image = renderFigure(view, options.size, options.dpi);
    if (image.isNull())
        fail(path, QCoreApplication::translate("attnlab::FigureView", "%1 × %2 pixels is too large an image (lower the dpi or the size)")
                       .arg(std::ceil(options.size.width() * options.dpi / kLogicalDpi))
                       .arg(std::ceil(options.size.height() * options.dpi / kLogicalDpi)));
    return encodePng(path, image);
}

// QSvgGenerator writes its title and description unescaped, so a '<' or '&' in a parameter or a file
// name would break the XML: it gets these placeholders, replaced by the escaped text afterwards.
constexpr const char* kSvgTitleMark = "attnlab-svg-title-placeholder";
constexpr const char* kSvgDescriptionMark = "attnlab-svg-description-placeholder";

QByteArray renderSvg(const FigureView& view, const ExportOptions& options) {
    QBuffer buffer;
    buffer.open(QIODevice::WriteOnly);
    QSvgGenerator generator;
    generator.setOutputDevice(&buffer);
    generator.setSize(options.size.toSize());
    generator.setViewBox(QRectF(QPointF(0, 0), options.size));
    generator.setResolution(static_cast<int>(kLogicalDpi));
    generator.setTitle(QString::fromLatin1(kSvgTitleMark));
    generator.setDescription(QString::fromLatin1(kSvgDescriptionMark));
    {
        QPainter painter(&generator);
        painter.setRenderHint(QPainter::Antialiasing);
        view.paintFigure(painter, QRectF(QPointF(0, 0), options.size));
    }
    QByteArray svg = anchorSvgText(buffer.data(), options.size, [&view, &options](QPainter& painter) {
        view.paintFigure(painter, QRectF(QPointF(0, 0), options.size));
    });
    svg.replace(kSvgTitleMark, view.title().toHtmlEscaped().toUtf8());
    svg.replace(kSvgDescriptionMark, view.caption().toHtmlEscaped().toUtf8());
    return svg;
}

// XMP packet with the title and the run's parameters (the caption) as dc:title and dc:description.
QByteArray xmpMetadata(const QString& title, const QString& description) {
    const QString alt = QStringLiteral("<rdf:Alt><rdf:li xml:lang=\"x-default\">%1</rdf:li></rdf:Alt>");
    const QString packet =
        QStringLiteral("<?xpacket begin=\"\uFEFF\" id=\"W5M0MpCehiHzreSzNTczkc9d\"?>\n"
                       "<x:xmpmeta xmlns:x=\"adobe:ns:meta/\">\n"
                       " <rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\">\n"
                       "  <rdf:Description rdf:about=\"\" xmlns:dc=\"http://purl.org/dc/elements/1.1/\"\n"
                       "                   xmlns:xmp=\"http://ns.adobe.com/xap/1.0/\" xmlns:pdf=\"http://ns.adobe.com/pdf/1.3/\">\n"
                       "   <dc:title>%1</dc:title>\n"
                       "   <dc:description>%2</dc:description>\n"
                       "   <dc:creator><rdf:Seq><rdf:li>attnlab</rdf:li></rdf:Seq></dc:creator>\n"
                       "   <xmp:CreatorTool>attnlab</xmp:CreatorTool>\n"
                       "   <pdf:Producer>attnlab</pdf:Producer>\n"
                       "  </rdf:Description>\n"
                       " </rdf:RDF>\n"
                       "</x:xmpmeta>\n"
                       "<?xpacket end=\"w\"?>")
            .arg(alt.arg(title.toHtmlEscaped()), alt.arg(description.toHtmlEscaped()));
    return packet.toUtf8();
}

QByteArray renderPdf(const FigureView& view, const ExportOptions& options) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    {
        QPdfWriter writer(&buffer);
        writer.setTitle(view.title());
        writer.setCreator(QStringLiteral("attnlab"));
        writer.setDocumentXmpMetadata(xmpMetadata(view.title(), view.caption()));
        const QSizeF points = options.size * (72.0 / kLogicalDpi);
        writer.setPageSize(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch));
        writer.setPageMargins(QMarginsF(0, 0, 0, 0));
        // Vector output: a 96-dpi page makes one painter unit one logical pixel, as on screen.
        writer.setResolution(static_cast<int>(kLogicalDpi));
        QPainter painter(&writer);
        painter.setRenderHint(QPainter::Antialiasing);
        // Without it Qt may store images as JPEG (DCTDecode): colour fringes on cell edges.
        painter.setRenderHint(QPainter::LosslessImageRendering);
        paintExported(view, painter, QRectF(QPointF(0, 0), options.size));
    }
    return bytes;
}

WholeFile wholeFile(const QString& path, const QByteArray& bytes) {
    return WholeFile{"the figure", path.toStdString(), bytes.toStdString()};
}

} // namespace

QByteArray encodePng(const QString& path, const QImage& image) {
    QByteArray bytes;
    QBuffer buffer(&bytes);
    buffer.open(QIODevice::WriteOnly);
    if (!image.save(&buffer, "PNG")) fail(path, QCoreApplication::translate("attnlab::FigureView", "PNG encoding failed"));
    return bytes;
}

ExportFormat exportFormatOf(const QString& path) {
    const QString suffix = QFileInfo(path).suffix().toLower();
    if (suffix == QLatin1String("png")) return ExportFormat::Png;
    if (suffix == QLatin1String("svg")) return ExportFormat::Svg;
    if (suffix == QLatin1String("pdf")) return ExportFormat::Pdf;
    if (suffix == QLatin1String("tex")) return ExportFormat::Tex;
    if (suffix == QLatin1String("csv")) return ExportFormat::Csv;
    throw InputError("cannot export '" + path.toStdString() + "': the extension must be .png, .svg, .pdf, .tex or .csv");
}

QImage renderFigure(const FigureView& view, const QSizeF& size, double dpi) {
    const double scale = dpi / kLogicalDpi;
    QImage image((size * scale).toSize(), QImage::Format_ARGB32_Premultiplied);
    if (image.isNull()) return image; // too large to allocate
    image.fill(Qt::white);
    // Painted as a 96-dpi device scaled up, so point-sized fonts keep their screen proportions; the
    // requested physical resolution is recorded only once the pixels are final.
    auto setDpi = [&image](double dotsPerInch) {
        const int dotsPerMeter = static_cast<int>(std::lround(dotsPerInch / kMetersPerInch));
        image.setDotsPerMeterX(dotsPerMeter);
        image.setDotsPerMeterY(dotsPerMeter);
    };
    setDpi(kLogicalDpi);
    {
        QPainter painter(&image);
        painter.setRenderHint(QPainter::Antialiasing);
        painter.setRenderHint(QPainter::TextAntialiasing);
        painter.scale(scale, scale);
        paintExported(view, painter, QRectF(QPointF(0, 0), size));
    }
    setDpi(dpi);
    return image;
}

std::vector<WholeFile> renderExport(const FigureView& view, const QString& path, const ExportOptions& options) {
    if (!(options.dpi >= 10 && options.dpi <= 2400))
        throw InputError("cannot export '" + path.toStdString() + "': dpi must be in [10, 2400]");
    switch (exportFormatOf(path)) {
    case ExportFormat::Png: return {wholeFile(path, renderPng(view, path, options))};
    case ExportFormat::Svg: return {wholeFile(path, renderSvg(view, options))};
    case ExportFormat::Pdf: return {wholeFile(path, renderPdf(view, options))};
    case ExportFormat::Tex: return tikzFigureFiles(view, path, options.size);
    case ExportFormat::Csv: return {wholeFile(path, view.csvData().toUtf8())};
    }
    return {};
}

void exportFigure(const FigureView& view, const QString& path, const ExportOptions& options, const std::vector<NamedPath>& inputs) {
    requireReplaceableTarget(path.toStdString());
    writeWholeFiles(renderExport(view, path, options), inputs);
}

void copyFigureToClipboard(const FigureView& view, const QSizeF& size) {
    QGuiApplication::clipboard()->setImage(renderFigure(view, size, 2 * kLogicalDpi));
}

bool waitUntilIdle(const QList<const FigureView*>& views, int timeoutMs) {
    const QDeadlineTimer deadline(timeoutMs);
    auto anyBusy = [&views] {
        for (const FigureView* view : views)
            if (view->busy()) return true;
        return false;
    };
    // Idle passes spanning more than one repaint batch (≤ 40 ms) let queued results and repaints land.
    int idlePasses = 0;
    while (idlePasses < 6) {
        if (deadline.hasExpired()) return false;
        QCoreApplication::processEvents(QEventLoop::AllEvents, 20);
        idlePasses = anyBusy() ? 0 : idlePasses + 1;
        QThread::msleep(10);
    }
    return true;
}

} // namespace attnlab

