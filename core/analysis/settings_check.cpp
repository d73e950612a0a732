#include "core/analysis/settings_check.h"
#include "core/decode/kv_cache.h"

#include "core/errors.h"
#include "core/registry.h"

#include <cstdio>
#include <string>

namespace attnlab {

namespace {

// Token labels are drawn as text, and XML (SVG) has no form for most control characters: they are
// refused rather than silently dropped. Tabs and line breaks separate tokens.
std::string tokensProblem(const std::string& tokens) {
    for (std::size_t k = 0; k < tokens.size(); ++k) {
        const auto byte = static_cast<unsigned char>(tokens[k]);
        if ((byte < 0x20 && byte != '\t' && byte != '\n' && byte != '\r') || byte == 0x7f) {
            char hex[8];
            std::snprintf(hex, sizeof hex, "0x%02x", byte);
            return "the tokens hold the control byte " + std::string(hex) + " at byte " + std::to_string(k + 1) +
                   ": token labels must be printable text";
        }
    }
    return {};
}

} // namespace

std::string settingsProblem(const LabSettings& settings) {
    if (std::string problem = tokensProblem(settings.tokens); !problem.empty()) return problem;
    if (settings.kvHeads < 0 || (settings.kvHeads > 0 && settings.heads % settings.kvHeads != 0))
        return "key/value heads " + std::to_string(settings.kvHeads) + " must divide heads " + std::to_string(settings.heads);
    if (settings.queries < 0 || settings.queries > settings.n)
        return "the queries " + std::to_string(settings.queries) + " must lie in 1 … n = " + std::to_string(settings.n) + " (0: every row)";
    try {
        kvDtypeFromName(settings.kvDtype, "the KV cache precision");
        if (!settings.grid.empty()) {
            const auto grid = makeTokenGrid(settings.grid, settings.order);
            if (grid->cells() != settings.n)
                return "n = " + std::to_string(settings.n) + " does not match the grid " + grid->sizeText() + " (" +
                       std::to_string(grid->cells()) + " cells)";
            if (settings.gridQuery < -1 || settings.gridQuery >= grid->cells())
                return "the query position " + std::to_string(settings.gridQuery) + " is not a cell of the grid " + grid->sizeText() +
                       " (positions 0 … " + std::to_string(grid->cells() - 1) + ")";
        }
        if (settings.panelOrders.size() > settings.compareVariants.size())
            return "the panels' orders are " + std::to_string(settings.panelOrders.size()) + " for " +
                   std::to_string(settings.compareVariants.size()) + " compared panels";
        for (const std::string& order : settings.panelOrders) {
            if (order.empty()) continue;
            if (settings.grid.empty()) return "a panel's token order (" + order + ") needs a grid";
            makeTokenGrid(settings.grid, order);
        }
        for (const auto& choice : chosenVariants(settings)) {
            const VariantInfo& variant = requireVariant(choice.variant);
            ProblemShape shape = problemShape(settings, variant);
            prepareParams(variant, shape, choice.params);
            shape.queries = settings.queries;
            if (std::string problem = queryRowsProblem(variant, shape); !problem.empty()) return problem;
        }
        if (settings.source == InputSource::NpyFiles && settings.qPath.empty())
            return "choose a Q file (.npy) or another input source";
    } catch (const InputError& error) {
        return error.what();
    }
    return {};
}

} // namespace attnlab
