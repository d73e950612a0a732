#include "core/analysis/settings_check.h"

#include "core/errors.h"
#include "core/registry.h"

#include <string>

namespace attnlab {

std::string settingsProblem(const LabSettings& settings) {
    if (settings.kvHeads < 0 || (settings.kvHeads > 0 && settings.heads % settings.kvHeads != 0))
        return "key/value heads " + std::to_string(settings.kvHeads) + " must divide heads " + std::to_string(settings.heads);
    try {
        if (!settings.grid.empty()) {
            const auto grid = makeTokenGrid(settings.grid, settings.order);
            if (grid->cells() != settings.n)
                return "n = " + std::to_string(settings.n) + " does not match the grid " + grid->sizeText() + " (" +
                       std::to_string(grid->cells()) + " cells)";
            if (settings.gridQuery < -1 || settings.gridQuery >= grid->cells())
                return "the query position " + std::to_string(settings.gridQuery) + " is not a cell of the grid " + grid->sizeText() +
                       " (positions 0 … " + std::to_string(grid->cells() - 1) + ")";
        }
        for (const auto& choice : chosenVariants(settings)) {
            const VariantInfo& variant = requireVariant(choice.variant);
            prepareParams(variant, problemShape(settings, variant), choice.params);
        }
        if (settings.source == InputSource::NpyFiles && settings.qPath.empty())
            return "choose a Q file (.npy) or another input source";
    } catch (const InputError& error) {
        return error.what();
    }
    return {};
}

} // namespace attnlab
