#pragma once

// The pattern expression language of the `custom` variant (docs/pattern_expressions.md):
//   expr := term ('|' term)*    term := factor ('&' factor)*
//   factor := '!' factor | '(' expr ')' | primitive    primitive := name | name '(' int (',' int)* ')'
// Whitespace is ignored; integers are decimal in [0, 2^63 − 1]. parseExpression checks everything that
// does not depend on n (syntax, names, argument counts and ranges, length and nesting limits), so a
// parsed expression can be evaluated at any n.

#include "core/errors.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

inline constexpr std::size_t kMaxExpressionLength = 1000;
inline constexpr int kMaxExpressionNesting = 64; // parentheses around any point; '!' does not nest

enum class Primitive { All, Causal, Diag, Band, Dilated, Stride, Block, Summary, Segment, Sink, Prefix, Rows, Cols,
                       Global, Docs, Random,
                       // on a token grid (core/patterns/grid_primitives.h)
                       Neighborhood, Window, ShiftedWindow, TileNeighborhood, SameRow, SameCol, SameFrame, SamePixel };

// A bad expression. position is the 1-based index of the character where the problem is found
// (length + 1 for an unexpected end); the message already names it.
class ExpressionError : public InputError {
public:
    ExpressionError(const std::string& problem, std::size_t position);
    std::size_t position() const { return m_position; }
    const std::string& problem() const { return m_problem; }

private:
    std::string m_problem;
    std::size_t m_position;
};

struct ExpressionNode {
    enum class Kind { Union, Intersection, Complement, Primitive };
    Kind kind = Kind::Primitive;
    std::vector<ExpressionNode> children;  // Union/Intersection: two or more; Complement: one
    Primitive primitive = Primitive::All; // for Kind::Primitive
    std::vector<std::int64_t> args;
    std::size_t position = 0;             // 1-based, first character of the node
};

// A parsed expression: its top-level '|' terms in order (the components of the pattern).
struct PatternExpression {
    std::vector<ExpressionNode> terms;
};

PatternExpression parseExpression(const std::string& text);

// The source text of each top-level '|' term of a valid expression, trimmed, in order (the names the
// figures give the components). Throws ExpressionError like parseExpression.
std::vector<std::string> expressionTermTexts(const std::string& text);

// The primitive names, for messages and the user documentation.
std::string primitiveNames();

} // namespace attnlab
