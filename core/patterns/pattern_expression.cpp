#include "core/patterns/pattern_expression.h"

#include "core/patterns/text_characters.h"

#include <array>
#include <cctype>
#include <limits>

namespace attnlab {

ExpressionError::ExpressionError(const std::string& problem, std::size_t position)
    : InputError("bad expression: " + problem + " at position " + std::to_string(position)), m_problem(problem),
      m_position(position) {}

namespace {

constexpr int kUnbounded = -1;

struct PrimitiveRule {
    const char* name;
    Primitive primitive;
    int minArgs;
    int maxArgs;         // kUnbounded for index and length lists
    const char* usage;   // as shown in messages
};

constexpr std::array kRules = {
    PrimitiveRule{"all", Primitive::All, 0, 0, "all"},
    PrimitiveRule{"causal", Primitive::Causal, 0, 0, "causal"},
    PrimitiveRule{"diag", Primitive::Diag, 0, 0, "diag"},
    PrimitiveRule{"band", Primitive::Band, 1, 1, "band(r)"},
    PrimitiveRule{"dilated", Primitive::Dilated, 2, 2, "dilated(r, delta)"},
    PrimitiveRule{"stride", Primitive::Stride, 1, 1, "stride(l)"},
    PrimitiveRule{"block", Primitive::Block, 1, 1, "block(c)"},
    PrimitiveRule{"summary", Primitive::Summary, 2, 2, "summary(l, c)"},
    PrimitiveRule{"segment", Primitive::Segment, 2, 2, "segment(L, m)"},
    PrimitiveRule{"sink", Primitive::Sink, 1, 1, "sink(s)"},
    PrimitiveRule{"prefix", Primitive::Prefix, 1, 1, "prefix(p)"},
    PrimitiveRule{"rows", Primitive::Rows, 1, kUnbounded, "rows(g1, ...)"},
    PrimitiveRule{"cols", Primitive::Cols, 1, kUnbounded, "cols(g1, ...)"},
    PrimitiveRule{"global", Primitive::Global, 1, kUnbounded, "global(g1, ...)"},
    PrimitiveRule{"docs", Primitive::Docs, 1, kUnbounded, "docs(L1, ...)"},
    PrimitiveRule{"random", Primitive::Random, 2, 2, "random(r, seed)"},
    // Grid primitives: the arity also depends on the grid's dimension, checked with the grid.
    PrimitiveRule{"neighborhood", Primitive::Neighborhood, 1, 6, "neighborhood(k, ...)"},
    PrimitiveRule{"window", Primitive::Window, 1, 3, "window(m, ...)"},
    PrimitiveRule{"shifted_window", Primitive::ShiftedWindow, 1, 3, "shifted_window(m, ...)"},
    PrimitiveRule{"tile_neighborhood", Primitive::TileNeighborhood, 4, 6, "tile_neighborhood(a, b, ..., Ka, Kb, ...)"},
    PrimitiveRule{"same_row", Primitive::SameRow, 0, 0, "same_row"},
    PrimitiveRule{"same_col", Primitive::SameCol, 0, 0, "same_col"},
    PrimitiveRule{"same_frame", Primitive::SameFrame, 0, 0, "same_frame"},
    PrimitiveRule{"same_pixel", Primitive::SamePixel, 0, 0, "same_pixel"},
};

// Smallest allowed value of argument `index` (all arguments are >= 0 by the grammar).
std::int64_t minimumArgument(Primitive primitive, std::size_t index) {
    switch (primitive) {
    case Primitive::Dilated: return index == 1 ? 1 : 0;
    case Primitive::Stride:
    case Primitive::Block:
    case Primitive::Summary:
    case Primitive::Segment: return index == 0 || primitive == Primitive::Summary ? 1 : 0;
    case Primitive::Docs:
    case Primitive::Neighborhood:
    case Primitive::Window:
    case Primitive::ShiftedWindow:
    case Primitive::TileNeighborhood: return 1;
    default: return 0;
    }
}

std::string plural(int count, const char* word) {
    return std::to_string(count) + " " + word + (count == 1 ? "" : "s");
}

class Parser {
public:
    explicit Parser(const std::string& text) : m_text(text) {}

    PatternExpression parse() {
        if (m_text.size() > kMaxExpressionLength)
            throw ExpressionError("longer than " + std::to_string(kMaxExpressionLength) + " characters (" +
                                      std::to_string(m_text.size()) + ")",
                                  kMaxExpressionLength + 1);
        if (const auto foreign = firstForeignCharacter(m_text))
            throw ExpressionError(foreign->description + " is not part of the expression language (ASCII only)",
                                  foreign->position);
        PatternExpression expression;
        expression.terms.push_back(parseTerm());
        while (accept('|')) expression.terms.push_back(parseTerm());
        skipSpace();
        if (m_pos < m_text.size()) unexpected("'|', '&' or the end");
        return expression;
    }

private:
    ExpressionNode parseExpr() {
        ExpressionNode first = parseTerm();
        if (!peekIs('|')) return first;
        ExpressionNode node;
        node.kind = ExpressionNode::Kind::Union;
        node.position = first.position;
        node.children.push_back(std::move(first));
        while (accept('|')) node.children.push_back(parseTerm());
        return node;
    }

    ExpressionNode parseTerm() {
        ExpressionNode first = parseFactor();
        if (!peekIs('&')) return first;
        ExpressionNode node;
        node.kind = ExpressionNode::Kind::Intersection;
        node.position = first.position;
        node.children.push_back(std::move(first));
        while (accept('&')) node.children.push_back(parseFactor());
        return node;
    }

    ExpressionNode parseFactor() {
        skipSpace();
        const std::size_t start = m_pos + 1;
        if (accept('!')) {
            ExpressionNode node;
            node.kind = ExpressionNode::Kind::Complement;
            node.position = start;
            node.children.push_back(parseFactor());
            return node;
        }
        if (accept('(')) {
            if (++m_depth > kMaxExpressionNesting)
                throw ExpressionError("parentheses nested deeper than " + std::to_string(kMaxExpressionNesting), start);
            ExpressionNode inner = parseExpr();
            expect(')', "')'");
            --m_depth;
            return inner;
        }
        if (m_pos < m_text.size() && std::isalpha(static_cast<unsigned char>(m_text[m_pos]))) return parsePrimitive();
        unexpected("a primitive, '(' or '!'");
    }

    ExpressionNode parsePrimitive() {
        const std::size_t start = m_pos;
        while (m_pos < m_text.size() && (std::isalnum(static_cast<unsigned char>(m_text[m_pos])) || m_text[m_pos] == '_'))
            ++m_pos;
        const std::string name = m_text.substr(start, m_pos - start);
        const PrimitiveRule* rule = nullptr;
        for (const auto& candidate : kRules)
            if (name == candidate.name) rule = &candidate;
        if (!rule) throw ExpressionError("unknown primitive '" + name + "' (known: " + primitiveNames() + ")", start + 1);
        ExpressionNode node;
        node.primitive = rule->primitive;
        node.position = start + 1;
        std::vector<std::size_t> argPositions;
        if (accept('(')) {
            do {
                skipSpace();
                argPositions.push_back(m_pos + 1);
                node.args.push_back(parseInteger());
            } while (accept(','));
            expect(')', "',' or ')'");
        }
        checkArguments(*rule, node, argPositions);
        return node;
    }

    static void checkArguments(const PrimitiveRule& rule, const ExpressionNode& node,
                               const std::vector<std::size_t>& argPositions) {
        const auto count = static_cast<int>(node.args.size());
        if (count < rule.minArgs || (rule.maxArgs != kUnbounded && count > rule.maxArgs)) {
            const std::string wanted = rule.maxArgs == kUnbounded ? "at least " + plural(rule.minArgs, "argument")
                                       : rule.maxArgs == 0    ? "no arguments"
                                       : rule.minArgs == rule.maxArgs
                                           ? plural(rule.minArgs, "argument")
                                           : std::to_string(rule.minArgs) + " to " + plural(rule.maxArgs, "argument");
            throw ExpressionError(std::string("'") + rule.name + "' takes " + wanted + " (" + rule.usage + "), got " +
                                      std::to_string(count),
                                  node.position);
        }
        if (rule.primitive == Primitive::Neighborhood && count == 5) // no grid dimension takes 5
            throw ExpressionError("'neighborhood' takes 1, 2 or 4 arguments on an image, 1, 3 or 6 on a video, got 5",
                                  node.position);
        for (std::size_t a = 0; a < node.args.size(); ++a) {
            const std::int64_t minimum = minimumArgument(rule.primitive, a);
            if (node.args[a] < minimum)
                throw ExpressionError("argument " + std::to_string(a + 1) + " of " + rule.usage + " must be >= " +
                                          std::to_string(minimum) + ", got " + std::to_string(node.args[a]),
                                      argPositions[a]);
        }
        if (rule.primitive == Primitive::Summary && node.args[1] > node.args[0])
            throw ExpressionError("summary(l, c) needs c <= l, got c = " + std::to_string(node.args[1]) + " > l = " +
                                      std::to_string(node.args[0]),
                                  argPositions[1]);
    }

    std::int64_t parseInteger() {
        const std::size_t start = m_pos;
        if (m_pos >= m_text.size() || !std::isdigit(static_cast<unsigned char>(m_text[m_pos])))
            unexpected("an integer");
        std::int64_t value = 0;
        constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
        while (m_pos < m_text.size() && std::isdigit(static_cast<unsigned char>(m_text[m_pos]))) {
            const int digit = m_text[m_pos] - '0';
            if (value > (kMax - digit) / 10)
                throw ExpressionError("integer larger than 2^63 - 1 = " + std::to_string(kMax), start + 1);
            value = value * 10 + digit;
            ++m_pos;
        }
        return value;
    }

    void skipSpace() {
        while (m_pos < m_text.size() && std::isspace(static_cast<unsigned char>(m_text[m_pos]))) ++m_pos;
    }

    bool peekIs(char c) {
        skipSpace();
        return m_pos < m_text.size() && m_text[m_pos] == c;
    }

    bool accept(char c) {
        if (!peekIs(c)) return false;
        ++m_pos;
        return true;
    }

    void expect(char c, const char* what) {
        if (!accept(c)) unexpected(what);
    }

    [[noreturn]] void unexpected(const std::string& wanted) {
        skipSpace();
        if (m_pos >= m_text.size()) throw ExpressionError("expected " + wanted + " but the expression ends", m_pos + 1);
        const unsigned char c = static_cast<unsigned char>(m_text[m_pos]);
        const std::string shown = std::isprint(c) ? std::string("'") + m_text[m_pos] + "'" : "byte " + std::to_string(c);
        throw ExpressionError("expected " + wanted + ", found " + shown, m_pos + 1);
    }

    const std::string& m_text;
    std::size_t m_pos = 0;
    int m_depth = 0;
};

} // namespace

PatternExpression parseExpression(const std::string& text) { return Parser(text).parse(); }

std::string primitiveNames() {
    std::string names;
    for (const auto& rule : kRules) names += (names.empty() ? "" : ", ") + std::string(rule.name);
    return names;
}

std::vector<std::string> expressionTermTexts(const std::string& text) {
    parseExpression(text);
    std::vector<std::string> terms;
    const auto addTerm = [&](std::size_t begin, std::size_t end) {
        while (begin < end && std::isspace(static_cast<unsigned char>(text[begin]))) ++begin;
        while (end > begin && std::isspace(static_cast<unsigned char>(text[end - 1]))) --end;
        terms.push_back(text.substr(begin, end - begin));
    };
    int depth = 0;
    std::size_t start = 0;
    for (std::size_t k = 0; k < text.size(); ++k) {
        if (text[k] == '(') ++depth;
        if (text[k] == ')') --depth;
        if (text[k] == '|' && depth == 0) {
            addTerm(start, k);
            start = k + 1;
        }
    }
    addTerm(start, text.size());
    return terms;
}

} // namespace attnlab
