// The grammar and every error of the pattern expression language: what parses into which terms, and
// for each kind of bad input the 1-based character position the message points at.
#include "core/analysis/panel_spec.h"
#include "core/patterns/pattern_expression.h"
#include "core/registry.h"

#include <gtest/gtest.h>

#include <sstream>
#include <string>

namespace attnlab {
namespace {

// Parses `text` expecting an ExpressionError at `position` whose problem mentions `words`.
void expectError(const std::string& text, std::size_t position, const std::string& words) {
    try {
        parseExpression(text);
        ADD_FAILURE() << "'" << text << "' was accepted";
    } catch (const ExpressionError& error) {
        EXPECT_EQ(error.position(), position) << text << ": " << error.what();
        EXPECT_NE(std::string(error.what()).find(words), std::string::npos) << error.what();
        EXPECT_NE(std::string(error.what()).find("position " + std::to_string(position)), std::string::npos)
            << error.what();
        EXPECT_EQ(std::string(error.what()).find('\n'), std::string::npos);
    }
}

TEST(ExpressionGrammar, TopLevelTermsFollowPrecedence) {
    EXPECT_EQ(parseExpression("all").terms.size(), 1u);
    EXPECT_EQ(parseExpression("band(1) | sink(2) & causal | !diag").terms.size(), 3u);
    EXPECT_EQ(parseExpression("(band(1) | sink(2))").terms.size(), 1u); // parentheses make one term
    const auto expression = parseExpression("band(1) & !sink(2) & causal");
    ASSERT_EQ(expression.terms.size(), 1u);
    const auto& term = expression.terms[0];
    EXPECT_EQ(term.kind, ExpressionNode::Kind::Intersection);
    ASSERT_EQ(term.children.size(), 3u);
    EXPECT_EQ(term.children[1].kind, ExpressionNode::Kind::Complement);
    EXPECT_EQ(term.children[1].children[0].primitive, Primitive::Sink);
    EXPECT_EQ(term.children[1].position, 11u);
}

TEST(ExpressionGrammar, WhitespaceIsIgnoredAndArgumentsAreKept) {
    const auto expression = parseExpression(" \tdilated ( 3 ,\n 2 )|docs(5,0007, 1)");
    ASSERT_EQ(expression.terms.size(), 2u);
    EXPECT_EQ(expression.terms[0].primitive, Primitive::Dilated);
    EXPECT_EQ(expression.terms[0].args, (std::vector<std::int64_t>{3, 2}));
    EXPECT_EQ(expression.terms[0].position, 3u);
    EXPECT_EQ(expression.terms[1].args, (std::vector<std::int64_t>{5, 7, 1}));
}

TEST(ExpressionGrammar, EveryPrimitiveOfTheTableParses) {
    for (const char* text : {"all", "causal", "diag", "band(0)", "dilated(0, 1)", "stride(1)", "block(1)",
                             "summary(1, 1)", "segment(1, 0)", "sink(0)", "prefix(0)", "rows(0)", "cols(3, 1)",
                             "global(9223372036854775807)", "docs(1)", "random(0, 0)"})
        EXPECT_NO_THROW(parseExpression(text)) << text;
}

TEST(ExpressionGrammar, IntegersUpTo2To63Minus1) {
    EXPECT_EQ(parseExpression("band(9223372036854775807)").terms[0].args[0], INT64_MAX);
    expectError("band(9223372036854775808)", 6, "larger than 2^63 - 1");
    expectError("sink(1) | band(100000000000000000000000)", 16, "larger than 2^63 - 1");
    expectError("band(-1)", 6, "expected an integer, found '-'");
    expectError("band(+1)", 6, "expected an integer, found '+'");
    expectError("band(1.5)", 7, "found '.'");
}

TEST(ExpressionGrammar, CharactersOutsideAsciiAreNamedWithTheirPosition) {
    expectError("band（2)", 5, "'（' (U+FF08, a full-width '(') is not part of the expression language");
    expectError("bänd(2)", 2, "'ä' (U+00E4)");
    expectError("sink(1) | ä", 11, "'ä' (U+00E4)");
    expectError("band(2)\x01", 8, "the control byte 0x01");
    expectError("band(\xff" "2)", 6, "the byte 0xFF (not UTF-8)");
    expectError("band(\xc3)", 6, "not UTF-8"); // a lead byte with no continuation
    expectError("band(2) |\n sink(1) |\t全", 22, "'全' (U+5168)");
}

TEST(ExpressionGrammar, SyntaxErrorsPointAtTheCharacter) {
    expectError("", 1, "expected a primitive, '(' or '!' but the expression ends");
    expectError("   ", 4, "the expression ends");
    expectError("band(8", 7, "expected ',' or ')' but the expression ends");
    expectError("band(8))", 8, "found ')'");
    expectError("band(8) |", 10, "the expression ends");
    expectError("band(8) # all", 9, "found '#'");
    expectError("all & & all", 7, "found '&'");
    expectError("()", 2, "found ')'");
    expectError("(all", 5, "expected ')'");
    expectError("band(8,)", 8, "expected an integer, found ')'");
    expectError("band()", 6, "expected an integer");
    expectError("all all", 5, "found 'a'");
    expectError("!", 2, "the expression ends");
    expectError("band(1 2)", 8, "found '2'");
    expectError("3", 1, "found '3'");
}

TEST(ExpressionGrammar, UnknownNamesAndArgumentCounts) {
    expectError("bnd(3)", 1, "unknown primitive 'bnd'");
    expectError("all | Band(2)", 7, "unknown primitive 'Band'");
    expectError("band", 1, "'band' takes 1 argument (band(r)), got 0");
    expectError("band(1, 2)", 1, "got 2");
    expectError("sink(1) & all(1)", 11, "'all' takes no arguments");
    expectError("dilated(1)", 1, "'dilated' takes 2 arguments");
    expectError("random(1, 2, 3)", 1, "'random' takes 2 arguments");
    expectError("rows", 1, "'rows' takes at least 1 argument");
    expectError("docs", 1, "at least 1 argument");
}

TEST(ExpressionGrammar, ArgumentRanges) {
    expectError("stride(0)", 8, "argument 1 of stride(l) must be >= 1, got 0");
    expectError("block(0)", 7, "must be >= 1");
    expectError("dilated(1, 0)", 12, "argument 2 of dilated(r, delta) must be >= 1");
    expectError("segment(0, 3)", 9, "argument 1 of segment(L, m)");
    expectError("summary(0, 0)", 9, "argument 1 of summary(l, c)");
    expectError("summary(4, 0)", 12, "argument 2 of summary(l, c)");
    expectError("summary(4,  5)", 13, "needs c <= l");
    expectError("docs(3, 0)", 9, "argument 2 of docs");
    EXPECT_NO_THROW(parseExpression("summary(4, 4) | segment(1, 0) | dilated(0, 1) | random(0, 0)"));
}

TEST(ExpressionGrammar, LengthLimitIsOneThousandCharacters) {
    EXPECT_NO_THROW(parseExpression("all" + std::string(997, ' ')));
    expectError("all" + std::string(998, ' '), 1001, "longer than 1000 characters (1001)");
}

TEST(ExpressionGrammar, NestingLimitIsSixtyFourParentheses) {
    const auto nested = [](int depth) { return std::string(depth, '(') + "all" + std::string(depth, ')'); };
    EXPECT_NO_THROW(parseExpression(nested(64)));
    expectError(nested(65), 65, "nested deeper than 64");
    expectError("all | " + nested(70), 6 + 65, "nested deeper than 64");
    // Parentheses that close again do not add up.
    std::string siblings;
    for (int k = 0; k < 30; ++k) siblings += (k ? " | " : "") + nested(10);
    EXPECT_LE(siblings.size(), 1000u);
    EXPECT_NO_THROW(parseExpression(siblings));
    EXPECT_NO_THROW(parseExpression(std::string(300, '!') + "all"));
}

// A use of primitive `name` with the fewest arguments the parser accepts, each 3 (at or above every
// primitive's smallest argument); empty when none up to 8 arguments parses.
std::string fewestArgumentsUse(const std::string& name) {
    std::string args;
    for (int count = 0; count <= 8; ++count) {
        const std::string use = count == 0 ? name : name + "(" + args + ")";
        try {
            parseExpression(use);
            return use;
        } catch (const ExpressionError&) {
            args += args.empty() ? "3" : ", 3";
        }
    }
    return {};
}

// Every primitive the parser knows, from its own list of names.
std::vector<std::string> everyPrimitiveUse() {
    std::vector<std::string> uses;
    std::istringstream names(primitiveNames());
    for (std::string name; std::getline(names, name, ',');) {
        name.erase(0, name.find_first_not_of(' '));
        uses.push_back(fewestArgumentsUse(name));
        EXPECT_FALSE(uses.back().empty()) << name;
    }
    return uses;
}

TEST(PanelSpecExpressions, EveryPrimitiveAndOperatorReachesTheVariantWhole) {
    const auto uses = everyPrimitiveUse();
    ASSERT_GT(uses.size(), 20u);
    for (const std::string& use : uses) {
        // Every character of the language: names, digits, '_', '(', ')', ',', spaces, '|', '&' and '!'.
        const std::string expression = "!(" + use + " & all) | " + use + " | !diag&causal";
        SCOPED_TRACE(expression);
        const PanelSpec spec = parsePanelSpec("custom expr=" + expression + " title=(d) " + use + " | a = b");
        EXPECT_EQ(spec.choice.variant, "custom");
        EXPECT_EQ(spec.choice.params, (ParamOverrides{{"expr", expression}}));
        EXPECT_EQ(spec.title, "(d) " + use + " | a = b");
        EXPECT_EQ(expressionTermTexts(spec.choice.params.at("expr")).size(), 3u);
        // Without a title the whole text after expr= is the expression.
        EXPECT_EQ(parsePanelSpec("custom expr=" + expression).choice.params.at("expr"), expression);
    }
}

TEST(PanelSpecExpressions, TitleKeyIsNoParameterAndBarOutsideAnExpressionIsRefused) {
    for (const VariantInfo& variant : allVariants())
        for (const ParamSpec& param : variant.params) EXPECT_NE(param.key, kPanelTitleKey) << variant.id;
    EXPECT_EQ(parsePanelSpec("longformer window=8 title=(b) sliding window").title, "(b) sliding window");
    EXPECT_EQ(parsePanelSpec("longformer window=8 title=(b) sliding window").choice.params,
              (ParamOverrides{{"window", "8"}}));
    for (const std::string bad : {"longformer window=8 | (b) sliding window", "longformer window=8|(b)", "full | (a) full"}) {
        try {
            parsePanelSpec(bad);
            ADD_FAILURE() << "'" << bad << "' was accepted";
        } catch (const InputError& error) {
            EXPECT_NE(std::string(error.what()).find("title=TEXT"), std::string::npos) << error.what();
        }
    }
    EXPECT_THROW(parsePanelSpec("longformer title=  "), InputError);
    EXPECT_THROW(parsePanelSpec("title=(a) no variant"), InputError);
    EXPECT_THROW(parsePanelSpec("longformer window=8 4"), InputError); // only a string value takes more words
}

} // namespace
} // namespace attnlab
