// A variant keeps one colour in every figure: the legend swatch (or bar) beside a variant's name has its
// colour from views/plot/variant_colors.h in the timing, FLOP, roofline, accuracy and inference figures.
// Read back from each figure's TikZ export, which states every shape's colour and every text's place.

#include "gui/figure_command_fixture.h"
#include "views/plot/variant_colors.h"

#include <gtest/gtest.h>

#include <QRegularExpression>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <optional>
#include <vector>

namespace attnlab {
namespace {

struct Shape {
    QRectF box; // device pixels
    QColor colour;
};

struct Label {
    QPointF at; // the node's anchor
    QString text;
    QColor colour; // the text's own
};

struct Drawing {
    std::vector<Shape> shapes; // horizontal strokes and filled rectangles no taller than a legend line
    std::vector<Label> labels;
};

Drawing readTikz(const QString& tex) {
    std::map<QString, QColor> colours;
    static const QRegularExpression define(QStringLiteral(R"(\\definecolor\{(c\d+)\}\{RGB\}\{(\d+),(\d+),(\d+)\})"));
    for (auto match = define.globalMatch(tex); match.hasNext();) {
        const auto found = match.next();
        colours[found.captured(1)] = QColor(found.captured(2).toInt(), found.captured(3).toInt(), found.captured(4).toInt());
    }
    // Each \path's colour (its fill, else its stroke) and the box of its points: legend lines and
    // boxes, bars, point markers.
    Drawing drawing;
    static const QRegularExpression path(QStringLiteral(R"(^\\path\[([^\]]*)\](.*);$)"), QRegularExpression::MultilineOption);
    static const QRegularExpression fillColour(QStringLiteral("(?:^|,)fill=(c\\d+)")), strokeColour(QStringLiteral("(?:^|,)draw=(c\\d+)"));
    static const QRegularExpression point(QStringLiteral(R"(\(([-0-9.]+),([-0-9.]+)\))"));
    for (auto match = path.globalMatch(tex); match.hasNext();) {
        const auto found = match.next();
        const auto fill = fillColour.match(found.captured(1)), stroke = strokeColour.match(found.captured(1));
        double left = std::numeric_limits<double>::max(), top = left, right = -left, bottom = -left;
        for (auto corner = point.globalMatch(found.captured(2)); corner.hasNext();) {
            const auto at = corner.next();
            const double x = at.captured(1).toDouble(), y = at.captured(2).toDouble();
            left = std::min(left, x), right = std::max(right, x), top = std::min(top, y), bottom = std::max(bottom, y);
        }
        if (right < left) continue;
        const QRectF box(QPointF(left, top), QPointF(right, bottom));
        const bool line = !fill.hasMatch() && stroke.hasMatch() && box.height() < 0.5 && box.width() >= 8;
        const bool shape = fill.hasMatch() && box.height() <= 24 && box.width() >= 4;
        if (line || shape) drawing.shapes.push_back({box, colours[(shape ? fill : stroke).captured(1)]});
    }
    static const QRegularExpression node(QStringLiteral(R"(^\\node\[anchor=[a-z ]+,[^\n]*?text=(c\d+)[^\n]*?\] at \(([-0-9.]+),([-0-9.]+)\) \{(.*)\};$)"),
                                         QRegularExpression::MultilineOption);
    for (auto match = node.globalMatch(tex); match.hasNext();) {
        const auto found = match.next();
        drawing.labels.push_back({QPointF(found.captured(2).toDouble(), found.captured(3).toDouble()), found.captured(4), colours[found.captured(1)]});
    }
    return drawing;
}

// The colour of the shape nearest to a label on its line (a legend swatch left of its name, a bar right
// of its category): nullopt when no shape shares the label's line.
std::optional<QColor> colourBeside(const Drawing& drawing, const Label& label) {
    const double middle = label.at.y() - 4; // a line's centre lies about half an x-height above its baseline
    std::optional<QColor> nearest;
    double best = std::numeric_limits<double>::max();
    for (const Shape& shape : drawing.shapes) {
        if (std::abs(shape.box.center().y() - middle) > 8) continue;
        const double gap = shape.box.right() <= label.at.x() ? label.at.x() - shape.box.right() : std::abs(shape.box.left() - label.at.x());
        if (gap < best && gap < 80) {
            best = gap;
            nearest = shape.colour;
        }
    }
    return nearest;
}

class VariantColourTest : public FigureCommandTest {
protected:
    // Every label of `figure` that starts with `prefix`, each with the colour beside it (or its own, where
    // the figure writes its labels in their variants' colours).
    std::vector<std::pair<QString, std::optional<QColor>>> coloursOf(const QStringList& figure, const QString& prefix, bool ownColour) {
        const QString file = path(QStringLiteral("f.tex"));
        const ProcessRun result = run(QStringList{"figure"} + figure + QStringList{"-o", file});
        EXPECT_EQ(result.exitCode, 0) << result.err.toStdString();
        const Drawing drawing = readTikz(QString::fromUtf8(readAll(file)));
        std::vector<std::pair<QString, std::optional<QColor>>> found;
        for (const Label& label : drawing.labels)
            if (label.text.startsWith(prefix)) found.emplace_back(label.text, ownColour ? label.colour : colourBeside(drawing, label));
        return found;
    }
};

TEST_F(VariantColourTest, AVariantHasOneColourInEveryFigure) {
    const struct {
        const char* name;
        QStringList figure;
        std::vector<std::pair<QString, std::string>> labels; // a label's start, the variant it names
        bool ownColour = false;                              // the labels are written in their variants' colours, darker
    } figures[] = {
        {"timing", {"timing", "--compare", "full,strided,linear", "--timing-max-n", "128"}, {{"full", "full"}, {"strided", "strided"}, {"linear", "linear"}}},
        {"flops", {"flops", "--compare", "full,strided"}, {{"full", "full"}, {"strided", "strided"}, {"linear", "linear"}, {"longformer", "longformer"}}},
        {"roofline", {"roofline", "--compare", "full,strided,linear", "--n", "256"}, {{"full", "full"}, {"strided", "strided"}, {"linear", "linear"}}, true},
        {"accuracy", {"accuracy", "--n", "128"}, {{"linear", "linear"}, {"performer", "performer"}}},
        {"inference", {"inference"}, {{"full", "full"}, {"linear", "linear"}, {"chunk", "chunk"}, {"window 4096", "longformer"}}},
    };
    for (const auto& figure : figures) {
        SCOPED_TRACE(figure.name);
        for (const auto& [prefix, variant] : figure.labels) {
            const auto found = coloursOf(figure.figure, prefix, figure.ownColour);
            int coloured = 0;
            for (const auto& [text, colour] : found) {
                if (!colour) continue;
                ++coloured;
                // The roofline writes a point's label in a darker shade of its colour, for contrast on white.
                const QColor expected = figure.ownColour ? variantColor(variant).darker(150) : variantColor(variant);
                EXPECT_EQ(colour->name().toStdString(), expected.name().toStdString()) << text.toStdString();
            }
            EXPECT_GT(coloured, 0) << prefix.toStdString() << ": no swatch or bar beside it";
        }
    }
}

// One table: every registered variant its own colour, the ones a figure may draw together distinct.
TEST(VariantColours, EachVariantHasItsOwnColourAndRepeatsAreShades) {
    const std::vector<std::string> ids = {"full",  "strided", "fixed", "longformer", "bigbird",     "linear", "performer",
                                          "linformer", "lsh", "chunk", "xl",         "relu2", "mixed_chunk", "custom"};
    std::map<QRgb, std::string> seen;
    for (const std::string& id : ids) {
        const auto [at, fresh] = seen.emplace(variantColor(id).rgb(), id);
        EXPECT_TRUE(fresh) << id << " shares its colour with " << at->second;
    }
    const std::vector<QColor> shades = variantColors({"longformer", "full", "longformer"});
    EXPECT_EQ(shades[0], variantColor("longformer"));
    EXPECT_EQ(shades[1], variantColor("full"));
    EXPECT_NE(shades[2], shades[0]);
    EXPECT_EQ(shades[2].hue(), shades[0].hue());
}

} // namespace
} // namespace attnlab
