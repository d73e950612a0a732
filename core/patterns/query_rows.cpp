#include "core/patterns/query_rows.h"

#include <stdexcept>

namespace attnlab {

QueryRowsPattern::QueryRowsPattern(std::shared_ptr<const Pattern> whole, std::int64_t queries)
    : Pattern(queries, whole->size()), m_whole(std::move(whole)), m_first(size() - queries) {
    if (queries < 1 || queries > size() || m_whole->rows() != size())
        throw std::logic_error("QueryRowsPattern: 1 <= queries <= n of a square pattern");
}

bool QueryRowsPattern::countRuns(const CountRunVisitor& visit) const {
    return m_whole->countRuns([&](const CountRun& run) { visitClipped(run, m_first, size(), visit); });
}

LeadingPattern::LeadingPattern(std::shared_ptr<const Pattern> whole, std::int64_t n)
    : Pattern(n), m_whole(std::move(whole)) {
    if (n < 1 || n > m_whole->size() || m_whole->rows() != m_whole->size())
        throw std::logic_error("LeadingPattern: 1 <= n <= the size of a square pattern");
}

bool LeadingPattern::countRuns(const CountRunVisitor& visit) const {
    return m_whole->countRuns([&](const CountRun& run) { visitClipped(run, 0, size(), visit); });
}

std::unique_ptr<Pattern> lastQueryRows(std::unique_ptr<Pattern> whole, std::int64_t queries) {
    if (queries == whole->rows()) return whole;
    return std::make_unique<QueryRowsPattern>(std::shared_ptr<const Pattern>(std::move(whole)), queries);
}

namespace {

class QueryRowsComponents : public PatternComponents {
public:
    QueryRowsComponents(std::shared_ptr<const PatternComponents> whole, std::int64_t queries)
        : m_whole(std::move(whole)), m_rows(std::shared_ptr<const Pattern>(m_whole, &m_whole->pattern()), queries) {}
    const Pattern& pattern() const override { return m_rows; }
    void rowComponents(std::int64_t r, std::vector<ComponentRange>& out) const override {
        m_whole->rowComponents(m_rows.firstRow() + r, out);
    }
    void ownRanges(std::uint8_t component, std::int64_t r, std::vector<ColumnRange>& out) const override {
        m_whole->ownRanges(component, m_rows.firstRow() + r, out);
    }

private:
    std::shared_ptr<const PatternComponents> m_whole;
    QueryRowsPattern m_rows;
};

} // namespace

std::unique_ptr<PatternComponents> lastQueryRows(std::unique_ptr<PatternComponents> whole, std::int64_t queries) {
    if (queries == whole->pattern().rows()) return whole;
    return std::make_unique<QueryRowsComponents>(std::shared_ptr<const PatternComponents>(std::move(whole)), queries);
}

} // namespace attnlab
