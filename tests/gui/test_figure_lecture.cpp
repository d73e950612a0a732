// Lecture figures from the real executable: per-panel parameters (--panel), classic presets (--preset),
// saved sessions (--session), vector cells in SVG and PDF, TikZ export and token labels.

#include "gui/figure_command_fixture.h"
#include "views/shell/model_presets.h"

#include <gtest/gtest.h>

#include <QImage>
#include <QRegularExpression>
#include <QStandardPaths>

#include <map>

namespace attnlab {
namespace {

// Per panel of a pattern CSV (numbered from 1), the allowed count of each query row i, from rows
// "panel,variant,query_i,query_token,allowed_count,allowed_ranges".
std::vector<std::map<std::int64_t, int>> countsPerPanel(const QByteArray& csv) {
    std::vector<std::map<std::int64_t, int>> panels;
    for (const QString& line : QString::fromUtf8(csv).split('\n', Qt::SkipEmptyParts).mid(1)) {
        const QStringList fields = line.split(',');
        const auto panel = static_cast<std::size_t>(fields.at(0).toInt());
        if (panels.size() < panel) panels.resize(panel);
        panels[panel - 1][fields.at(2).toLongLong()] = fields.at(4).toInt();
    }
    return panels;
}

int occurrences(const QByteArray& text, const QByteArray& needle) { return static_cast<int>(text.count(needle)); }

TEST_F(FigureCommandTest, EachPanelKeepsItsOwnVariantParametersAndTitle) {
    const ProcessRun csv = run({"figure", "pattern", "--n", "64", "--panel", "longformer window=4",
                                "--panel", "longformer window=8 dilation=2 title=(c) dilated", "-o", path("p.csv")});
    ASSERT_EQ(csv.exitCode, 0) << csv.err.toStdString();
    const auto panels = countsPerPanel(readAll(path("p.csv")));
    ASSERT_EQ(panels.size(), 2u);
    // |i − j| ≤ r·δ with (i − j) mod δ = 0, r = ⌊w/2⌋: 2r + 1 keys in the interior either way.
    EXPECT_EQ(panels[0].at(32), 5);
    EXPECT_EQ(panels[1].at(32), 9);
    EXPECT_EQ(panels[0].at(0), 3);
    EXPECT_EQ(panels[1].at(0), 5);

    const ProcessRun svg = run({"figure", "pattern", "--n", "64", "--panel", "longformer window=4 title=(b) sliding window",
                                "--panel", "longformer window=8 dilation=2 title=(c) dilated", "-o", path("p.svg")});
    ASSERT_EQ(svg.exitCode, 0) << svg.err.toStdString();
    const QByteArray bytes = readAll(path("p.svg"));
    EXPECT_TRUE(bytes.contains("(b) sliding window"));
    EXPECT_TRUE(bytes.contains("(c) dilated"));
    EXPECT_TRUE(bytes.contains("dilation=2"));
}

// An expression's '|' belongs to the expression: both of its components are drawn, the title is title=.
TEST_F(FigureCommandTest, PanelExpressionKeepsItsBarsAndTakesTheTitleFromTitleKey) {
    const ProcessRun panel = run({"figure", "pattern", "--n", "64", "--panel",
                                  "custom expr=band(8) | sink(4) title=(d) band | sink", "-o", path("panel.csv")});
    ASSERT_EQ(panel.exitCode, 0) << panel.err.toStdString();
    const auto counts = countsPerPanel(readAll(path("panel.csv")));
    ASSERT_EQ(counts.size(), 1u);
    EXPECT_EQ(counts[0].at(32), 17 + 4); // |i − j| ≤ 8 and the 4 sink columns, apart at row 32
    EXPECT_EQ(counts[0].at(0), 9);        // j ≤ 8 holds the sink columns
    const ProcessRun set = run({"figure", "pattern", "--n", "64", "--variant", "custom", "--set", "expr=band(8) | sink(4)",
                                "-o", path("set.csv")});
    ASSERT_EQ(set.exitCode, 0) << set.err.toStdString();
    EXPECT_EQ(readAll(path("panel.csv")), readAll(path("set.csv")));

    const ProcessRun svg = run({"figure", "pattern", "--n", "64", "--panel", "custom expr=band(8) | sink(4) title=(d) band | sink",
                                "-o", path("panel.svg")});
    ASSERT_EQ(svg.exitCode, 0) << svg.err.toStdString();
    EXPECT_TRUE(readAll(path("panel.svg")).contains("(d) band | sink"));
}

TEST_F(FigureCommandTest, BadPanelsAreRefusedWithOneLineAndNoFile) {
    const struct {
        QStringList arguments;
        const char* message;
    } cases[] = {
        {{"--panel", "longformer windo=8"}, "has no parameter 'windo'"},
        {{"--panel", "nonesuch window=8"}, "unknown variant 'nonesuch'"},
        {{"--panel", "longformer window"}, "'window' is not KEY=VALUE"},
        {{"--panel", "longformer window=8 window=4"}, "'window' is set twice"},
        {{"--panel", "title=only a title"}, "names no variant"},
        {{"--panel", "longformer window=8 | (b) sliding window"}, "give a title as title=TEXT"},
        {{"--panel", "longformer title="}, "gives no title"},
        {{"--panel", "custom expr=band(8) | (d) band title=(d)"}, "bad expression"},
        {{"--panel", "full", "--panel", "full", "--panel", "full", "--panel", "full", "--panel", "full"}, "at most 4 panels"},
        {{"--panel", "longformer", "--set", "window=8"}, "not with --set"},
        {{"--panel", "longformer", "--compare", "full,linear"}, "either with --panel or with --variant/--compare"},
        {{"--panel", "longformer window=-3"}, "window"},
        {{"--preset", "nonesuch"}, "unknown preset 'nonesuch'"},
        {{"--preset", "longformer", "--session", "x.json"}, "either --preset or --session"},
        {{"--preset", "longformer", "--set", "window=4"}, "give their parameters with --panel"},
        {{"--session", "missing.attnlab.json"}, "cannot open session"},
    };
    for (const auto& bad : cases) {
        QStringList arguments{"figure", "pattern"};
        arguments << bad.arguments << "-o" << path("bad.png");
        const ProcessRun result = run(arguments);
        SCOPED_TRACE(bad.arguments.join(' ').toStdString());
        EXPECT_EQ(result.exitCode, 2);
        EXPECT_EQ(result.err.count('\n'), 1) << result.err.toStdString();
        EXPECT_TRUE(result.err.contains(QLatin1String(bad.message))) << result.err.toStdString();
        EXPECT_FALSE(QFile::exists(path("bad.png")));
    }
}

TEST_F(FigureCommandTest, PresetListNamesEveryPresetAndEachOneRenders) {
    const ProcessRun list = run({"figure", "--preset", "list"});
    ASSERT_EQ(list.exitCode, 0) << list.err.toStdString();
    QStringList expected;
    for (const FigurePreset& preset : figurePresets()) expected << preset.id;
    EXPECT_EQ(list.out.split('\n', Qt::SkipEmptyParts), expected);
    for (const QString& id : expected) {
        SCOPED_TRACE(id.toStdString());
        const QString file = path(id + QStringLiteral(".png"));
        const ProcessRun result = run({"figure", "--preset", id, "--dpi", "96", "-o", file});
        ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
        const QImage image(file);
        ASSERT_FALSE(image.isNull());
        EXPECT_EQ(image.size(), QSize(900, 600));
    }
}

TEST_F(FigureCommandTest, PresetsDrawThePapersPanelTitles) {
    const std::map<QString, QStringList> titles = {
        {"longformer", {"(a) full", "(b) sliding window", "(c) dilated sliding window", "(d) global + sliding window"}},
        {"bigbird", {"(a) random", "(b) sliding window", "(c) global", "(d) BigBird"}},
        {"sparse-transformer", {"(a) full", "(b) strided", "(c) fixed"}},
    };
    for (const auto& [id, expected] : titles) {
        const ProcessRun result = run({"figure", "--preset", id, "-o", path(id + ".svg")});
        ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
        const QString svg = QString::fromUtf8(readAll(path(id + ".svg")));
        for (const QString& title : expected) EXPECT_TRUE(svg.contains(title.toHtmlEscaped())) << id.toStdString() << ": " << title.toStdString();
    }
}

// A preset that redraws a paper's figure names the paper and its year, in its name (the Presets menu) and
// in the figure's title.
TEST_F(FigureCommandTest, PresetTitlesNameThePaperAndYear) {
    const std::map<QString, QString> papers = {
        {"sparse-transformer", "Sparse Transformer (Child et al., 2019)"}, {"longformer", "Longformer (Beltagy et al., 2020)"},
        {"bigbird", "BigBird (Zaheer et al., 2020)"},                     {"bigbird-blocks", "BigBird (Zaheer et al., 2020)"},
        {"flash", "FLASH (Hua et al., 2022)"},                            {"transformer-xl", "Transformer-XL (Dai et al., 2019)"},
        {"bert-flops", "BERT-base (Devlin et al., 2019)"},                {"streaming-llm", "StreamingLLM (Xiao et al., 2023)"},
    };
    for (const auto& [id, paper] : papers) {
        SCOPED_TRACE(id.toStdString());
        const FigurePreset* preset = findFigurePreset(id.toStdString());
        ASSERT_NE(preset, nullptr);
        EXPECT_TRUE(preset->name.startsWith(paper)) << preset->name.toStdString();
        const ProcessRun result = run({"figure", "--preset", id, "-o", path(id + ".svg")});
        ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
        const QString svg = QString::fromUtf8(readAll(path(id + ".svg")));
        EXPECT_TRUE(svg.contains(QStringLiteral(" — ") + paper.toHtmlEscaped() + QStringLiteral("</text>"))) << id.toStdString();
    }
}

TEST_F(FigureCommandTest, PresetsSayWhetherTheyScaleWithN) {
    // Sparse Transformer ties stride and block to sqrt(n): at n = 256 both are 16.
    ASSERT_EQ(run({"figure", "--preset", "sparse-transformer", "--n", "256", "-o", path("st.csv")}).exitCode, 0);
    const auto panels = countsPerPanel(readAll(path("st.csv")));
    ASSERT_EQ(panels.size(), 3u);
    // Causal strided, stride l: j ≤ i and (i − j ≤ l or (i − j) mod l = 0). Row 255: the band's 17 keys and
    // i − j = 32, 48, …, 240 (14 more).
    EXPECT_EQ(panels[1].at(255), 17 + 14);
    ASSERT_EQ(run({"figure", "--preset", "sparse-transformer", "--n", "256", "-o", path("st.svg")}).exitCode, 0);
    EXPECT_FALSE(readAll(path("st.svg")).contains("does not scale with n"));

    ASSERT_EQ(run({"figure", "--preset", "longformer", "--n", "1024", "-o", path("lf.svg")}).exitCode, 0);
    const QByteArray longformer = readAll(path("lf.svg"));
    EXPECT_TRUE(longformer.contains("parameters chosen for n = 64, kept at n = 1024 (this preset does not scale with n)"));
    ASSERT_EQ(run({"figure", "--preset", "longformer", "-o", path("lf64.svg")}).exitCode, 0);
    EXPECT_FALSE(readAll(path("lf64.svg")).contains("does not scale with n"));
}

TEST_F(FigureCommandTest, SessionFileDrawsItsPanelsAndView) {
    Session session{findFigurePreset("bigbird")->settings, QStringLiteral("pattern")};
    session.settings.panelTitles[3] = "(d) all three";
    saveSession(path("bb.attnlab.json"), session);
    const ProcessRun result = run({"figure", "--session", path("bb.attnlab.json"), "-o", path("bb.svg")});
    Session tooMany = session;
    tooMany.settings.panelTitles.push_back("(e) none");
    saveSession(path("five.attnlab.json"), tooMany);
    const ProcessRun refused = run({"figure", "--session", path("five.attnlab.json"), "-o", path("five.svg")});
    EXPECT_EQ(refused.exitCode, 2);
    EXPECT_TRUE(refused.err.contains(QLatin1String("'panel_titles' has more entries than there are panels"))) << refused.err.toStdString();
    EXPECT_FALSE(QFile::exists(path("five.svg")));
    ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
    const QByteArray svg = readAll(path("bb.svg"));
    EXPECT_TRUE(svg.contains("(d) all three"));
    EXPECT_TRUE(svg.contains("(a) random"));
    session.view = QStringLiteral("flops");
    saveSession(path("flops.attnlab.json"), session);
    ASSERT_EQ(run({"figure", "--session", path("flops.attnlab.json"), "-o", path("f.svg")}).exitCode, 0);
    EXPECT_TRUE(readAll(path("f.svg")).contains("MACs"));
}

TEST_F(FigureCommandTest, SmallPatternsAreVectorCellsAndLargeOnesLosslessImages) {
    ASSERT_EQ(run({"figure", "pattern", "--variant", "longformer", "--set", "window=8", "--n", "64", "-o", path("s.svg")}).exitCode, 0);
    const QByteArray small = readAll(path("s.svg"));
    EXPECT_EQ(occurrences(small, "<image"), 0);
    // The band |i − j| ≤ 4 merges into far fewer rectangles than its 556 cells, but at least one per row.
    EXPECT_GE(occurrences(small, "<rect"), 64);
    EXPECT_LT(occurrences(small, "<rect"), 556);

    ASSERT_EQ(run({"figure", "pattern", "--variant", "longformer", "--n", "4096", "-o", path("l.svg")}).exitCode, 0);
    const QByteArray large = readAll(path("l.svg"));
    EXPECT_EQ(occurrences(large, "<image"), 1);
    EXPECT_TRUE(large.contains("data:image/png"));

    for (const QStringList& arguments : {QStringList{"--preset", "flash"}, QStringList{"pattern", "--n", "4096"},
                                         QStringList{"pattern", "--n", "64"}, QStringList{"pattern", "--n", "1024", "--weights"}}) {
        const ProcessRun result = run(QStringList{"figure"} + arguments + QStringList{"-o", path("f.pdf")});
        ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
        const QByteArray pdf = readAll(path("f.pdf"));
        EXPECT_TRUE(pdf.startsWith("%PDF-"));
        EXPECT_FALSE(pdf.contains("/DCTDecode")) << arguments.join(' ').toStdString();
    }
}

TEST_F(FigureCommandTest, TexExportIsAStandaloneTikzPicture) {
    const struct {
        QStringList arguments;
        const char* name;
    } figures[] = {
        {{"--preset", "longformer"}, "pattern.tex"},
        {{"flops", "--compare", "full,linear"}, "flops.tex"},
        {{"reach", "--n", "128"}, "reach.tex"},
        {{"accuracy", "--n", "128"}, "accuracy.tex"},
        {{"timing", "--timing-max-n", "128"}, "timing.tex"},
    };
    const QString pdflatex = QStandardPaths::findExecutable(QStringLiteral("pdflatex"));
    for (const auto& figure : figures) {
        SCOPED_TRACE(figure.name);
        const ProcessRun result = run(QStringList{"figure"} + figure.arguments + QStringList{"-o", path(figure.name)});
        ASSERT_EQ(result.exitCode, 0) << result.err.toStdString();
        const QString tex = QString::fromUtf8(readAll(path(figure.name)));
        EXPECT_TRUE(tex.contains(QLatin1String("\\documentclass[tikz,border=0pt]{standalone}")));
        EXPECT_EQ(tex.count(QLatin1String("\\begin{tikzpicture}")), 1);
        EXPECT_TRUE(tex.trimmed().endsWith(QLatin1String("\\end{tikzpicture}\n\\end{document}")));
        EXPECT_EQ(tex.count(QLatin1String("\\begin{scope}")), tex.count(QLatin1String("\\end{scope}")));
        EXPECT_TRUE(tex.contains(QLatin1String("\\node[")));
        // Every colour used is defined.
        const QRegularExpression used(QStringLiteral("(?:fill|draw|text)=(c\\d+)"));
        for (auto match = used.globalMatch(tex); match.hasNext();) {
            const QString name = match.next().captured(1);
            ASSERT_TRUE(tex.contains(QStringLiteral("\\definecolor{%1}").arg(name))) << name.toStdString();
        }
        if (pdflatex.isEmpty()) continue;
        QProcess latex;
        latex.setWorkingDirectory(dir.path());
        latex.start(pdflatex, {"-interaction=nonstopmode", "-halt-on-error", figure.name});
        ASSERT_TRUE(latex.waitForFinished(kRunTimeoutMs));
        EXPECT_EQ(latex.exitCode(), 0) << latex.readAllStandardOutput().right(2000).toStdString();
    }
    const QString pattern = QString::fromUtf8(readAll(path("pattern.tex")));
    EXPECT_TRUE(pattern.contains(QLatin1String("(c) dilated sliding window")));
    EXPECT_GE(pattern.count(QLatin1String(" rectangle ")), 4 * 64);
    EXPECT_FALSE(pattern.contains(QLatin1String("\\includegraphics")));
    if (pdflatex.isEmpty()) GTEST_SKIP() << "pdflatex is not installed: the .tex files were checked for structure only";
}

TEST_F(FigureCommandTest, TokensLabelTheAxesWhenTheirCountIsN) {
    const QStringList words{"The", "cat", "sat", "on", "the", "mat"};
    ASSERT_EQ(run({"figure", "pattern", "--n", "6", "--tokens", words.join(' '), "-o", path("t.svg")}).exitCode, 0);
    const QByteArray labelled = readAll(path("t.svg"));
    for (const QString& word : words) EXPECT_GE(occurrences(labelled, ">" + word.toUtf8() + "</text>"), 2) << word.toStdString();
    EXPECT_FALSE(labelled.contains(">Q3</text>"));

    ASSERT_EQ(run({"figure", "pattern", "--n", "6", "--weights", "--tokens", words.join(' '), "-o", path("t.tex")}).exitCode, 0);
    EXPECT_TRUE(readAll(path("t.tex")).contains("{mat};"));

    ASSERT_EQ(run({"figure", "pattern", "--n", "7", "--tokens", words.join(' '), "-o", path("m.svg")}).exitCode, 0);
    const QByteArray mismatch = readAll(path("m.svg"));
    EXPECT_TRUE(mismatch.contains("6 tokens for n = 7: token labels need exactly n tokens, indices shown"));
    EXPECT_FALSE(mismatch.contains(">cat</text>"));
}

} // namespace
} // namespace attnlab
