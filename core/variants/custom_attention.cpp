// custom: masked softmax, s_ij = q_i·k_j / √d, over a pattern written as an expression (param `expr`,
// the language of docs/pattern_expressions.md), ∧ j ≤ i when causal; a row left empty gets its diagonal.
#include "core/patterns/expression_pattern.h"
#include "core/patterns/query_rows.h"
#include "core/variants/variant_support.h"

namespace attnlab {

namespace {

// With a causal context on a grid of more cells (ProblemShape::setCausalContext), the grid's whole pattern
// cut to its first n rows and columns.
std::unique_ptr<Pattern> expressionPattern(const std::string& text, const ProblemShape& shape) {
    const TokenGridPtr& grid = shape.grid;
    if (!grid || !shape.causal || grid->cells() <= shape.n)
        return std::make_unique<ExpressionPattern>(parseExpression(text), shape.n, shape.causal, grid);
    auto whole = std::make_shared<const ExpressionPattern>(parseExpression(text), grid->cells(), true, grid);
    return std::make_unique<LeadingPattern>(std::move(whole), shape.n);
}

std::unique_ptr<Pattern> customPattern(const PatternRequest& request) {
    return expressionPattern(request.params->text("expr"), request.shape);
}

ParamSpec expressionParam() {
    ParamSpec spec;
    spec.key = "expr";
    spec.type = ParamType::String;
    spec.description = "Pattern expression: primitives such as band(r), sink(s), global(g, ...) combined with | & ! ( )";
    spec.defaultText = "band(8) | global(0)";
    spec.defaultValue = [](const ShapeContext&, const ParamSet&) -> ParamValue { return std::string("band(8) | global(0)"); };
    spec.rangeText = "an expression of at most 1000 characters, parentheses nested at most 64 deep";
    return spec;
}

} // namespace

VariantInfo makeCustomVariant() {
    VariantInfo v;
    v.id = "custom";
    v.displayName = "Pattern expression";
    v.family = "Sparse patterns";
    v.summary = "Any pattern composed from windows, strides, blocks, sinks, globals, documents and random keys.";
    v.params = {expressionParam()};
    // Compiling checks the grid primitives against the problem's grid (and refuses them without one).
    v.validate = [](const ProblemShape& shape, const ParamSet& params) {
        try {
            [[maybe_unused]] const auto compiled = expressionPattern(params.text("expr"), shape);
        } catch (const ExpressionError& error) {
            throw InputError("custom parameter 'expr': " + std::string(error.what()));
        }
    };
    v.pattern = customPattern;
    v.plan = cachedGenericPlan("custom", customPattern);
    v.run = softmaxOverPattern(customPattern, v.plan);
    v.cost = softmaxPatternCost(customPattern);
    v.costCountsRanges = true;
    v.components = [](const PatternRequest& request) {
        return expressionComponents(request.params->text("expr"), request.shape.n, request.shape.causal, request.shape.grid);
    };
    return v;
}

} // namespace attnlab
