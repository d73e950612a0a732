// The plan any pattern gets (genericBlockPlan): rows in natural order, block heights by the rows' mean
// length, long rows split along their keys, and the columns that few rows of a block see row-wise.
#include "core/kernels/block_plan.h"
#include "core/kernels/row_wise_columns.h"
#include "core/patterns/range_algebra.h"

namespace attnlab {

// Rows of at most 64 keys on average (chunks, narrow bands and windows) run in blocks of 32: a block's
// rows then sweep fewer keys that only some of them see (a band's edges, the next chunk), for twice the
// blocks. Wider rows lose in blocks of 32: their rows share most of the keys they sweep, so halving the
// block only doubles the sweeps (measured both ways: docs/execution_plans.md, "What a plan is").
std::int64_t blockRowsForRowKeys(double meanKeys) { return meanKeys <= 64 ? 32 : kPlanQueryBlock; }

double meanRowKeys(const std::vector<std::int64_t>& counts) {
    double total = 0;
    for (const std::int64_t count : counts) total += static_cast<double>(count);
    return total / static_cast<double>(std::max<std::size_t>(counts.size(), 1));
}

std::vector<bool> heavyRowFlags(const std::vector<std::int64_t>& counts, double meanKeys) {
    std::vector<bool> heavy(counts.size());
    for (std::size_t i = 0; i < counts.size(); ++i) heavy[i] = isHeavyRow(static_cast<double>(counts[i]), meanKeys);
    return heavy;
}

std::shared_ptr<const BlockPlan> genericBlockPlan(const Pattern& pattern, bool consecutiveOnly) {
    const std::int64_t n = pattern.rows();
    const std::vector<std::int64_t> counts = rowCounts(pattern);
    const double meanKeys = meanRowKeys(counts);
    const std::vector<bool> heavy = consecutiveOnly ? std::vector<bool>(counts.size()) : heavyRowFlags(counts, meanKeys);
    PlanRowOrder order;
    std::vector<std::int64_t> heavyRows;
    order.rows.reserve(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) (heavy[static_cast<std::size_t>(i)] ? heavyRows : order.rows).push_back(i);
    order.segmentEnds.push_back(static_cast<std::int64_t>(order.rows.size()));
    return orderedBlockPlan(pattern, order, heavyRows, blockRowsForRowKeys(meanKeys), consecutiveOnly);
}

std::shared_ptr<const BlockPlan> orderedBlockPlan(const Pattern& pattern, const PlanRowOrder& order,
                                                  const std::vector<std::int64_t>& heavyRows, std::int64_t blockRows,
                                                  bool consecutiveOnly, RowWiseColumns rowWiseKind) {
    auto plan = std::make_shared<BlockPlan>();
    plan->n = pattern.size();
    PassSpec pass;
    pass.order = &order;
    pass.ranges = [&pattern](std::int64_t i, std::vector<ColumnRange>& out) { pattern.rowRanges(i, out); };
    pass.consecutiveOnly = consecutiveOnly;
    pass.blockRows = blockRows;
    pass.splitRows = &heavyRows;
    // Relative positions need consecutive pieces: no row-wise ones then.
    std::vector<RangeList> rowWiseColumns;
    std::vector<std::int64_t> blockOf;
    if (!consecutiveOnly)
        findRowWiseColumns(pattern, order, pass.blockRows, rowWiseKind == RowWiseColumns::WholeBlocksAndScattered, rowWiseColumns,
                           blockOf);
    RangeList row, part;
    if (!rowWiseColumns.empty()) {
        // Row i's columns split by its block's row-wise ones: the rest in shared pieces, those row-wise.
        auto split = [&](bool rowWise) {
            return [&, rowWise](std::int64_t i, std::vector<ColumnRange>& out) {
                const std::int64_t block = blockOf[static_cast<std::size_t>(i)];
                if (block < 0) {
                    if (!rowWise) pattern.rowRanges(i, out);
                    return;
                }
                row.clear();
                pattern.rowRanges(i, row);
                const RangeList& columns = rowWiseColumns[static_cast<std::size_t>(block)];
                if (rowWise)
                    intersectInto(row, columns, part);
                else
                    subtractInto(row, columns, part);
                out.insert(out.end(), part.begin(), part.end());
            };
        };
        pass.ranges = split(false);
        pass.rowWise = split(true);
    }
    appendPass(*plan, pass);
    return plan;
}

} // namespace attnlab
