#pragma once

#include "core/io/output_file.h"

#include <QImage>
#include <QList>
#include <QSizeF>
#include <QString>

namespace attnlab {

class FigureView;

struct ExportOptions {
    double dpi = 300;                 // PNG resolution; also written into the PNG (pHYs)
    QSizeF size = QSizeF(900, 600);   // figure size in logical pixels at 96 dpi (96 px = 1 inch)
};

enum class ExportFormat { Png, Svg, Pdf, Tex, Csv };

// Format from the file name's extension (.png, .svg, .pdf, .tex, .csv); throws InputError otherwise.
ExportFormat exportFormatOf(const QString& path);

// The figure rendered by paintFigure at `dpi`, with that physical resolution recorded in the image;
// a null image when that many pixels cannot be allocated.
QImage renderFigure(const FigureView& view, const QSizeF& size, double dpi);

// The files an export to `path` writes, rendered in memory: the figure in the format its extension
// names, through paintFigure (CSV: csvData), and for TeX the raster images beside it.
std::vector<WholeFile> renderExport(const FigureView& view, const QString& path, const ExportOptions& options);

// `image` as PNG bytes; InputError naming `path` when encoding fails.
QByteArray encodePng(const QString& path, const QImage& image);

// Writes renderExport's files through writeWholeFiles: only regular files are replaced, never one of
// `inputs` (the files the figure was computed from), all files or none; errors throw InputError with one line.
void exportFigure(const FigureView& view, const QString& path, const ExportOptions& options,
                  const std::vector<NamedPath>& inputs = {});

// Puts the figure on the clipboard as an image (at 2× for sharp pasting).
void copyFigureToClipboard(const FigureView& view, const QSizeF& size);

// Runs the event loop until no view is busy and queued repaints have run, or `timeoutMs` passes.
// Returns false on timeout.
bool waitUntilIdle(const QList<const FigureView*>& views, int timeoutMs);

} // namespace attnlab
