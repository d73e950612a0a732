#pragma once

// Evaluation of a pattern expression at a size n, row by row, by range algebra on sorted column
// ranges: never an n × n buffer, O(ranges) work per row. All index arithmetic is overflow-safe for
// arguments up to 2^63 − 1.

#include "core/patterns/pattern.h"
#include "core/patterns/pattern_components.h"
#include "core/patterns/pattern_expression.h"
#include "core/patterns/token_grid.h"

#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace attnlab {

struct CompiledPrimitive;
struct CompiledNode;

// The allowed set of an expression: its cells (∧ j ≤ i when causal); then every row left empty gets
// its diagonal (i, i). The grid primitives read `grid` (null: none, and a grid primitive is an
// ExpressionError); a grid must have n cells (InputError otherwise).
class ExpressionPattern : public Pattern {
public:
    ExpressionPattern(const PatternExpression& expression, std::int64_t n, bool causal, TokenGridPtr grid = nullptr);
    ~ExpressionPattern() override;

    bool allowed(std::int64_t i, std::int64_t j) const override;
    void rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const override;
    std::int64_t rowCount(std::int64_t i) const override;
    // For an expression of one term j ≡ i (mod s) (stride, or dilated with δ > 1) intersected with primitives
    // of one range each (causal, band, block, …): its row as one strided range; false for any other.
    bool rowStrides(std::int64_t i, std::vector<StridedRange>& out) const override;
    // Runs of rows between the rows where a primitive changes form or two range ends cross, each read from
    // its first two rows; false for expressions with a primitive of many ranges per row (stride, random,
    // dilated with δ > 1, more than 16 columns, grid primitives) or more than 2^20 such rows. The one-term
    // form of rowStrides gives runs of rows i ≡ t (mod s) instead, while there are at most 2^20 of them.
    bool countRuns(const CountRunVisitor& visit) const override;

    std::size_t termCount() const;
    // Appends row i's columns of top-level term k (∧ j ≤ i when causal; no empty-row rule).
    void termRanges(std::size_t k, std::int64_t i, std::vector<ColumnRange>& out) const;

private:
    // The one-term form of rowStrides: the congruent primitive and the primitives of one range it meets.
    struct CongruentTerm {
        std::size_t congruent = 0;
        std::vector<std::size_t> windows;
    };
    // Sets m_congruent when the expression has that form.
    void findCongruentTerm();
    // Row i of that form before the empty-row rule (no columns: empty).
    StridedRange congruentRow(std::int64_t i) const;
    // [L, H) holding that row's columns, all of them ≡ i (mod step) in it (empty: L ≥ H): the ends the
    // counts of congruentRuns follow.
    ColumnRange congruentWindow(std::int64_t i) const;
    std::int64_t congruentStep() const;
    bool congruentRuns(const CountRunVisitor& visit) const;
    // The runs of rows [a, b), on which both ends of congruentWindow are affine in the row, into `runs`;
    // false when they are not or the runs would pass 2^20.
    bool appendCongruentRuns(std::int64_t a, std::int64_t b, std::int64_t step, std::vector<CountRun>& runs) const;
    // Rows cutting [a, b), rows between two of an expression's primitive breaks, into segments of affine
    // count (countRuns); false when a range end there does not move by 0 or 1 per row.
    bool segmentCuts(std::int64_t a, std::int64_t b, std::vector<std::int64_t>& cuts) const;
    // Row i before the empty-row rule, in this thread's scratch (valid until the next row).
    std::vector<ColumnRange>& mergedRow(std::int64_t i) const;
    // Columns of `node` in row i within [lo, hi) into `out`; `level` picks this call's scratch buffers.
    void evaluate(const CompiledNode& node, std::int64_t i, std::int64_t lo, std::int64_t hi,
                  std::vector<ColumnRange>& out, std::size_t level) const;
    std::int64_t rowEnd(std::int64_t i) const { return m_causal ? i + 1 : size(); }

    bool m_causal;
    TokenGridPtr m_grid;
    std::vector<CompiledPrimitive> m_primitives;
    std::vector<CompiledNode> m_terms;     // the top-level terms
    std::vector<std::size_t> m_unionOrder; // the terms in the order they are merged into a row
    std::optional<CongruentTerm> m_congruent;
};

// The pattern of `text` (parsed; throws ExpressionError) with component k = the k-th top-level term
// that first contains a cell, kAddedDiagonal for a diagonal added by the empty-row rule.
std::unique_ptr<PatternComponents> expressionComponents(const std::string& text, std::int64_t n, bool causal,
                                                        const TokenGridPtr& grid = nullptr);

// `pattern` labelled by the top-level terms of `text`: for built-in variants whose pattern equals the
// expression's, so their components come out of the same evaluation as the `custom` variant's.
std::unique_ptr<PatternComponents> componentsByExpression(std::unique_ptr<Pattern> pattern, const std::string& text,
                                                          bool causal, TokenGridPtr grid = nullptr);

} // namespace attnlab
