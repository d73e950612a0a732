#pragma once

// The compiled forms of a pattern expression, shared by expression_pattern.cpp (row evaluation) and
// expression_pattern_runs.cpp (row counts as runs). Internal to core/patterns.

#include "core/patterns/grid_primitives.h"
#include "core/patterns/pattern_expression.h"
#include "core/patterns/range_algebra.h"

#include <cstdint>
#include <vector>

namespace attnlab {

// A primitive made ready for one n: its arguments plus what does not depend on the row.
struct CompiledPrimitive {
    Primitive kind = Primitive::All;
    std::int64_t a = 0;
    std::int64_t b = 0;
    std::vector<std::int64_t> indices; // rows/global: G ∩ [0, n), sorted; docs: document starts < n
    RangeList columns;                 // cols/global: G ∩ [0, n); summary: every summary column
    GridPrimitive grid;                // the grid primitives
};

// The expression tree with the operands of unions and intersections reordered so that those giving at
// most one range come first: in an intersection their extent bounds where the others are generated
// (`stride(4) & block(64)` lists 16 columns, not n/4); in a union the long lists are merged last.
struct CompiledNode {
    ExpressionNode::Kind kind = ExpressionNode::Kind::Primitive;
    std::size_t primitive = 0; // index into the pattern's primitives
    std::vector<CompiledNode> children;
};

// Row i of one primitive over all of [0, n), without a grid (its grid primitives excluded), into `out`.
void wholePrimitiveRow(const CompiledPrimitive& p, std::int64_t i, std::int64_t n, RangeList& out);

} // namespace attnlab
