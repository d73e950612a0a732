#include "core/expression_pattern.h"

#include "core/random.h"
#include "core/range_algebra.h"

#include <algorithm>
#include <unordered_set>

namespace attnlab {

// A primitive made ready for one n: its arguments plus what does not depend on the row.
struct CompiledPrimitive {
    Primitive kind = Primitive::All;
    std::int64_t a = 0;
    std::int64_t b = 0;
    std::vector<std::int64_t> indices; // rows/global: G ∩ [0, n), sorted; docs: document starts < n
    RangeList columns;                 // cols/global: G ∩ [0, n); summary: every summary column
};

struct EvaluationStep {
    enum class Op { Primitive, Union, Intersection, Complement };
    Op op = Op::Primitive;
    std::size_t operand = 0; // Primitive: index into m_primitives; Union/Intersection: arity
};

namespace {

// Row scratch reused across calls on each thread (rowRanges may run on several threads at once).
struct Scratch {
    std::vector<RangeList> stack;
    RangeList combined;
    std::vector<std::int64_t> drawn;
    std::unordered_set<std::int64_t> chosen;
};
thread_local Scratch t_scratch;

// x + y clipped to `limit`, for 0 <= x < limit and y >= 0 (never overflows).
std::int64_t addClipped(std::int64_t x, std::int64_t y, std::int64_t limit) { return y >= limit - x ? limit : x + y; }
// x − y clipped at 0, for x, y >= 0.
std::int64_t subtractClipped(std::int64_t x, std::int64_t y) { return y >= x ? 0 : x - y; }

CompiledPrimitive compilePrimitive(const ExpressionNode& node, std::int64_t n) {
    CompiledPrimitive p;
    p.kind = node.primitive;
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

// Floyd's algorithm over ranks t = n − r … n − 1 with one SeededRandom stream per (seed, row).
void randomColumns(const CompiledPrimitive& p, std::int64_t i, std::int64_t n, RangeList& out, Scratch& scratch) {
    if (p.a >= n) {
        out.push_back({0, n});
        return;
    }
    SeededRandom random = SeededRandom::stream(static_cast<std::uint64_t>(p.b), ExpressionRandomColumns,
                                               static_cast<std::uint64_t>(i));
    auto& drawn = scratch.drawn;
    auto& chosen = scratch.chosen;
    drawn.clear();
    chosen.clear();
    for (std::int64_t t = n - p.a; t < n; ++t) {
        const auto pick = static_cast<std::int64_t>(random.below(static_cast<std::uint64_t>(t + 1)));
        const std::int64_t column = chosen.count(pick) ? t : pick;
        chosen.insert(column);
        drawn.push_back(column);
    }
    std::sort(drawn.begin(), drawn.end());
    for (const std::int64_t j : drawn) appendRange(out, j, j + 1, n);
}

// Row i of one primitive into `out` (cleared first).
void primitiveRow(const CompiledPrimitive& p, std::int64_t i, std::int64_t n, RangeList& out, Scratch& scratch) {
    out.clear();
    const auto inIndices = [&] { return std::binary_search(p.indices.begin(), p.indices.end(), i); };
    switch (p.kind) {
    case Primitive::All: out.push_back({0, n}); return;
    case Primitive::Causal: out.push_back({0, i + 1}); return;
    case Primitive::Diag: out.push_back({i, i + 1}); return;
    case Primitive::Band: out.push_back({subtractClipped(i, p.a), addClipped(i + 1, p.a, n)}); return;
    case Primitive::Dilated: {
        const std::int64_t back = std::min(p.a, i / p.b), forward = std::min(p.a, (n - 1 - i) / p.b);
        if (p.b == 1) {
            out.push_back({i - back, i + forward + 1});
            return;
        }
        for (std::int64_t t = -back; t <= forward; ++t) out.push_back({i + t * p.b, i + t * p.b + 1});
        return;
    }
    case Primitive::Stride:
        for (std::int64_t j = i % p.a;; j += p.a) {
            appendRange(out, j, j + 1, n);
            if (p.a > n - 1 - j) return;
        }
    case Primitive::Block: {
        const std::int64_t start = (i / p.a) * p.a;
        out.push_back({start, addClipped(start, p.a, n)});
        return;
    }
    case Primitive::Summary: out = p.columns; return;
    case Primitive::Segment: {
        const std::int64_t start = (i / p.a) * p.a;
        out.push_back({subtractClipped(start, p.b), addClipped(start, p.a, n)});
        return;
    }
    case Primitive::Sink:
        if (p.a > 0) out.push_back({0, std::min(p.a, n)});
        return;
    case Primitive::Prefix:
        if (i < p.a) out.push_back({0, std::min(p.a, n)});
        return;
    case Primitive::Rows:
        if (inIndices()) out.push_back({0, n});
        return;
    case Primitive::Cols: out = p.columns; return;
    case Primitive::Global:
        if (inIndices())
            out.push_back({0, n});
        else
            out = p.columns;
        return;
    case Primitive::Docs: {
        const auto next = std::upper_bound(p.indices.begin(), p.indices.end(), i);
        out.push_back({*std::prev(next), next == p.indices.end() ? n : *next});
        return;
    }
    case Primitive::Random: randomColumns(p, i, n, out, scratch); return;
    }
}

void compileNode(const ExpressionNode& node, std::int64_t n, std::vector<CompiledPrimitive>& primitives,
                 std::vector<EvaluationStep>& program) {
    using Op = EvaluationStep::Op;
    if (node.kind == ExpressionNode::Kind::Primitive) {
        program.push_back({Op::Primitive, primitives.size()});
        primitives.push_back(compilePrimitive(node, n));
        return;
    }
    for (const auto& child : node.children) compileNode(child, n, primitives, program);
    switch (node.kind) {
    case ExpressionNode::Kind::Union: program.push_back({Op::Union, node.children.size()}); break;
    case ExpressionNode::Kind::Intersection: program.push_back({Op::Intersection, node.children.size()}); break;
    default: program.push_back({Op::Complement, 1}); break;
    }
}

} // namespace

ExpressionPattern::ExpressionPattern(const PatternExpression& expression, std::int64_t n, bool causal)
    : Pattern(n), m_causal(causal) {
    for (const auto& term : expression.terms) {
        m_terms.emplace_back();
        compileNode(term, n, m_primitives, m_terms.back());
        m_whole.insert(m_whole.end(), m_terms.back().begin(), m_terms.back().end());
    }
    if (m_terms.size() > 1) m_whole.push_back({EvaluationStep::Op::Union, m_terms.size()});
}

ExpressionPattern::~ExpressionPattern() = default;

void ExpressionPattern::evaluate(const std::vector<EvaluationStep>& program, std::int64_t i, RangeList& out) const {
    Scratch& scratch = t_scratch;
    auto& stack = scratch.stack;
    std::size_t top = 0;
    for (const auto& step : program) {
        if (step.op == EvaluationStep::Op::Primitive) {
            if (stack.size() <= top) stack.resize(top + 1);
            primitiveRow(m_primitives[step.operand], i, size(), stack[top++], scratch);
            continue;
        }
        const std::size_t base = top - step.operand;
        for (std::size_t k = base + 1; k < top; ++k) {
            if (step.op == EvaluationStep::Op::Union)
                unionInto(stack[base], stack[k], scratch.combined);
            else
                intersectInto(stack[base], stack[k], scratch.combined);
            stack[base].swap(scratch.combined);
        }
        if (step.op == EvaluationStep::Op::Complement) {
            complementInto(stack[base], size(), scratch.combined);
            stack[base].swap(scratch.combined);
        }
        top = base + 1;
    }
    out.insert(out.end(), stack[0].begin(), stack[0].end());
}

void ExpressionPattern::rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const {
    const std::size_t first = out.size();
    evaluate(m_whole, i, out);
    if (m_causal) {
        while (out.size() > first && out.back().begin > i) out.pop_back();
        if (out.size() > first) out.back().end = std::min(out.back().end, i + 1);
    }
    if (out.size() == first) out.push_back({i, i + 1});
}

bool ExpressionPattern::allowed(std::int64_t i, std::int64_t j) const {
    RangeList row;
    rowRanges(i, row);
    const auto it = std::upper_bound(row.begin(), row.end(), j, [](std::int64_t col, const ColumnRange& r) { return col < r.begin; });
    return it != row.begin() && j < std::prev(it)->end;
}

void ExpressionPattern::termRanges(std::size_t k, std::int64_t i, std::vector<ColumnRange>& out) const {
    evaluate(m_terms[k], i, out);
}

std::unique_ptr<PatternComponents> componentsByExpression(std::unique_ptr<Pattern> pattern, const std::string& text,
                                                          bool causal) {
    const auto terms = std::make_shared<const ExpressionPattern>(parseExpression(text), pattern->size(), causal);
    std::vector<LayeredComponents::Layer> layers;
    for (std::size_t k = 0; k < terms->termCount(); ++k)
        layers.push_back([terms, k](std::int64_t i, std::vector<ColumnRange>& out) { terms->termRanges(k, i, out); });
    return std::make_unique<LayeredComponents>(std::move(pattern), std::move(layers));
}

std::unique_ptr<PatternComponents> expressionComponents(const std::string& text, std::int64_t n, bool causal) {
    return componentsByExpression(std::make_unique<ExpressionPattern>(parseExpression(text), n, causal), text, causal);
}

} // namespace attnlab
