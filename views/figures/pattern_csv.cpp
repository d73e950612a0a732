#include "views/figures/pattern_csv.h"
#include "views/figures/csv_text.h"

#include "core/analysis/panel_spec.h"
#include "core/jobs/memory_budget.h"
#include "core/patterns/range_work.h"

#include <QStringList>

#include <algorithm>

namespace attnlab {

namespace {

// With a grid: what the grid view shows of position i for the query cell, the picture's cell (t, y, x).
class GridColumns {
public:
    GridColumns(const PatternSnapshot& snapshot, std::int64_t query) : m_grid(snapshot.grid), m_query(query) {}
    static QString header(bool grid) { return grid ? QStringLiteral(",cell_t,cell_y,cell_x,grid_query,attended,component,component_term") : QString(); }

    // The query's row of `panel`, each position's component (0: not attended; -1: attended, no component).
    void startPanel(const PatternPanel& panel) {
        if (!m_grid) return;
        m_panel = &panel;
        m_own = panel.grid ? panel.grid.get() : m_grid.get(); // the panel's order
        m_panelQuery = panel.ownPosition(*m_grid, m_query);
        m_component.assign(static_cast<std::size_t>(panel.n), 0);
        const int own = panel.legend.size() == 1 && !panel.components ? panel.legend.front().component : -1;
        if (panel.components) {
            std::vector<ComponentRange> runs;
            panel.components->rowComponents(m_panelQuery, runs);
            for (const ComponentRange& run : runs) std::fill(m_component.begin() + run.begin, m_component.begin() + run.end, run.component);
            return;
        }
        std::vector<ColumnRange> ranges;
        panel.pattern->rowRanges(m_panelQuery, ranges);
        for (const ColumnRange& range : ranges) std::fill(m_component.begin() + range.begin, m_component.begin() + range.end, own);
    }

    QString fields(std::int64_t i) const {
        if (!m_grid) return {};
        const GridCell cell = m_own->cellAt(i);
        const int component = m_component[static_cast<std::size_t>(i)];
        QString term;
        for (const auto& entry : m_panel->legend)
            if (entry.component == component) term = entry.text;
        return QStringLiteral(",%1,%2,%3,%4,%5,%6,%7")
            .arg(cell.t)
            .arg(cell.y)
            .arg(cell.x)
            .arg(m_panelQuery)
            .arg(component != 0 ? 1 : 0)
            .arg(component > 0 ? QString::number(component) : QString())
            .arg(csvField(term));
    }

private:
    TokenGridPtr m_grid;
    std::int64_t m_query;
    const PatternPanel* m_panel = nullptr;
    const TokenGrid* m_own = nullptr;
    std::int64_t m_panelQuery = 0;
    std::vector<int> m_component;
};

// The CSV is built whole in memory and then written as UTF-8, about 3 bytes per character. Its size is
// estimated before it is built (from each mask's rows sampled within the job's range limit, or exactly for
// weights) and refused when that passes the job's memory budget, so that a pattern of billions of ranges
// (stride(2) at n = 65,536) is refused at once with nothing written; the building is checked against the
// budget too, for patterns whose rows the sample does not represent.
constexpr double kBytesPerChar = 3.0;

double digits(std::int64_t value) { return static_cast<double>(QString::number(value).size()); }

// Characters of a row before its ranges or weights: an upper bound from the longest token and name.
double rowLeadChars(const PatternPanel& panel, bool grid, double tokenChars) {
    const double position = digits(std::max<std::int64_t>(panel.n, 1));
    const double name = 2.0 * static_cast<double>(panel.choice.variant.size()) + 2.0;
    std::size_t term = 0;
    for (const auto& entry : panel.legend) term = std::max(term, static_cast<std::size_t>(entry.text.size()));
    const double gridChars = grid ? 5.0 * position + 10.0 + 2.0 * static_cast<double>(term) : 0.0;
    return 8.0 + name + 2.0 * position + tokenChars + gridChars;
}

double maxTokenChars(const std::vector<std::string>& tokens) {
    std::size_t longest = 0;
    for (const std::string& token : tokens) longest = std::max(longest, token.size());
    return 2.0 * static_cast<double>(longest) + 2.0;
}

void requireCsvMemory(const PatternSnapshot& snapshot, const std::vector<std::string>& tokens, bool weights) {
    const double tokenChars = maxTokenChars(tokens);
    // The weights' header names every key.
    double chars = weights ? static_cast<double>(snapshot.n) * (tokenChars + digits(snapshot.n) + 5.0) : 0.0;
    for (const PatternPanel& panel : snapshot.panels) {
        if (!panel.pattern || (weights && !panel.weights)) continue;
        const double rows = static_cast<double>(panel.n), lead = rowLeadChars(panel, snapshot.grid != nullptr, tokenChars);
        if (weights) {
            chars += rows * (lead + static_cast<double>(panel.n) * 17.0);
            continue;
        }
        const double ranges = requireRangeWork(*panel.pattern);
        chars += rows * lead + ranges * (2.0 * digits(panel.n) + 2.0);
    }
    requireMemory(kBytesPerChar * chars, "the pattern figure's CSV (about " + std::to_string(static_cast<std::int64_t>(chars)) + " characters)");
}

class CsvBudget {
public:
    void check(const QString& csv) {
        if (csv.size() < m_next) return;
        requireMemory(kBytesPerChar * static_cast<double>(csv.size()), "the pattern figure's CSV, so far,");
        m_next = csv.size() + kStep;
    }

private:
    static constexpr qsizetype kStep = qsizetype{1} << 22;
    qsizetype m_next = kStep;
};

QString rowStart(std::size_t index, const PatternPanel& panel, std::int64_t i, const std::vector<std::string>& tokens) {
    const QString token = tokens.empty() ? QString() : QString::fromStdString(tokens[static_cast<std::size_t>(i)]);
    return QStringLiteral("%1,%2,%3,%4").arg(index + 1).arg(csvField(QString::fromStdString(panel.choice.variant))).arg(i).arg(csvField(token));
}

QString maskCsv(const PatternSnapshot& snapshot, const std::vector<std::string>& tokens, GridColumns& grid) {
    QString csv = QStringLiteral("panel,variant,query_i,query_token%1,allowed_count,allowed_ranges\n").arg(GridColumns::header(snapshot.grid != nullptr));
    CsvBudget budget;
    std::vector<ColumnRange> ranges;
    for (std::size_t index = 0; index < snapshot.panels.size(); ++index) {
        const PatternPanel& panel = snapshot.panels[index];
        if (!panel.pattern) continue;
        grid.startPanel(panel);
        for (std::int64_t i = 0; i < panel.n; ++i) {
            ranges.clear();
            panel.pattern->rowRanges(i, ranges);
            QStringList items;
            for (const auto& range : ranges) items << QStringLiteral("%1-%2").arg(range.begin).arg(range.end - 1);
            csv += QStringLiteral("%1%2,%3,%4\n").arg(rowStart(index, panel, i, tokens), grid.fields(i)).arg(panel.pattern->rowCount(i)).arg(items.join(';'));
            budget.check(csv);
        }
    }
    return csv;
}

QString weightsCsv(const PatternSnapshot& snapshot, const std::vector<std::string>& tokens, GridColumns& grid) {
    QString csv = QStringLiteral("panel,variant,query_i,query_token") + GridColumns::header(snapshot.grid != nullptr);
    for (std::int64_t j = 0; j < snapshot.n; ++j)
        csv += QLatin1Char(',') + (tokens.empty() ? QStringLiteral("key_%1").arg(j) : csvField(QString::fromStdString(tokens[static_cast<std::size_t>(j)])));
    csv += QLatin1Char('\n');
    CsvBudget budget;
    std::vector<ColumnRange> ranges;
    std::vector<char> allowed;
    for (std::size_t index = 0; index < snapshot.panels.size(); ++index) {
        const PatternPanel& panel = snapshot.panels[index];
        if (!panel.weights || !panel.pattern) continue;
        const std::int64_t n = panel.n;
        grid.startPanel(panel);
        for (std::int64_t i = 0; i < n; ++i) {
            // Variants without a mask (linear, low-rank) weigh every key.
            allowed.assign(static_cast<std::size_t>(n), panel.hasMask ? 0 : 1);
            ranges.clear();
            panel.pattern->rowRanges(i, ranges);
            for (const auto& range : ranges) std::fill(allowed.begin() + range.begin, allowed.begin() + range.end, 1);
            csv += rowStart(index, panel, i, tokens) + grid.fields(i);
            const float* row = panel.weights->data() + i * n;
            for (std::int64_t j = 0; j < n; ++j) {
                csv += QLatin1Char(',');
                if (allowed[static_cast<std::size_t>(j)]) csv += QString::number(row[j], 'g', 9);
            }
            csv += QLatin1Char('\n');
            budget.check(csv);
        }
    }
    return csv;
}

} // namespace

QString patternCsv(const PatternSnapshot& snapshot, std::int64_t gridQuery) {
    const std::vector<std::string> tokens = axisTokens(snapshot.settings.tokens, snapshot.n);
    const bool anyWeights = std::any_of(snapshot.panels.begin(), snapshot.panels.end(),
                                        [](const PatternPanel& panel) { return panel.weights && panel.pattern; });
    GridColumns grid(snapshot, gridQuery >= 0 ? gridQuery : snapshot.query);
    const bool weights = snapshot.settings.showWeights && anyWeights;
    requireCsvMemory(snapshot, tokens, weights);
    return weights ? weightsCsv(snapshot, tokens, grid) : maskCsv(snapshot, tokens, grid);
}

} // namespace attnlab
