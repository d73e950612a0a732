#pragma once

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

// Writes the figure to `path` in the format its extension names, through paintFigure (CSV: csvData).
// The file appears atomically (temporary + rename); errors throw InputError with one line.
void exportFigure(const FigureView& view, const QString& path, const ExportOptions& options);

// Puts the figure on the clipboard as an image (at 2× for sharp pasting).
void copyFigureToClipboard(const FigureView& view, const QSizeF& size);

// Runs the event loop until no view is busy and queued repaints have run, or `timeoutMs` passes.
// Returns false on timeout.
bool waitUntilIdle(const QList<const FigureView*>& views, int timeoutMs);

} // namespace attnlab
