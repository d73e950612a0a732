#pragma once

// Every allowed cell of a pattern labelled with the component it comes from, the way the BigBird and
// Sparse Transformer papers draw their patterns (window, globals, random; band, strided columns).
// Components are numbered from 1; kAddedDiagonal marks a diagonal cell that a rule added to a row that
// would otherwise be empty.

#include "core/patterns/pattern.h"

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

namespace attnlab {

inline constexpr std::uint8_t kAddedDiagonal = 255;

struct ComponentRange {
    std::int64_t begin = 0;
    std::int64_t end = 0;
    std::uint8_t component = 0;
    bool operator==(const ComponentRange&) const = default;
};

class PatternComponents {
public:
    virtual ~PatternComponents() = default;
    virtual const Pattern& pattern() const = 0;
    // Appends row i's allowed columns as labelled runs, sorted by column; together they cover exactly
    // the pattern's row i. Safe to call from several threads at once.
    virtual void rowComponents(std::int64_t i, std::vector<ComponentRange>& out) const = 0;
    // Appends the sorted ranges of row i that component k's own term allows within the pattern, also
    // where an earlier component labels the cell: what one head of a factorised pattern attends to
    // (the Sparse Transformer's A(2) keeps its strided cells inside the band). kAddedDiagonal: its cells.
    virtual void ownRanges(std::uint8_t component, std::int64_t i, std::vector<ColumnRange>& out) const = 0;
};

// Components given as ordered layers: an allowed cell belongs to the first layer (numbered from 1)
// whose row ranges contain it, and to kAddedDiagonal when no layer does. Layers need not be clipped to
// the pattern (e.g. to j <= i): only cells of the pattern are labelled. A layer's own ranges are the
// pattern's row within the layer, so a layer should not reach beyond its term (no catch-all layers).
class LayeredComponents : public PatternComponents {
public:
    using Layer = std::function<void(std::int64_t i, std::vector<ColumnRange>& out)>;
    // Shared so that a layer may read the pattern too (BigBird's random keys are its row minus the rest).
    LayeredComponents(std::shared_ptr<const Pattern> pattern, std::vector<Layer> layers);
    const Pattern& pattern() const override { return *m_pattern; }
    void rowComponents(std::int64_t i, std::vector<ComponentRange>& out) const override;
    void ownRanges(std::uint8_t component, std::int64_t i, std::vector<ColumnRange>& out) const override;

private:
    std::shared_ptr<const Pattern> m_pattern;
    std::vector<Layer> m_layers;
};

// Row-major rows × n uint8 (the pattern's rows): 0 where not allowed, else the cell's component.
std::vector<std::uint8_t> denseComponents(const PatternComponents& components);

// The cells of one component (1-based, or kAddedDiagonal) of `components` as a pattern of its own, for
// figures that draw components apart: the cells it labels, or with `Cells::Own` every cell its term
// allows (ownRanges: the components as separate heads). Unlike other patterns its rows may be empty.
class ComponentPattern : public Pattern {
public:
    enum class Cells { Labelled, Own };
    ComponentPattern(std::shared_ptr<const PatternComponents> components, std::uint8_t component,
                     Cells cells = Cells::Labelled);
    bool allowed(std::int64_t i, std::int64_t j) const override;
    void rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const override;

private:
    std::shared_ptr<const PatternComponents> m_components;
    std::uint8_t m_component;
    Cells m_cells;
};

// The component labels that occur in `components` (ascending; kAddedDiagonal last when present).
std::vector<std::uint8_t> occurringComponents(const PatternComponents& components);

// One component: every allowed cell of `pattern` is 1 (full and the variants without a mask).
std::unique_ptr<PatternComponents> singleComponent(std::unique_ptr<Pattern> pattern);

} // namespace attnlab
