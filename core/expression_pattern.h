#pragma once

// Evaluation of a pattern expression at a size n, row by row, by range algebra on sorted column
// ranges: never an n × n buffer, O(ranges) work per row. All index arithmetic is overflow-safe for
// arguments up to 2^63 − 1.

#include "core/pattern.h"
#include "core/pattern_components.h"
#include "core/pattern_expression.h"

#include <memory>
#include <string>
#include <vector>

namespace attnlab {

struct CompiledPrimitive;
struct EvaluationStep;

// The allowed set of an expression: its cells (∧ j ≤ i when causal); then every row left empty gets
// its diagonal (i, i).
class ExpressionPattern : public Pattern {
public:
    ExpressionPattern(const PatternExpression& expression, std::int64_t n, bool causal);
    ~ExpressionPattern() override;

    bool allowed(std::int64_t i, std::int64_t j) const override;
    void rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const override;

    std::size_t termCount() const { return m_terms.size(); }
    // Appends row i's columns of top-level term k as the expression defines it (not clipped to j ≤ i).
    void termRanges(std::size_t k, std::int64_t i, std::vector<ColumnRange>& out) const;

private:
    void evaluate(const std::vector<EvaluationStep>& program, std::int64_t i, std::vector<ColumnRange>& out) const;

    bool m_causal;
    std::vector<CompiledPrimitive> m_primitives;
    std::vector<std::vector<EvaluationStep>> m_terms; // one postfix program per top-level term
    std::vector<EvaluationStep> m_whole;              // the union of all terms
};

// The pattern of `text` (parsed; throws ExpressionError) with component k = the k-th top-level term
// that first contains a cell, kAddedDiagonal for a diagonal added by the empty-row rule.
std::unique_ptr<PatternComponents> expressionComponents(const std::string& text, std::int64_t n, bool causal);

// `pattern` labelled by the top-level terms of `text`: for built-in variants whose pattern equals the
// expression's, so their components come out of the same evaluation as the `custom` variant's.
std::unique_ptr<PatternComponents> componentsByExpression(std::unique_ptr<Pattern> pattern, const std::string& text,
                                                          bool causal);

} // namespace attnlab
