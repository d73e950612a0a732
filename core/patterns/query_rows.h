#pragma once

// Queries that are not the whole sequence: the last m query rows of an n × n pattern (positions
// n − m … n − 1) against all n keys — a chunk of prefill over a cache, or m tokens verified at once.
// Row r of the rectangle is row n − m + r of the pattern it is cut from.

#include "core/patterns/pattern.h"
#include "core/patterns/pattern_components.h"

#include <memory>

namespace attnlab {

class QueryRowsPattern : public Pattern {
public:
    // `whole` is n × n; 1 ≤ queries ≤ n.
    QueryRowsPattern(std::shared_ptr<const Pattern> whole, std::int64_t queries);
    std::int64_t firstRow() const { return m_first; }
    bool allowed(std::int64_t r, std::int64_t j) const override { return m_whole->allowed(m_first + r, j); }
    void rowRanges(std::int64_t r, std::vector<ColumnRange>& out) const override { m_whole->rowRanges(m_first + r, out); }
    std::int64_t rowCount(std::int64_t r) const override { return m_whole->rowCount(m_first + r); }
    bool rowStrides(std::int64_t r, std::vector<StridedRange>& out) const override { return m_whole->rowStrides(m_first + r, out); }
    bool countRuns(const CountRunVisitor& visit) const override;

private:
    std::shared_ptr<const Pattern> m_whole;
    std::int64_t m_first;
};

// The first n rows and columns of a causal pattern of more positions: the context of a causal generation that
// has produced n of its tokens (a grid's first n cells, ProblemShape::setCausalContext). Row i is row i of
// the whole pattern, whose columns, causal, all lie below n.
class LeadingPattern : public Pattern {
public:
    // `whole` is square and causal; 1 ≤ n ≤ its size.
    LeadingPattern(std::shared_ptr<const Pattern> whole, std::int64_t n);
    bool allowed(std::int64_t i, std::int64_t j) const override { return j < size() && m_whole->allowed(i, j); }
    void rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const override { m_whole->rowRanges(i, out); }
    std::int64_t rowCount(std::int64_t i) const override { return m_whole->rowCount(i); }
    bool rowStrides(std::int64_t i, std::vector<StridedRange>& out) const override { return m_whole->rowStrides(i, out); }
    bool countRuns(const CountRunVisitor& visit) const override;

private:
    std::shared_ptr<const Pattern> m_whole;
};

// The last `queries` rows of `whole`, or `whole` itself when queries is its n.
std::unique_ptr<Pattern> lastQueryRows(std::unique_ptr<Pattern> whole, std::int64_t queries);

// The same rows of a pattern's components, labelled as in the whole pattern.
std::unique_ptr<PatternComponents> lastQueryRows(std::unique_ptr<PatternComponents> whole, std::int64_t queries);

} // namespace attnlab
