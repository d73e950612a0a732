#include "core/patterns/pattern_components.h"

#include "core/patterns/range_algebra.h"

#include <algorithm>

namespace attnlab {

LayeredComponents::LayeredComponents(std::shared_ptr<const Pattern> pattern, std::vector<Layer> layers)
    : m_pattern(std::move(pattern)), m_layers(std::move(layers)) {}

void LayeredComponents::rowComponents(std::int64_t i, std::vector<ComponentRange>& out) const {
    RangeList remaining, layer, part, rest;
    m_pattern->rowRanges(i, remaining);
    const std::size_t first = out.size();
    for (std::size_t k = 0; k < m_layers.size() && !remaining.empty(); ++k) {
        layer.clear();
        m_layers[k](i, layer);
        intersectInto(remaining, layer, part);
        for (const auto& r : part) out.push_back({r.begin, r.end, static_cast<std::uint8_t>(k + 1)});
        subtractInto(remaining, part, rest);
        remaining.swap(rest);
    }
    for (const auto& r : remaining) out.push_back({r.begin, r.end, kAddedDiagonal});
    std::sort(out.begin() + static_cast<std::ptrdiff_t>(first), out.end(),
              [](const ComponentRange& a, const ComponentRange& b) { return a.begin < b.begin; });
}

void LayeredComponents::ownRanges(std::uint8_t component, std::int64_t i, std::vector<ColumnRange>& out) const {
    if (component == kAddedDiagonal || component == 0 || component > m_layers.size()) {
        std::vector<ComponentRange> runs;
        rowComponents(i, runs);
        for (const auto& run : runs)
            if (run.component == component) out.push_back({run.begin, run.end});
        return;
    }
    RangeList row, layer, part;
    m_pattern->rowRanges(i, row);
    m_layers[component - 1u](i, layer);
    intersectInto(row, layer, part);
    out.insert(out.end(), part.begin(), part.end());
}

std::vector<std::uint8_t> denseComponents(const PatternComponents& components) {
    const std::int64_t n = components.pattern().size(), rows = components.pattern().rows();
    std::vector<std::uint8_t> labels(static_cast<std::size_t>(rows) * static_cast<std::size_t>(n), 0);
    std::vector<ComponentRange> runs;
    for (std::int64_t i = 0; i < rows; ++i) {
        runs.clear();
        components.rowComponents(i, runs);
        for (const auto& r : runs) std::fill(labels.begin() + i * n + r.begin, labels.begin() + i * n + r.end, r.component);
    }
    return labels;
}

ComponentPattern::ComponentPattern(std::shared_ptr<const PatternComponents> components, std::uint8_t component,
                                   Cells cells)
    : Pattern(components->pattern().size()), m_components(std::move(components)), m_component(component), m_cells(cells) {}

bool ComponentPattern::allowed(std::int64_t i, std::int64_t j) const {
    std::vector<ColumnRange> ranges;
    rowRanges(i, ranges);
    return std::any_of(ranges.begin(), ranges.end(), [j](const ColumnRange& r) { return r.begin <= j && j < r.end; });
}

void ComponentPattern::rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const {
    if (m_cells == Cells::Own) {
        m_components->ownRanges(m_component, i, out);
        return;
    }
    thread_local std::vector<ComponentRange> runs;
    runs.clear();
    m_components->rowComponents(i, runs);
    for (const auto& run : runs)
        if (run.component == m_component) appendRange(out, run.begin, run.end, size());
}

std::vector<std::uint8_t> occurringComponents(const PatternComponents& components) {
    std::vector<bool> seen(256, false);
    std::vector<ComponentRange> runs;
    for (std::int64_t i = 0; i < components.pattern().size(); ++i) {
        runs.clear();
        components.rowComponents(i, runs);
        for (const auto& run : runs) seen[run.component] = true;
    }
    std::vector<std::uint8_t> labels;
    for (int k = 1; k < 256; ++k)
        if (seen[static_cast<std::size_t>(k)]) labels.push_back(static_cast<std::uint8_t>(k));
    return labels;
}

std::unique_ptr<PatternComponents> singleComponent(std::unique_ptr<Pattern> pattern) {
    const std::int64_t n = pattern->size();
    return std::make_unique<LayeredComponents>(
        std::move(pattern), std::vector<LayeredComponents::Layer>{
                                [n](std::int64_t, std::vector<ColumnRange>& out) { out.push_back({0, n}); }});
}

} // namespace attnlab
