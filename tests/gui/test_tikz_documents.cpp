// TikZ figures as parts of a lecturer's document: two figures \input into one article, Chinese figures
// under xelatex and lualatex, and text whose columns survive TeX's fonts. Where a TeX engine is missing,
// the files are checked for structure and the compile is skipped with a message.

#include "gui/figure_command_fixture.h"
#include "views/figures/tikz_paint_engine.h"

#include <gtest/gtest.h>

#include <QPainter>
#include <QRegularExpression>
#include <QStandardPaths>

#include <vector>

namespace attnlab {
namespace {

struct TexNode {
    QString anchor;
    double x = 0, y = 0;
    QString text;
};

// The text nodes of a TikZ body, from lines "\node[anchor=A,...] at (x,y) {text};".
std::vector<TexNode> textNodes(const QString& tex) {
    static const QRegularExpression node(QStringLiteral(R"(^\\node\[anchor=([a-z ]+),[^\n]*?\] at \(([-0-9.]+),([-0-9.]+)\) \{(.*)\};$)"),
                                         QRegularExpression::MultilineOption);
    std::vector<TexNode> nodes;
    for (auto match = node.globalMatch(tex); match.hasNext();) {
        const auto found = match.next();
        if (found.captured(4).startsWith(QLatin1String("\\includegraphics"))) continue;
        nodes.push_back({found.captured(1), found.captured(2).toDouble(), found.captured(3).toDouble(), found.captured(4)});
    }
    return nodes;
}

const TexNode* nodeStarting(const std::vector<TexNode>& nodes, const QString& prefix) {
    for (const TexNode& node : nodes)
        if (node.text.startsWith(prefix)) return &node;
    return nullptr;
}

// The document's text before \begin{tikzpicture}, inside it, and after \end{tikzpicture}.
struct TexParts {
    QString before, picture, after;
};

TexParts splitAtPicture(const QString& tex) {
    const auto begin = tex.indexOf(QLatin1String("\\begin{tikzpicture}"));
    const auto end = tex.indexOf(QLatin1String("\\end{tikzpicture}"));
    if (begin < 0 || end < begin) return {tex, {}, {}};
    return {tex.left(begin), tex.mid(begin, end - begin), tex.mid(end)};
}

class TikzDocumentTest : public FigureCommandTest {
protected:
    QString texFigure(const QStringList& arguments, const QString& name) {
        const ProcessRun result = run(QStringList{"figure"} + arguments + QStringList{"-o", path(name)});
        EXPECT_EQ(result.exitCode, 0) << result.err.toStdString();
        return QString::fromUtf8(readAll(path(name)));
    }

    // Runs `engine` on `file` in the test's directory; empty when it compiled, else the log's tail.
    QString compile(const QString& engine, const QString& file) const {
        QProcess latex;
        latex.setWorkingDirectory(dir.path());
        latex.start(engine, {"-interaction=nonstopmode", "-halt-on-error", file});
        if (!latex.waitForFinished(kRunTimeoutMs)) return QStringLiteral("timed out");
        return latex.exitCode() == 0 ? QString() : QString::fromUtf8(latex.readAllStandardOutput().right(3000));
    }

    void writeArticle(const QString& name, const QString& packages, const QStringList& figures) const {
        QString article = QStringLiteral("\\documentclass{article}\n\\usepackage{standalone}\n%1\\begin{document}\n").arg(packages);
        for (const QString& figure : figures) article += QStringLiteral("\\input{%1}\n\n").arg(figure);
        article += QStringLiteral("\\end{document}\n");
        QFile file(path(name));
        ASSERT_TRUE(file.open(QIODevice::WriteOnly));
        file.write(article.toUtf8());
    }
};

// Each picture defines the colours it names, inside itself: the standalone package skips a figure's
// preamble, and two figures' c0, c1, … would otherwise be one document's.
TEST_F(TikzDocumentTest, TwoFiguresInputIntoOneArticleCompileTogether) {
    const QString pattern = texFigure({"--preset", "longformer"}, "pattern.tex");
    const QString flops = texFigure({"flops", "--compare", "full,strided"}, "flops.tex");
    for (const QString& tex : {pattern, flops}) {
        const TexParts parts = splitAtPicture(tex);
        ASSERT_FALSE(parts.picture.isEmpty());
        EXPECT_FALSE(parts.before.contains(QLatin1String("\\definecolor")));
        EXPECT_FALSE(parts.after.contains(QLatin1String("\\definecolor")));
        const QRegularExpression used(QStringLiteral("(?:fill|draw|text)=(c\\d+)"));
        for (auto match = used.globalMatch(parts.picture); match.hasNext();) {
            const auto found = match.next();
            const auto defined = parts.picture.indexOf(QStringLiteral("\\definecolor{%1}").arg(found.captured(1)));
            ASSERT_GE(defined, 0) << found.captured(1).toStdString();
            EXPECT_LT(defined, found.capturedStart()) << found.captured(1).toStdString();
        }
        EXPECT_TRUE(parts.before.contains(QLatin1String("\\usepackage{standalone}")));
    }
    // Both name their first colours alike, with different values: only the pictures' scopes keep them apart.
    EXPECT_TRUE(pattern.contains(QLatin1String("\\definecolor{c1}")));
    EXPECT_TRUE(flops.contains(QLatin1String("\\definecolor{c1}")));

    writeArticle("article.tex", "\\usepackage{tikz}\n\\usepackage{graphicx}\n\\usepackage{amssymb}\n", {"pattern", "flops"});
    const QString pdflatex = QStandardPaths::findExecutable(QStringLiteral("pdflatex"));
    if (pdflatex.isEmpty()) GTEST_SKIP() << "pdflatex is not installed: the .tex files were checked for structure only";
    const QString log = compile(pdflatex, "article.tex");
    EXPECT_TRUE(log.isEmpty()) << log.toStdString();
    EXPECT_TRUE(QFile::exists(path("article.pdf")));
}

// A Chinese figure says it needs xelatex or lualatex, loads ctex, and compiles with both; an English one
// keeps pdflatex and needs no ctex.
TEST_F(TikzDocumentTest, ChineseFigureLoadsCtexAndCompilesWithXelatexAndLualatex) {
    const QString chinese = texFigure({"--preset", "bigbird", "--lang", "zh_CN"}, "zh.tex");
    const QString english = texFigure({"--preset", "bigbird"}, "en.tex");
    const TexParts zh = splitAtPicture(chinese), en = splitAtPicture(english);
    EXPECT_TRUE(chinese.startsWith(QLatin1String("% !TEX program = xelatex\n")));
    EXPECT_TRUE(zh.before.contains(QLatin1String("\\usepackage{ctex}")));
    EXPECT_TRUE(zh.before.contains(QLatin1String("xelatex or lualatex")));
    EXPECT_FALSE(zh.before.contains(QLatin1String("pdflatex")));
    EXPECT_TRUE(zh.picture.contains(QRegularExpression(QStringLiteral("[\\x{4e00}-\\x{9fff}]"))));
    EXPECT_FALSE(en.before.contains(QLatin1String("ctex")));
    EXPECT_TRUE(en.before.contains(QLatin1String("pdflatex")));

    writeArticle("article.tex", "\\usepackage{tikz}\n\\usepackage{graphicx}\n\\usepackage{amssymb}\n\\usepackage{ctex}\n", {"zh", "en"});
    int compiled = 0;
    for (const char* name : {"xelatex", "lualatex"}) {
        const QString engine = QStandardPaths::findExecutable(QString::fromLatin1(name));
        if (engine.isEmpty()) continue;
        SCOPED_TRACE(name);
        for (const char* file : {"zh.tex", "article.tex"}) {
            const QString log = compile(engine, QString::fromLatin1(file));
            EXPECT_TRUE(log.isEmpty()) << file << ": " << log.toStdString();
        }
        ++compiled;
    }
    if (compiled < 2) GTEST_SKIP() << "xelatex or lualatex is not installed: the Chinese .tex was checked for structure only";
}

// The statistics under a panel are left-aligned lines: each is anchored at its left end, at one x, so the
// block keeps its left edge in TeX's fonts. The y axis's tick labels keep their right edge.
TEST_F(TikzDocumentTest, LeftAlignedLinesKeepTheirLeftEdge) {
    const auto nodes = textNodes(texFigure({"pattern", "--n", "64", "--variant", "strided"}, "stats.tex"));
    const TexNode* nnz = nodeStarting(nodes, "nnz: ");
    const TexNode* density = nodeStarting(nodes, "density: ");
    const TexNode* mean = nodeStarting(nodes, "mean row length: ");
    ASSERT_TRUE(nnz && density && mean);
    for (const TexNode* line : {nnz, density, mean}) {
        EXPECT_EQ(line->anchor.toStdString(), "base west") << line->text.toStdString();
        EXPECT_DOUBLE_EQ(line->x, nnz->x) << line->text.toStdString();
    }
    EXPECT_LT(nnz->y, density->y);
    EXPECT_LT(density->y, mean->y);
}

// A legend entry with no other text on its left edge (the pattern's "allowed" and "masked" keys, each
// beside its swatch) keeps its left end at the swatch's side in TeX's fonts: it was drawn left-aligned.
// A centred title stays centred.
TEST_F(TikzDocumentTest, LoneLegendEntryStaysBesideItsSwatch) {
    const QString tex = texFigure({"pattern", "--n", "64", "--variant", "custom", "--set", "expr=band(8)"}, "lone.tex");
    const auto nodes = textNodes(tex);
    static const QRegularExpression swatch(QStringLiteral(R"(rectangle \(([-0-9.]+),[-0-9.]+\);\n\\node\[anchor=([a-z ]+),[^\n]*\] at \(([-0-9.]+),[-0-9.]+\) \{(allowed|masked))"));
    int entries = 0;
    for (auto match = swatch.globalMatch(tex); match.hasNext(); ++entries) {
        const auto found = match.next();
        EXPECT_EQ(found.captured(2).toStdString(), "base west") << found.captured(4).toStdString();
        EXPECT_NEAR(found.captured(3).toDouble(), found.captured(1).toDouble() + 4, 0.5) << found.captured(4).toStdString();
    }
    EXPECT_EQ(entries, 2) << tex.toStdString();
    const TexNode* title = nodeStarting(nodes, "Attention pattern");
    ASSERT_TRUE(title);
    EXPECT_EQ(title->anchor.toStdString(), "base");
}

// Qt draws a line of mixed scripts as one item per script run; TeX gets the line as one node, so its
// own glyph widths cannot make the runs overlap or part.
TEST(TikzPaintEngineTest, MixedScriptLineIsOneNode) {
    TikzPaintDevice device(QSizeF(400, 100));
    {
        QPainter painter(&device);
        painter.drawText(QRectF(10, 10, 380, 80), Qt::AlignLeft | Qt::AlignTop, QStringLiteral("密度：12.5 % of 词元 n = 64"));
    }
    const auto nodes = textNodes(device.engine().body());
    ASSERT_EQ(nodes.size(), 1u) << device.engine().body().toStdString();
    EXPECT_EQ(nodes.front().text.toStdString(), QStringLiteral("密度：12.5 \\% of 词元 n = 64").toStdString());
}

} // namespace
} // namespace attnlab
