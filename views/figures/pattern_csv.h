#pragma once

#include "views/figures/pattern_snapshot.h"

#include <QString>

namespace attnlab {

// The pattern figure's data as CSV, one table (layouts in docs/command_line.md, "CSV files"):
// - the mask: one row per panel and query, "panel,variant,query_i,query_token,allowed_count,allowed_ranges",
//   the ranges as "first-last" key indices joined by ';';
// - the weights, when the figure shows them and at least one panel has them: one row per panel and query
//   and one column per key, "panel,variant,query_i,query_token," then the key labels; a cell holds the
//   weight W[i][j] where key j is allowed and stays empty where it is masked.
// Panels are numbered from 1 in the order they are drawn; a panel without a pattern (or weights) has no
// rows. query_token and the key labels are the settings' tokens when there is one per position (as on the
// axes); otherwise query_token is empty and the keys are labelled key_0, key_1, ...
// With a token grid, both layouts add after query_token the grid view of query position `gridQuery` (-1:
// the snapshot's): "cell_t,cell_y,cell_x,grid_query,attended,component,component_term" — row i's cell,
// whether the grid query attends position i, and the component whose colour the grid view gives it
// (number and term as in the legend; empty when the panel is not drawn by component). A panel's rows are
// then the grid picture cell by cell.
QString patternCsv(const PatternSnapshot& snapshot, std::int64_t gridQuery = -1);

} // namespace attnlab
