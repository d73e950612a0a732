#include "fuzz/fuzz_entry_points.h"

#include "app/cli_args.h"
#include "core/analysis/animation_range.h"
#include "core/analysis/panel_spec.h"
#include "core/cost/job_limits.h"
#include "core/errors.h"
#include "core/io/npy_io.h"
#include "core/patterns/expression_pattern.h"
#include "core/patterns/token_grid.h"
#include "core/registry.h"

#include <cmath>
#include <cstdlib>
#include <string>
#include <string_view>
#include <vector>

namespace attnlab::fuzz {

namespace {

void require(bool invariant) {
    if (!invariant) std::abort();
}

std::vector<std::string> lines(const std::uint8_t* data, std::size_t size) {
    std::vector<std::string> tokens;
    std::string current;
    for (std::size_t b = 0; b < size; ++b) {
        if (data[b] == '\n') {
            tokens.push_back(current);
            current.clear();
        } else {
            current += static_cast<char>(data[b]);
        }
    }
    if (!current.empty()) tokens.push_back(current);
    return tokens;
}

void checkPattern(const Pattern& pattern) {
    const std::int64_t n = pattern.size();
    const auto dense = denseMask(pattern);
    for (std::int64_t i = 0; i < n; ++i) {
        std::int64_t count = 0;
        for (std::int64_t j = 0; j < n; ++j) {
            const bool member = dense[static_cast<std::size_t>(i * n + j)] != 0;
            require(member == pattern.allowed(i, j));
            count += member;
        }
        require(count == pattern.rowCount(i) && count > 0);
    }
}

} // namespace

void npyInput(const std::uint8_t* data, std::size_t size) {
    try {
        const NpyArray array = parseNpy("input.npy", std::string_view(reinterpret_cast<const char*>(data), size));
        std::size_t count = 1;
        for (const auto dim : array.shape) count *= static_cast<std::size_t>(dim);
        require(array.values.size() == count);
    } catch (const InputError&) {
    }
}

void paramInput(const std::uint8_t* data, std::size_t size) {
    try {
        const CliArgs cli("pattern", lines(data, size), {"--variant", "--n", "--d"}, {"--causal"});
        const VariantInfo& variant = requireVariant(cli.value("--variant").value_or("strided"));
        ProblemShape shape;
        shape.n = 1 + cli.integer("--n", 16, 0, INT64_MAX) % 64;
        shape.d = cli.integer("--d", 4, 1, 4096);
        shape.dv = shape.d;
        shape.heads = 1;
        shape.causal = cli.flag("--causal");
        const ParamSet params = prepareParams(variant, shape, cli.overrides());
        requirePatternLimits(variant, shape, params);
        if (!variant.dataDependentPattern) checkPattern(*buildPattern(variant, shape, params));
    } catch (const InputError&) {
    }
}

void expressionInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    // The size picks n and causality, so every input is checked at one small, reproducible shape.
    const auto n = static_cast<std::int64_t>(1 + size % 48);
    const bool causal = size % 2 == 1;
    try {
        const PatternExpression expression = parseExpression(text);
        const ExpressionPattern pattern(expression, n, causal);
        checkPattern(pattern);
        const auto components = expressionComponents(text, n, causal);
        const auto labels = denseComponents(*components);
        const auto mask = denseMask(pattern);
        require(labels.size() == mask.size());
        for (std::size_t cell = 0; cell < mask.size(); ++cell) require((labels[cell] != 0) == (mask[cell] != 0));
    } catch (const InputError&) {
    }
}

void gridInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const std::size_t first = text.find('\n');
    const std::size_t second = first == std::string::npos ? std::string::npos : text.find('\n', first + 1);
    if (second == std::string::npos) return;
    try {
        const auto sizes = parseGridSizes(text.substr(0, first));
        const TokenOrder order = parseTokenOrder(text.substr(first + 1, second - first - 1));
        const PatternExpression expression = parseExpression(text.substr(second + 1));
        const auto grid = std::make_shared<const TokenGrid>(sizes, order);
        if (grid->cells() > 64) return;
        for (const bool causal : {false, true}) checkPattern(ExpressionPattern(expression, grid->cells(), causal, grid));
    } catch (const InputError&) {
    }
}

void panelInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    try {
        const PanelSpec panel = parsePanelSpec(text);
        const VariantInfo& variant = requireVariant(panel.choice.variant);
        if (variant.dataDependentPattern) return;
        ProblemShape shape;
        shape.n = static_cast<std::int64_t>(1 + size % 40);
        shape.d = 4;
        shape.dv = 4;
        shape.causal = size % 2 == 1 && variant.causalSupport != CausalSupport::BidirectionalOnly;
        if (variant.causalSupport == CausalSupport::CausalOnly) shape.causal = true;
        const ParamSet params = prepareParams(variant, shape, panel.choice.params);
        requirePatternBuildLimits(variant, shape, params);
        checkPattern(*buildPattern(variant, shape, params));
    } catch (const InputError&) {
    }
}

void animationRangeInput(const std::uint8_t* data, std::size_t size) {
    const std::string text(reinterpret_cast<const char*>(data), size);
    const bool integral = size % 2 == 0;
    try {
        const AnimationOption option = splitAnimationOption(text);
        require(!option.param.empty() && !option.range.empty());
        const std::vector<double> values = animationValues(option.param, option.range, integral);
        require(values.size() >= 2 && values.size() <= kMaxAnimationFrames);
        const bool ascending = values[1] > values[0];
        for (std::size_t k = 0; k < values.size(); ++k) {
            require(std::isfinite(values[k]));
            if (integral) require(values[k] == std::round(values[k]));
            if (k > 0) require(ascending ? values[k] > values[k - 1] : values[k] < values[k - 1]);
        }
        const auto from = parseAnimationNumber(option.range.substr(0, option.range.find(':')));
        require(from && std::abs(*from - values.front()) <= 0.5);
    } catch (const InputError&) {
    }
}

} // namespace attnlab::fuzz
