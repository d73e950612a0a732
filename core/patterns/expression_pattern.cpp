#include "core/patterns/expression_pattern.h"
#include "core/patterns/expression_compiled.h"

#include "core/patterns/grid_primitives.h"
#include "core/patterns/range_algebra.h"
#include "core/patterns/range_work.h"
#include "core/random/random.h"

#include <algorithm>
#include <deque>
#include <unordered_set>

namespace attnlab {

namespace {

// Row scratch reused across calls on each thread (rowRanges may run on several threads at once): three
// range lists per recursion level, in a deque so that growing it keeps earlier levels in place.
struct Scratch {
    std::deque<RangeList> buffers;
    std::vector<std::int64_t> drawn;
    std::unordered_set<std::int64_t> chosen;
    RangeList& buffer(std::size_t level, std::size_t slot) {
        while (buffers.size() <= 3 * level + slot) buffers.emplace_back();
        return buffers[3 * level + slot];
    }
};
thread_local Scratch t_scratch;

// x + y clipped to `limit`, for x < limit and y >= 0 (never overflows).
std::int64_t addClipped(std::int64_t x, std::int64_t y, std::int64_t limit) { return y >= limit - x ? limit : x + y; }
// x − y clipped at `floor`, for x >= floor >= 0 and y >= 0.
std::int64_t subtractClipped(std::int64_t x, std::int64_t y, std::int64_t floor) { return y >= x - floor ? floor : x - y; }

void pushClipped(RangeList& out, std::int64_t begin, std::int64_t end, std::int64_t lo, std::int64_t hi) {
    begin = std::max(begin, lo);
    end = std::min(end, hi);
    if (begin < end) out.push_back({begin, end});
}

bool givesOneRange(const CompiledPrimitive& p) {
    switch (p.kind) {
    case Primitive::Stride:
    case Primitive::Summary:
    case Primitive::Cols:
    case Primitive::Global:
    case Primitive::Random: return false;
    case Primitive::Dilated: return p.b == 1;
    default: return !isGridPrimitive(p.kind);
    }
}

CompiledPrimitive compilePrimitive(const ExpressionNode& node, std::int64_t n, const TokenGrid* grid) {
    CompiledPrimitive p;
    p.kind = node.primitive;
    if (isGridPrimitive(node.primitive)) {
        p.grid = compileGridPrimitive(node, grid);
        return p;
    }
    if (!node.args.empty()) p.a = node.args[0];
    if (node.args.size() > 1) p.b = node.args[1];
    switch (node.primitive) {
    case Primitive::Rows:
    case Primitive::Cols:
    case Primitive::Global:
        for (const std::int64_t g : node.args)
            if (g < n) p.indices.push_back(g);
        std::sort(p.indices.begin(), p.indices.end());
        p.indices.erase(std::unique(p.indices.begin(), p.indices.end()), p.indices.end());
        p.columns = rangesOfColumns(p.indices);
        break;
    case Primitive::Summary: // j mod l >= l − c: [b·l + l − c, b·l + l) for every block start b·l < n
        for (std::int64_t start = 0;;) {
            const std::int64_t begin = addClipped(start, p.a - p.b, n);
            if (begin >= n) break;
            appendRange(p.columns, begin, addClipped(start, p.a, n), n);
            if (p.a >= n - start) break;
            start += p.a;
        }
        break;
    case Primitive::Docs: { // document starts below n; positions past the lengths' sum form one last document
        std::int64_t start = 0;
        p.indices.push_back(0);
        for (const std::int64_t length : node.args) {
            if (length >= n - start) break;
            start += length;
            p.indices.push_back(start);
        }
        break;
    }
    default: break;
    }
    return p;
}

// Floyd's algorithm over ranks t = n − r … n − 1 with one SeededRandom stream per (seed, row); the
// whole row is drawn (so it does not depend on the window), then clipped.
void randomColumns(const CompiledPrimitive& p, std::int64_t i, std::int64_t n, std::int64_t lo, std::int64_t hi,
                   RangeList& out, Scratch& scratch) {
    if (p.a >= n) {
        out.push_back({lo, hi});
        return;
    }
    requireRangeRoom(4 * p.a); // the part of what evaluate() counts for the row that is known before drawing
    SeededRandom random = SeededRandom::stream(static_cast<std::uint64_t>(p.b), ExpressionRandomColumns,
                                               static_cast<std::uint64_t>(i));
    auto& drawn = scratch.drawn;
    auto& chosen = scratch.chosen;
    drawn.clear();
    chosen.clear();
    // A few draws are checked by scanning, many through a hash set; both give the same columns.
    constexpr std::int64_t kScanLimit = 32;
    const auto taken = [&](std::int64_t column) {
        return p.a <= kScanLimit ? std::find(drawn.begin(), drawn.end(), column) != drawn.end() : chosen.count(column) != 0;
    };
    for (std::int64_t t = n - p.a; t < n; ++t) {
        const auto pick = static_cast<std::int64_t>(random.below(static_cast<std::uint64_t>(t + 1)));
        const std::int64_t column = taken(pick) ? t : pick;
        if (p.a > kScanLimit) chosen.insert(column);
        drawn.push_back(column);
    }
    std::sort(drawn.begin(), drawn.end());
    for (const std::int64_t j : drawn)
        if (j >= lo && j < hi) appendRange(out, j, j + 1, hi);
}

// Columns j ≡ i (mod step) in [lo, hi), one range each (merged when step = 1).
void congruentColumns(std::int64_t i, std::int64_t step, std::int64_t lo, std::int64_t hi, RangeList& out) {
    const std::int64_t want = i % step, have = lo % step;
    const std::int64_t offset = want >= have ? want - have : want - have + step;
    if (offset >= hi - lo) return;
    if (step == 1) {
        out.push_back({lo, hi});
        return;
    }
    const std::int64_t columns = (hi - 1 - lo - offset) / step + 1;
    requireRangeRoom(columns);
    const std::size_t before = out.size();
    out.resize(before + static_cast<std::size_t>(columns));
    ColumnRange* next = out.data() + before;
    // step > 1: never touching; j from k so that no step is taken past the last column (step may be huge).
    for (std::int64_t k = 0; k < columns; ++k) {
        const std::int64_t j = lo + offset + k * step;
        next[k] = {j, j + 1};
    }
}

// Row i of one primitive within [lo, hi) (0 <= lo < hi <= n) into `out` (cleared first).
void primitiveRow(const CompiledPrimitive& p, const TokenGrid* grid, std::int64_t i, std::int64_t n, std::int64_t lo,
                  std::int64_t hi, RangeList& out, Scratch& scratch) {
    if (isGridPrimitive(p.kind)) {
        gridPrimitiveRow(p.grid, *grid, i, lo, hi, out);
        return;
    }
    out.clear();
    const auto inIndices = [&] { return std::binary_search(p.indices.begin(), p.indices.end(), i); };
    switch (p.kind) {
    case Primitive::All: out.push_back({lo, hi}); return;
    case Primitive::Causal: pushClipped(out, lo, i + 1, lo, hi); return;
    case Primitive::Diag: pushClipped(out, i, i + 1, lo, hi); return;
    case Primitive::Band: pushClipped(out, subtractClipped(i, p.a, 0), addClipped(i + 1, p.a, n), lo, hi); return;
    case Primitive::Dilated: { // j = i + t·δ for −back <= t <= forward
        const std::int64_t back = std::min(p.a, i / p.b), forward = std::min(p.a, (n - 1 - i) / p.b);
        if (p.b == 1) {
            pushClipped(out, i - back, i + forward + 1, lo, hi);
            return;
        }
        congruentColumns(i, p.b, std::max(lo, i - back * p.b), std::min(hi, i + forward * p.b + 1), out);
        return;
    }
    case Primitive::Stride: congruentColumns(i, p.a, lo, hi, out); return;
    case Primitive::Block: {
        const std::int64_t start = (i / p.a) * p.a;
        pushClipped(out, start, addClipped(start, p.a, n), lo, hi);
        return;
    }
    case Primitive::Summary:
    case Primitive::Cols: clipInto(p.columns, lo, hi, out); return;
    case Primitive::Segment: {
        const std::int64_t start = (i / p.a) * p.a;
        pushClipped(out, subtractClipped(start, p.b, 0), addClipped(start, p.a, n), lo, hi);
        return;
    }
    case Primitive::Sink: pushClipped(out, lo, std::min(p.a, n), lo, hi); return;
    case Primitive::Prefix:
        if (i < p.a) pushClipped(out, lo, std::min(p.a, n), lo, hi);
        return;
    case Primitive::Rows:
        if (inIndices()) out.push_back({lo, hi});
        return;
    case Primitive::Global:
        if (inIndices())
            out.push_back({lo, hi});
        else
            clipInto(p.columns, lo, hi, out);
        return;
    case Primitive::Docs: {
        const auto next = std::upper_bound(p.indices.begin(), p.indices.end(), i);
        pushClipped(out, *std::prev(next), next == p.indices.end() ? n : *next, lo, hi);
        return;
    }
    case Primitive::Random: randomColumns(p, i, n, lo, hi, out, scratch); return;
    default: return;
    }
}

bool isNarrow(const CompiledNode& node, const std::vector<CompiledPrimitive>& primitives) {
    return node.kind == ExpressionNode::Kind::Primitive && givesOneRange(primitives[node.primitive]);
}

bool isCongruent(const CompiledPrimitive& p) { return p.kind == Primitive::Stride || (p.kind == Primitive::Dilated && p.b != 1); }

CompiledNode compileNode(const ExpressionNode& node, std::int64_t n, const TokenGrid* grid,
                         std::vector<CompiledPrimitive>& primitives) {
    CompiledNode compiled;
    compiled.kind = node.kind;
    if (node.kind == ExpressionNode::Kind::Primitive) {
        compiled.primitive = primitives.size();
        primitives.push_back(compilePrimitive(node, n, grid));
        countRangeWork(0, static_cast<std::int64_t>(primitives.back().columns.size() + primitives.back().indices.size()));
        return compiled;
    }
    for (const auto& child : node.children) compiled.children.push_back(compileNode(child, n, grid, primitives));
    // !!x is x (both complements are taken in the same column window): a chain of complements, which
    // the length limit lets run to hundreds, compiles to at most one.
    if (node.kind == ExpressionNode::Kind::Complement && compiled.children[0].kind == ExpressionNode::Kind::Complement) {
        CompiledNode inner = std::move(compiled.children[0].children[0]);
        return inner;
    }
    // Union and intersection do not depend on the order of their operands: narrow ones first.
    if (node.kind != ExpressionNode::Kind::Complement)
        std::stable_partition(compiled.children.begin(), compiled.children.end(),
                              [&](const CompiledNode& c) { return isNarrow(c, primitives); });
    return compiled;
}

} // namespace

// primitiveRow over the whole row, without a grid, in this thread's scratch (for expression_pattern_runs.cpp).
void wholePrimitiveRow(const CompiledPrimitive& p, std::int64_t i, std::int64_t n, RangeList& out) {
    primitiveRow(p, nullptr, i, n, 0, n, out, t_scratch);
}

ExpressionPattern::ExpressionPattern(const PatternExpression& expression, std::int64_t n, bool causal, TokenGridPtr grid)
    : Pattern(n), m_causal(causal), m_grid(std::move(grid)) {
    if (m_grid && m_grid->cells() != n)
        throw InputError("the token grid " + m_grid->sizeText() + " has " + std::to_string(m_grid->cells()) +
                         " cells, not n = " + std::to_string(n));
    for (const auto& term : expression.terms) m_terms.push_back(compileNode(term, n, m_grid.get(), m_primitives));
    for (std::size_t k = 0; k < m_terms.size(); ++k) m_unionOrder.push_back(k);
    std::stable_partition(m_unionOrder.begin(), m_unionOrder.end(),
                          [&](std::size_t k) { return isNarrow(m_terms[k], m_primitives); });
    findCongruentTerm();
}

void ExpressionPattern::findCongruentTerm() {
    if (m_grid || m_terms.size() != 1) return;
    const CompiledNode& term = m_terms[0];
    const bool meets = term.kind == ExpressionNode::Kind::Intersection &&
                       std::all_of(term.children.begin(), term.children.end(),
                                   [](const CompiledNode& c) { return c.kind == ExpressionNode::Kind::Primitive; });
    if (term.kind != ExpressionNode::Kind::Primitive && !meets) return;
    CongruentTerm form;
    std::size_t congruent = 0;
    for (const CompiledNode& leaf : meets ? term.children : std::vector<CompiledNode>{term}) {
        const CompiledPrimitive& p = m_primitives[leaf.primitive];
        if (isCongruent(p)) {
            form.congruent = leaf.primitive;
            ++congruent;
        } else if (givesOneRange(p)) {
            form.windows.push_back(leaf.primitive);
        } else {
            return;
        }
    }
    if (congruent == 1) m_congruent = std::move(form);
}

StridedRange ExpressionPattern::congruentRow(std::int64_t i) const {
    countRangeWork(1, static_cast<std::int64_t>(m_congruent->windows.size()) + 1);
    const std::int64_t n = size();
    std::int64_t lo = 0, hi = rowEnd(i);
    RangeList& part = t_scratch.buffer(0, 0);
    for (const std::size_t w : m_congruent->windows) {
        primitiveRow(m_primitives[w], nullptr, i, n, lo, hi, part, t_scratch);
        if (part.empty()) return {0, 0, 1};
        lo = part.front().begin;
        hi = part.front().end;
    }
    const CompiledPrimitive& p = m_primitives[m_congruent->congruent];
    const std::int64_t step = congruentStep();
    if (p.kind == Primitive::Dilated) { // as primitiveRow: j = i + t·δ for −back <= t <= forward
        lo = std::max(lo, i - std::min(p.a, i / step) * step);
        hi = std::min(hi, i + std::min(p.a, (n - 1 - i) / step) * step + 1);
    }
    if (lo >= hi) return {0, 0, 1};
    const std::int64_t want = i % step, have = lo % step;
    const std::int64_t offset = want >= have ? want - have : want - have + step;
    if (offset >= hi - lo) return {0, 0, 1};
    return {lo + offset, hi, step};
}

std::int64_t ExpressionPattern::congruentStep() const {
    const CompiledPrimitive& p = m_primitives[m_congruent->congruent];
    return p.kind == Primitive::Stride ? p.a : p.b;
}

bool ExpressionPattern::rowStrides(std::int64_t i, std::vector<StridedRange>& out) const {
    if (!m_congruent) return false;
    const StridedRange row = congruentRow(i);
    out.push_back(row.columns() > 0 ? row : StridedRange{i, i + 1, 1});
    return true;
}

ExpressionPattern::~ExpressionPattern() = default;

std::size_t ExpressionPattern::termCount() const { return m_terms.size(); }

void ExpressionPattern::evaluate(const CompiledNode& node, std::int64_t i, std::int64_t lo, std::int64_t hi,
                                 RangeList& out, std::size_t level) const {
    Scratch& scratch = t_scratch;
    if (node.kind == ExpressionNode::Kind::Primitive) {
        const CompiledPrimitive& primitive = m_primitives[node.primitive];
        primitiveRow(primitive, m_grid.get(), i, size(), lo, hi, out, scratch);
        // A random primitive's draws go through a hash set: each is worth several ranges of work.
        const bool draws = primitive.kind == Primitive::Random && primitive.a < size();
        countRangeWork(0, static_cast<std::int64_t>(out.size()) + (draws ? 4 * primitive.a : 0));
        return;
    }
    RangeList& part = scratch.buffer(level, 0);
    RangeList& merged = scratch.buffer(level, 1);
    if (node.kind == ExpressionNode::Kind::Complement) {
        evaluate(node.children[0], i, lo, hi, part, level + 1);
        complementInto(part, lo, hi, out);
        return;
    }
    const bool isUnion = node.kind == ExpressionNode::Kind::Union;
    evaluate(node.children[0], i, lo, hi, out, level + 1);
    for (std::size_t k = 1; k < node.children.size(); ++k) {
        if (isUnion) {
            evaluate(node.children[k], i, lo, hi, part, level + 1);
            unionInto(out, part, merged);
        } else {
            if (out.empty()) return;
            evaluate(node.children[k], i, out.front().begin, out.back().end, part, level + 1);
            intersectInto(out, part, merged);
        }
        out.swap(merged);
    }
}

RangeList& ExpressionPattern::mergedRow(std::int64_t i) const {
    countRangeWork(1, 0);
    Scratch& scratch = t_scratch;
    RangeList& row = scratch.buffer(0, 0);
    RangeList& part = scratch.buffer(0, 1);
    RangeList& merged = scratch.buffer(0, 2);
    evaluate(m_terms[m_unionOrder[0]], i, 0, rowEnd(i), row, 1);
    for (std::size_t k = 1; k < m_terms.size(); ++k) {
        evaluate(m_terms[m_unionOrder[k]], i, 0, rowEnd(i), part, 1);
        unionInto(row, part, merged);
        row.swap(merged);
    }
    return row;
}

void ExpressionPattern::rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const {
    RangeList& row = mergedRow(i);
    if (row.empty())
        out.push_back({i, i + 1});
    else if (out.empty() && out.capacity() >= row.size())
        out.swap(row); // a caller's buffer that holds the row takes it without a copy, and the scratch its room
    else
        out.insert(out.end(), row.begin(), row.end());
}

std::int64_t ExpressionPattern::rowCount(std::int64_t i) const {
    if (m_congruent) return std::max<std::int64_t>(1, congruentRow(i).columns());
    const RangeList& row = mergedRow(i);
    std::int64_t count = 0;
    for (const ColumnRange& range : row) count += range.size();
    return row.empty() ? 1 : count;
}

bool ExpressionPattern::allowed(std::int64_t i, std::int64_t j) const {
    RangeList row;
    rowRanges(i, row);
    const auto it = std::upper_bound(row.begin(), row.end(), j, [](std::int64_t col, const ColumnRange& r) { return col < r.begin; });
    return it != row.begin() && j < std::prev(it)->end;
}

void ExpressionPattern::termRanges(std::size_t k, std::int64_t i, std::vector<ColumnRange>& out) const {
    RangeList& row = t_scratch.buffer(0, 0);
    evaluate(m_terms[k], i, 0, rowEnd(i), row, 1);
    out.insert(out.end(), row.begin(), row.end());
}

std::unique_ptr<PatternComponents> componentsByExpression(std::unique_ptr<Pattern> pattern, const std::string& text,
                                                          bool causal, TokenGridPtr grid) {
    const auto terms = std::make_shared<const ExpressionPattern>(parseExpression(text), pattern->size(), causal, std::move(grid));
    std::vector<LayeredComponents::Layer> layers;
    for (std::size_t k = 0; k < terms->termCount(); ++k)
        layers.push_back([terms, k](std::int64_t i, std::vector<ColumnRange>& out) { terms->termRanges(k, i, out); });
    return std::make_unique<LayeredComponents>(std::move(pattern), std::move(layers));
}

std::unique_ptr<PatternComponents> expressionComponents(const std::string& text, std::int64_t n, bool causal,
                                                        const TokenGridPtr& grid) {
    return componentsByExpression(std::make_unique<ExpressionPattern>(parseExpression(text), n, causal, grid), text, causal,
                                  grid);
}

} // namespace attnlab
