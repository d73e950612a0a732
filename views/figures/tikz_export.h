#pragma once

#include "core/io/output_file.h"

#include <QSizeF>
#include <QString>

namespace attnlab {

class FigureView;

// The figure as a standalone LaTeX document holding one TikZ picture, painted through the view's
// paintFigure() like every other export: shapes become \fill / \draw paths (the pattern's cells the
// same merged rectangles as SVG and PDF), text becomes nodes set in the document's fonts at the
// figure's sizes, so a lecturer restyles it with the paper's fonts. The picture defines its own colours,
// so it can be \input (standalone package) or copied into a document beside others; a figure with
// Chinese text loads ctex and names xelatex and lualatex in its header. A raster part (a pattern beyond the
// vector limit) is written beside the .tex as NAME-imageK.png and included with interpolation off.
// Returns the files to write: the side images, then the document at `path`; errors throw InputError.
std::vector<WholeFile> tikzFigureFiles(const FigureView& view, const QString& path, const QSizeF& size);

// Text as LaTeX source: special characters escaped, the figures' symbols (≤, ×, √, φ, …) in math mode.
QString latexEscaped(const QString& text);

} // namespace attnlab
