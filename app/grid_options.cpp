#include "app/grid_options.h"

#include "core/errors.h"

namespace attnlab {

TokenGridPtr gridOption(const CliArgs& cli) {
    const auto grid = cli.value("--grid");
    const auto order = cli.value("--order");
    if (!grid) {
        if (order) throw InputError("--order needs --grid");
        return nullptr;
    }
    if (order && order->empty()) throw InputError("--order needs a value: raster, tiles:a,b[,c] or morton");
    return makeTokenGrid(*grid, order.value_or("raster"));
}

std::int64_t sizeWithGrid(const CliArgs& cli, const TokenGrid* grid, const std::string& nOption) {
    if (!grid) return cli.requiredInteger(nOption, 1, kMaxGridCells);
    return problemSize(cli.integer(nOption, 0, 1, kMaxGridCells), grid);
}

} // namespace attnlab
