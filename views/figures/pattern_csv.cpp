#include "views/figures/pattern_csv.h"
#include "views/figures/csv_text.h"

#include "core/analysis/panel_spec.h"

#include <QStringList>

#include <algorithm>

namespace attnlab {

namespace {

QString rowStart(std::size_t index, const PatternPanel& panel, std::int64_t i, const std::vector<std::string>& tokens) {
    const QString token = tokens.empty() ? QString() : QString::fromStdString(tokens[static_cast<std::size_t>(i)]);
    return QStringLiteral("%1,%2,%3,%4").arg(index + 1).arg(csvField(QString::fromStdString(panel.choice.variant))).arg(i).arg(csvField(token));
}

QString maskCsv(const PatternSnapshot& snapshot, const std::vector<std::string>& tokens) {
    QString csv = QStringLiteral("panel,variant,query_i,query_token,allowed_count,allowed_ranges\n");
    std::vector<ColumnRange> ranges;
    for (std::size_t index = 0; index < snapshot.panels.size(); ++index) {
        const PatternPanel& panel = snapshot.panels[index];
        if (!panel.pattern) continue;
        for (std::int64_t i = 0; i < panel.n; ++i) {
            ranges.clear();
            panel.pattern->rowRanges(i, ranges);
            QStringList items;
            for (const auto& range : ranges) items << QStringLiteral("%1-%2").arg(range.begin).arg(range.end - 1);
            csv += QStringLiteral("%1,%2,%3\n").arg(rowStart(index, panel, i, tokens)).arg(panel.pattern->rowCount(i)).arg(items.join(';'));
        }
    }
    return csv;
}

QString weightsCsv(const PatternSnapshot& snapshot, const std::vector<std::string>& tokens) {
    QString csv = QStringLiteral("panel,variant,query_i,query_token");
    for (std::int64_t j = 0; j < snapshot.n; ++j)
        csv += QLatin1Char(',') + (tokens.empty() ? QStringLiteral("key_%1").arg(j) : csvField(QString::fromStdString(tokens[static_cast<std::size_t>(j)])));
    csv += QLatin1Char('\n');
    std::vector<ColumnRange> ranges;
    std::vector<char> allowed;
    for (std::size_t index = 0; index < snapshot.panels.size(); ++index) {
        const PatternPanel& panel = snapshot.panels[index];
        if (!panel.weights || !panel.pattern) continue;
        const std::int64_t n = panel.n;
        for (std::int64_t i = 0; i < n; ++i) {
            // Variants without a mask (linear, low-rank) weigh every key.
            allowed.assign(static_cast<std::size_t>(n), panel.hasMask ? 0 : 1);
            ranges.clear();
            panel.pattern->rowRanges(i, ranges);
            for (const auto& range : ranges) std::fill(allowed.begin() + range.begin, allowed.begin() + range.end, 1);
            csv += rowStart(index, panel, i, tokens);
            const float* row = panel.weights->data() + i * n;
            for (std::int64_t j = 0; j < n; ++j) {
                csv += QLatin1Char(',');
                if (allowed[static_cast<std::size_t>(j)]) csv += QString::number(row[j], 'g', 9);
            }
            csv += QLatin1Char('\n');
        }
    }
    return csv;
}

} // namespace

QString patternCsv(const PatternSnapshot& snapshot) {
    const std::vector<std::string> tokens = axisTokens(snapshot.settings.tokens, snapshot.n);
    const bool anyWeights = std::any_of(snapshot.panels.begin(), snapshot.panels.end(),
                                        [](const PatternPanel& panel) { return panel.weights && panel.pattern; });
    return snapshot.settings.showWeights && anyWeights ? weightsCsv(snapshot, tokens) : maskCsv(snapshot, tokens);
}

} // namespace attnlab
