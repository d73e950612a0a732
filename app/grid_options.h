#pragma once

// `--grid H,W | T,H,W` and `--order raster|tiles:a,b[,c]|morton`, shared by pattern, run, cost, bench
// and figure (docs/grids.md).

#include "app/cli_args.h"

#include "core/patterns/token_grid.h"

namespace attnlab {

// The two option names, for the commands' option lists.
inline const std::vector<std::string> kGridOptions = {"--grid", "--order"};

// The grid the options give (null without --grid; --order without --grid is an InputError).
TokenGridPtr gridOption(const CliArgs& cli);

// n from --n (`nOption`) and the grid: the grid's cell count, which --n must equal when both are given.
// Without a grid --n is required and lies within [1, kMaxGridCells].
std::int64_t sizeWithGrid(const CliArgs& cli, const TokenGrid* grid, const std::string& nOption = "--n");

} // namespace attnlab
