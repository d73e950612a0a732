// How figures set their text and cells for a reader's file: SVG text states its anchor (a centred title
// stays centred in any font), a PDF of a 1024-token pattern embeds one pixel per cell, Chinese headings
// are set in regular weight while English ones are bold, and CJK token labels stand upright.
#include "text_recorder.h"

#include "views/figures/figure_export.h"
#include "views/figures/pattern_view.h"
#include "views/i18n/language.h"
#include "views/plot/text_style.h"

#include <gtest/gtest.h>

#include <QRegularExpression>
#include <QSettings>
#include <QTest>
#include <QXmlStreamReader>

#include <algorithm>
#include <vector>

namespace attnlab {
namespace {

constexpr int kIdleTimeoutMs = 60000;

struct SvgText {
    QString text, anchor;
    double x = 0;
};

std::vector<SvgText> svgTexts(const QByteArray& svg) {
    std::vector<SvgText> texts;
    QXmlStreamReader xml(svg);
    while (!xml.atEnd()) {
        xml.readNext();
        if (!xml.isStartElement() || xml.name() != QLatin1String("text")) continue;
        SvgText text;
        text.anchor = xml.attributes().value(QLatin1String("text-anchor")).toString();
        text.x = xml.attributes().value(QLatin1String("x")).toDouble();
        text.text = xml.readElementText();
        texts.push_back(text);
    }
    EXPECT_FALSE(xml.hasError()) << xml.errorString().toStdString();
    return texts;
}

QByteArray rendered(const FigureView& view, const QString& file, const QSizeF& size) {
    ExportOptions options;
    options.size = size;
    const std::vector<WholeFile> files = renderExport(view, file, options);
    return files.empty() ? QByteArray() : QByteArray::fromStdString(files.front().bytes);
}

class FigureTypesetting : public ::testing::Test {
protected:
    void SetUp() override {
        QSettings().clear();
        view.resize(900, 600);
        view.show();
        ASSERT_TRUE(QTest::qWaitForWindowExposed(&view));
    }
    void TearDown() override { installLanguage(QStringLiteral("en")); }

    void show(const LabSettings& settings) {
        view.setSettings(settings);
        ASSERT_TRUE(waitUntilIdle({&view}, kIdleTimeoutMs));
        ASSERT_TRUE(view.errorText().isEmpty()) << view.errorText().toStdString();
    }

    PatternView view;
};

// The title is anchored at its middle, on the figure's centre line; right-aligned row labels at their end.
TEST_F(FigureTypesetting, SvgTextStatesItsAnchor) {
    LabSettings settings;
    settings.variant = "longformer";
    settings.n = 32;
    show(settings);
    const std::vector<SvgText> texts = svgTexts(rendered(view, QStringLiteral("figure.svg"), QSizeF(900, 600)));
    const auto title = std::find_if(texts.begin(), texts.end(), [this](const SvgText& text) { return text.text == view.title(); });
    ASSERT_NE(title, texts.end()) << view.title().toStdString();
    EXPECT_EQ(title->anchor, QStringLiteral("middle"));
    EXPECT_NEAR(title->x, 450.0, 1.0);
    const auto ends = std::count_if(texts.begin(), texts.end(), [](const SvgText& text) { return text.anchor == QLatin1String("end"); });
    EXPECT_GT(ends, 0) << "no right-aligned text (row labels, y ticks) states its end";
    const auto starts = std::count_if(texts.begin(), texts.end(), [](const SvgText& text) { return text.anchor.isEmpty(); });
    EXPECT_GT(starts, 0) << "left-aligned text keeps SVG's default anchor";
}

// n = 1024 is past the rectangles a vector file gets; its image then holds one pixel per cell (not a
// screen tile of a few hundred pixels, 93 ppi on the page).
TEST_F(FigureTypesetting, PdfOfALargePatternEmbedsOnePixelPerCell) {
    LabSettings settings;
    settings.variant = "strided";
    settings.n = 1024;
    show(settings);
    const QByteArray pdf = rendered(view, QStringLiteral("figure.pdf"), QSizeF(900, 600));
    ASSERT_TRUE(pdf.startsWith("%PDF"));
    static const QRegularExpression image(QStringLiteral("/Subtype\\s*/Image\\s*/Width\\s+(\\d+)\\s*/Height\\s+(\\d+)"));
    int widest = 0, tallest = 0;
    for (auto match = image.globalMatch(QString::fromLatin1(pdf)); match.hasNext();) {
        const auto found = match.next();
        widest = std::max(widest, found.captured(1).toInt());
        tallest = std::max(tallest, found.captured(2).toInt());
    }
    EXPECT_EQ(widest, 1024);
    EXPECT_EQ(tallest, 1024);
}

// In Chinese no heading is bold (CJK fonts have no bold face); the same figure in English has a bold title.
TEST_F(FigureTypesetting, ChineseHeadingsAreRegularEnglishOnesBold) {
    LabSettings settings;
    settings.compareVariants = {"strided", "fixed"};
    settings.variant = "strided";
    settings.causal = true;
    settings.n = 64;
    for (const char* language : {"zh_CN", "en"}) {
        SCOPED_TRACE(language);
        ASSERT_TRUE(installLanguage(QString::fromLatin1(language)));
        show(settings);
        const auto texts = testing::paintedTexts(view, QSize(900, 600));
        // Qt paints a mixed-script line as one item per script run: the title's first run starts it.
        const auto title = std::find_if(texts.begin(), texts.end(), [this](const auto& text) {
            return !text.text.trimmed().isEmpty() && view.title().startsWith(text.text.trimmed());
        });
        ASSERT_NE(title, texts.end()) << view.title().toStdString();
        EXPECT_EQ(title->bold, !hasCjk(view.title())) << title->text.toStdString();
        int cjk = 0;
        for (const auto& text : texts) {
            EXPECT_FALSE(text.bold && hasCjk(text.text)) << text.text.toStdString() << " is bold";
            cjk += hasCjk(text.text) ? 1 : 0;
        }
        if (std::string(language) == "zh_CN") {
            EXPECT_GT(cjk, 0);
        }
    }
    EXPECT_TRUE(hasCjk(QStringLiteral("稀疏")) && !hasCjk(QStringLiteral("sparse (Child et al., 2019)")));
}

// Column labels of CJK tokens stand upright, one character under the other; Latin ones are rotated 90°.
TEST_F(FigureTypesetting, CjkTokenLabelsStandUpright) {
    LabSettings settings;
    settings.n = 6;
    settings.tokens = "猫 坐 在 垫 子 上";
    show(settings);
    int upright = 0;
    for (const auto& text : testing::paintedTexts(view, QSize(900, 600))) {
        if (!hasCjk(text.text) || text.text.size() != 1) continue;
        EXPECT_FALSE(text.rotated) << text.text.toStdString() << " is rotated";
        ++upright;
    }
    EXPECT_GE(upright, 12) << "each token labels a row and a column";
    settings.tokens = "the cat sat on a mat";
    show(settings);
    const auto texts = testing::paintedTexts(view, QSize(900, 600));
    EXPECT_GE(std::count_if(texts.begin(), texts.end(), [](const auto& text) { return text.rotated && text.text == QLatin1String("cat"); }), 1);
}

} // namespace
} // namespace attnlab
