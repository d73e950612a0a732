#include "views/figures/pattern_csv.h"
#include "views/figures/csv_text.h"

#include "core/analysis/panel_spec.h"
#include "core/jobs/memory_budget.h"

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

// The CSV is built whole in memory and then written as UTF-8, about 3 bytes per character: checked against
// the job's memory budget as it grows, so that a pattern of billions of ranges (stride(2) at n = 65,536) is
// refused within the budget, with nothing written, instead of filling the machine.
class CsvBudget {
public:
    void check(const QString& csv) {
        if (csv.size() < m_next) return;
        requireMemory(3.0 * static_cast<double>(csv.size()), "the pattern figure's CSV, so far,");
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
    return snapshot.settings.showWeights && anyWeights ? weightsCsv(snapshot, tokens, grid) : maskCsv(snapshot, tokens, grid);
}

} // namespace attnlab
