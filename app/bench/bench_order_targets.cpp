// `bench --targets`: one 2-D neighbourhood in three token orders, timed with the block counts of each order,
// to say which count the time follows (docs/benchmarks.md, "Token orders and computed cells").
#include "app/bench/bench_targets.h"

#include "core/kernels/band_plan.h"
#include "core/kernels/block_attention.h"
#include "core/kernels/grid_plan.h"
#include "core/patterns/block_counts.h"
#include "core/random/input_generator.h"
#include "core/registry.h"

#include <array>
#include <cmath>
#include <cstdio>

namespace attnlab {

namespace {

constexpr const char* kOrderPattern = "neighborhood(7)";
constexpr std::array<const char*, 3> kOrders = {"raster", "tiles:8,8", "morton"};

struct OrderPoint {
    BlockCounts blocks;   // 64 × 64 blocks over sequence positions
    double planCells = 0; // what the grid plan the variant runs computes
    TimingResult
        positions;         // the generic plan: blocks of 64 consecutive positions, as the block counts assume
    TimingResult gridPlan; // the variant as it runs (the grid plan)
};

TimingResult timePlan(const AttentionInputs& inputs, std::shared_ptr<const BlockPlan> plan,
                      const BenchSettings& settings) {
    MaskedScoring scoring;
    scoring.scale = 1.0 / std::sqrt(static_cast<double>(inputs.q->cols));
    RunOptions options;
    options.threads = settings.threads;
    RunResult previous;
    options.recycle = &previous;
    const auto once = [&] {
        previous = runPlannedAttention(inputs, {plan}, scoring, options);
        return !previous.cancelled;
    };
    return timeRepeated(once, pointBudget(settings, 0.5), 2, 100, {}, settings.threads);
}

OrderPoint measureOrder(const char* order, const BenchSettings& settings) {
    const VariantInfo& custom = requireVariant("custom");
    ProblemShape shape;
    shape.heads = 12;
    shape.n = kTargetLength;
    shape.d = shape.dv = 64;
    shape.grid = makeTokenGrid("128,128", order);
    const ParamOverrides overrides = {{"expr", kOrderPattern}};
    const auto pattern = buildPattern(custom, shape, prepareParams(custom, shape, overrides));
    OrderPoint point;
    point.blocks = countBlocks(*pattern, kPlanQueryBlock);
    point.planCells = planComputedCells(*gridAwareBlockPlan(*pattern, shape.grid.get()));
    const auto data = generateInputs(GeneratedKind::Gaussian, shape.heads, shape.n, shape.d, shape.dv, 1);
    point.positions = timePlan({&data.q, &data.k, &data.v}, genericBlockPlan(*pattern), settings);
    point.gridPlan = timeAttention("custom", kTargetLength, false, overrides, settings.threads, 2,
                                   pointBudget(settings, 0.5), 12, 64, 0, shape.grid);
    // The same problem: the cost model's MACs of the variant's run.
    point.positions.attentionMacs = point.gridPlan.attentionMacs;
    point.positions.gflops = 2 * point.positions.attentionMacs / point.positions.medianSeconds / 1e9;
    return point;
}

// Root mean square of log(time ratio / predicted ratio) over the orders, each against raster's.
double logMisfit(const std::vector<OrderPoint>& points, double (*predicted)(const OrderPoint&)) {
    double sum = 0;
    for (const OrderPoint& point : points) {
        const double miss = std::log(point.positions.medianSeconds / points.front().positions.medianSeconds) -
                            std::log(predicted(point) / predicted(points.front()));
        sum += miss * miss;
    }
    return std::sqrt(sum / static_cast<double>(points.size()));
}

} // namespace

std::size_t orderTargetSteps() {
    return kOrders.size();
}

std::vector<TargetRow> orderTargets(const BenchSettings& settings, Progress& progress) {
    std::vector<OrderPoint> points;
    for (const char* order : kOrders) {
        progress.step(std::string(kOrderPattern) + " 128x128 " + order + " bidirectional");
        points.push_back(measureOrder(order, settings));
    }
    std::vector<TargetRow> rows;
    char detail[300];
    for (std::size_t k = 0; k < points.size(); ++k) {
        const OrderPoint& p = points[k];
        const double ratio =
            static_cast<double>(p.blocks.computedCells) / static_cast<double>(p.blocks.allowedCells);
        std::snprintf(
            detail, sizeof detail,
            "allowed %lld, 64-blocks %lld non-empty computing %lld cells, grid plan computes %.0f; positions "
            "in blocks of 64: %.1f ms (%.1f GFLOP/s), grid plan %.1f ms (%.1f GFLOP/s)",
            static_cast<long long>(p.blocks.allowedCells),
            static_cast<long long>(p.blocks.full + p.blocks.partial),
            static_cast<long long>(p.blocks.computedCells), p.planCells, 1e3 * p.positions.medianSeconds,
            p.positions.gflops, 1e3 * p.gridPlan.medianSeconds, p.gridPlan.gflops);
        rows.push_back(
            {std::string(kOrderPattern) + " 128x128 " + kOrders[k] + ": 64-block computed / allowed cells",
             ratio, "(report)", true, detail});
    }
    const double computed =
        logMisfit(points, [](const OrderPoint& p) { return static_cast<double>(p.blocks.computedCells); });
    const double allowed =
        logMisfit(points, [](const OrderPoint& p) { return static_cast<double>(p.blocks.allowedCells); });
    std::snprintf(detail, sizeof detail,
                  "blocks of 64 positions over the 3 orders: RMS log(time ratio / count ratio) %.3f for "
                  "computed cells, %.3f "
                  "for allowed cells: time follows %s cells",
                  computed, allowed, computed < allowed ? "computed" : "allowed");
    rows.push_back(
        {std::string(kOrderPattern) + " 128x128 orders: time misfit, computed cells - allowed cells",
         computed - allowed, "< 0 (follows computed)", computed < allowed, detail});
    return rows;
}

} // namespace attnlab
