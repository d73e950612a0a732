#include "views/figures/tikz_export.h"

#include "views/figures/figure_export.h"
#include "views/figures/figure_view.h"
#include "views/figures/tikz_paint_engine.h"

#include "core/errors.h"

#include <QDir>
#include <QFileInfo>
#include <QHash>
#include <QPainter>

#include <algorithm>

namespace attnlab {

namespace {

// The figures' symbols that pdflatex's default fonts lack, as LaTeX (math mode where needed).
const QHash<QChar, QString>& symbolTable() {
    static const QHash<QChar, QString> table = {
        {QChar(0x00B7), QStringLiteral("\\ensuremath{\\cdot}")},   {QChar(0x2212), QStringLiteral("\\ensuremath{-}")},
        {QChar(0x2264), QStringLiteral("\\ensuremath{\\leq}")},    {QChar(0x2265), QStringLiteral("\\ensuremath{\\geq}")},
        {QChar(0x00B2), QStringLiteral("\\textsuperscript{2}")},   {QChar(0x00B3), QStringLiteral("\\textsuperscript{3}")},
        {QChar(0x00D7), QStringLiteral("\\ensuremath{\\times}")},  {QChar(0x2016), QStringLiteral("\\ensuremath{\\|}")},
        {QChar(0x03C6), QStringLiteral("\\ensuremath{\\varphi}")}, {QChar(0x03B4), QStringLiteral("\\ensuremath{\\delta}")},
        {QChar(0x230A), QStringLiteral("\\ensuremath{\\lfloor}")}, {QChar(0x230B), QStringLiteral("\\ensuremath{\\rfloor}")},
        {QChar(0x2308), QStringLiteral("\\ensuremath{\\lceil}")},  {QChar(0x2309), QStringLiteral("\\ensuremath{\\rceil}")},
        {QChar(0x221A), QStringLiteral("\\ensuremath{\\surd}")},   {QChar(0x1D40), QStringLiteral("\\ensuremath{^{\\mathsf{T}}}")},
        {QChar(0x2227), QStringLiteral("\\ensuremath{\\wedge}")},  {QChar(0x2228), QStringLiteral("\\ensuremath{\\vee}")},
        {QChar(0x2026), QStringLiteral("\\ldots{}")},              {QChar(0x03A3), QStringLiteral("\\ensuremath{\\Sigma}")},
        {QChar(0x2208), QStringLiteral("\\ensuremath{\\in}")},     {QChar(0x2014), QStringLiteral("---")},
        {QChar(0x2013), QStringLiteral("--")},                     {QChar(0x2192), QStringLiteral("\\ensuremath{\\rightarrow}")},
        {QChar(0x2193), QStringLiteral("\\ensuremath{\\downarrow}")}, {QChar(0x03A9), QStringLiteral("\\ensuremath{\\Omega}")},
        {QChar(0x03C9), QStringLiteral("\\ensuremath{\\omega}")},  {QChar(0x03C3), QStringLiteral("\\ensuremath{\\sigma}")},
        {QChar(0x2248), QStringLiteral("\\ensuremath{\\approx}")}, {QChar(0x2261), QStringLiteral("\\ensuremath{\\equiv}")},
        {QChar(0x222A), QStringLiteral("\\ensuremath{\\cup}")},    {QChar(0x2081), QStringLiteral("\\ensuremath{_1}")},
        {QChar(0x207B), QStringLiteral("\\ensuremath{^-}")},       {QChar(0x00F7), QStringLiteral("\\ensuremath{\\div}")},
        {QChar(0x00B5), QStringLiteral("\\ensuremath{\\mu}")},     {QChar(0x03BC), QStringLiteral("\\ensuremath{\\mu}")},
        {QChar(0x00B1), QStringLiteral("\\ensuremath{\\pm}")},     {QChar(0x03B1), QStringLiteral("\\ensuremath{\\alpha}")},
        {QChar(0x03B2), QStringLiteral("\\ensuremath{\\beta}")},   {QChar(0x03BB), QStringLiteral("\\ensuremath{\\lambda}")},
        {QChar(0x2009), QStringLiteral("\\,")},                    {QChar(0x00A0), QStringLiteral("~")},
        {QChar(0x2032), QStringLiteral("\\ensuremath{'}")},        {QChar(0x2190), QStringLiteral("\\ensuremath{\\leftarrow}")},
        {QChar(0x2191), QStringLiteral("\\ensuremath{\\uparrow}")}, {QChar(0x221E), QStringLiteral("\\ensuremath{\\infty}")},
    };
    return table;
}


// Chinese text needs a TeX engine with system fonts and the ctex package; pdflatex cannot set it.
bool containsHan(const QString& text) {
    return std::any_of(text.begin(), text.end(), [](QChar c) { return c.script() == QChar::Script_Han; });
}

} // namespace

QString latexEscaped(const QString& text) {
    QString out;
    for (const QChar c : text) {
        switch (c.unicode()) {
        case '\\': out += QStringLiteral("\\textbackslash{}"); break;
        case '{': case '}': case '$': case '&': case '#': case '_': case '%': out += QLatin1Char('\\') + c; break;
        case '^': out += QStringLiteral("\\^{}"); break;
        case '~': out += QStringLiteral("\\~{}"); break;
        case '<': out += QStringLiteral("\\textless{}"); break;
        case '>': out += QStringLiteral("\\textgreater{}"); break;
        case '|': out += QStringLiteral("\\textbar{}"); break;
        case 0x0302: out += QStringLiteral("\\^{}"); break; // combining circumflex (q̂): drawn after its letter
        default: out += symbolTable().value(c, QString(c));
        }
    }
    return out;
}

std::vector<WholeFile> tikzFigureFiles(const FigureView& view, const QString& path, const QSizeF& size) {
    const QFileInfo info(path);
    const auto imageName = [&info](int index) { return info.completeBaseName() + QStringLiteral("-image%1.png").arg(index + 1); };
    TikzPaintDevice device(size);
    device.engine().setImageName(imageName);
    {
        QPainter painter(&device);
        view.paintFigure(painter, QRectF(QPointF(0, 0), size));
    }
    const TikzPaintEngine& engine = device.engine();
    std::vector<WholeFile> files;
    for (int index = 0; index < static_cast<int>(engine.images().size()); ++index) {
        const QString imagePath = info.dir().filePath(imageName(index));
        files.push_back({"the TeX side image", imagePath.toStdString(),
                         encodePng(imagePath, engine.images()[static_cast<std::size_t>(index)]).toStdString()});
    }
    const QString body = engine.body();
    const bool chinese = containsHan(view.title() + view.caption() + body);
    QString document;
    if (chinese) document += QStringLiteral("% !TEX program = xelatex\n");
    document += QStringLiteral("%% %1\n%% %2\n").arg(view.title(), view.caption().replace(QLatin1Char('\n'), QLatin1Char(' ')));
    document += chinese ? QStringLiteral("% Written by attnlab. Compiles with xelatex or lualatex (the ctex package sets the Chinese text).\n")
                        : QStringLiteral("% Written by attnlab. Compiles alone with pdflatex, xelatex or lualatex.\n");
    document += QStringLiteral("% In a document: load the packages below (%1) and \\usepackage{standalone}, then \\input this\n"
                               "% file (standalone skips this preamble); or copy the tikzpicture, which defines its own colours.\n")
                    .arg(chinese ? QStringLiteral("tikz, graphicx, amssymb, ctex") : QStringLiteral("tikz, graphicx, amssymb"));
    document += QStringLiteral("\\documentclass[tikz,border=0pt]{standalone}\n\\usepackage{graphicx}\n\\usepackage{amssymb}\n");
    if (chinese) document += QStringLiteral("\\usepackage{ctex}\n");
    // The colours are defined inside the picture: \definecolor is local to it, so figures that name
    // their colours alike sit in one document, and a preamble the standalone package skips loses none.
    document += QStringLiteral("\\begin{document}\n\\begin{tikzpicture}[x=0.75pt,y=-0.75pt]\n");
    for (const QString& line : engine.colourDefinitions()) document += line + QLatin1Char('\n');
    document += QStringLiteral("\\useasboundingbox (0,0) rectangle (%1,%2);\n").arg(size.width()).arg(size.height());
    document += body;
    document += QStringLiteral("\n\\end{tikzpicture}\n\\end{document}\n");
    files.push_back({"the figure", path.toStdString(), document.toUtf8().toStdString()});
    return files;
}

} // namespace attnlab
