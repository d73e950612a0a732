#include "app/bench/bench_targets.h"

#include "core/analysis/scaling.h"
#include "core/patterns/token_grid.h"
#include "core/registry.h"

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdarg>
#include <cstdio>

namespace attnlab {

namespace {

// A sparse pattern the targets time against full attention at default parameters unless named.
struct PatternCase {
    std::string label;
    std::string variant;
    ParamOverrides overrides;
    double minFractionOfFull = 0; // of full's GFLOP/s at kTargetLength, same direction
    const char* grid = nullptr;   // a square image of kTargetLength cells in raster order, scaled over the sweep
};

const std::vector<PatternCase>& patternCases() {
    static const std::vector<PatternCase> cases = {
        {"strided", "strided", {}, 0.5},
        {"fixed", "fixed", {}, 0.5},
        {"chunk", "chunk", {}, 0.5},
        {"xl", "xl", {}, 0.5},
        {"longformer", "longformer", {}, 0.5},
        {"longformer globals=0,1", "longformer", {{"globals", "0,1"}}, 0.5},
        {"lsh", "lsh", {}, 0.5},
        {"bigbird", "bigbird", {}, 0.25},
        {"bigbird block=64", "bigbird", {{"block", "64"}, {"window", "3"}, {"globals", "1"}, {"random", "3"}}, 0.5},
        {"longformer dilation=2", "longformer", {{"dilation", "2"}}, 0.25},
        {"neighborhood(15) 128x128", "custom", {{"expr", "neighborhood(15)"}}, 0.5, "128,128"},
        {"neighborhood(7) 128x128", "custom", {{"expr", "neighborhood(7)"}}, 0.35, "128,128"},
    };
    return cases;
}

// The timing view's sweep doubles n; the prediction is checked on the same grid from n = 1024 up, its MAC
// rate fitted to the curve's points as the view fits it.
constexpr std::array<std::int64_t, 5> kSweep = {1024, 2048, 4096, 8192, kTargetLength};
// Patterns on an image sweep square images, 32² … 256².
constexpr std::array<std::int64_t, 4> kImageSweep = {1024, 4096, kTargetLength, 65536};

// Curves whose measured log-log slope over the sweep is checked against the cost model's exponent over
// the same n (the timing view's legend shows both); `theory` is the asymptotic exponent the view names.
struct SlopeCase {
    PatternCase pattern;
    const char* theory;
};

const std::vector<SlopeCase>& slopeCases() {
    static const std::vector<SlopeCase> cases = {
        {{"full", "full", {}, 0}, "2"},
        {{"strided", "strided", {}, 0}, "1.5 at l = sqrt(n)"},
        {{"longformer", "longformer", {}, 0}, "1 at a fixed window"},
        {{"linear", "linear", {}, 0}, "1"},
    };
    return cases;
}

// How far a measured slope may stray from the cost model's: at 0.25 the five points 1024 … 16384 still
// tell n² from n√n from n.
constexpr double kSlopeTolerance = 0.25;

bool supports(const PatternCase& pattern, bool causal) {
    const CausalSupport support = requireVariant(pattern.variant).causalSupport;
    return causal ? support != CausalSupport::BidirectionalOnly : support != CausalSupport::CausalOnly;
}

const char* directionName(bool causal) { return causal ? "causal" : "bidirectional"; }

struct Curve {
    const PatternCase* pattern = nullptr;
    std::vector<std::int64_t> sizes;  // kSweep, or kImageSweep on an image
    std::vector<TimingResult> points; // one per size
    TokenGridPtr grid;                // the image at sizes.front() (null: none)
    const TimingResult& at1024() const { return points.front(); }
    const TimingResult& atLength() const {
        return points[static_cast<std::size_t>(std::find(sizes.begin(), sizes.end(), kTargetLength) - sizes.begin())];
    }
    std::string range() const {
        return "n=" + std::to_string(sizes.front()) + ".." + std::to_string(sizes.back()) + (grid ? " (square images)" : "");
    }
};

Curve measureCurve(const PatternCase& pattern, bool causal, const BenchSettings& settings) {
    Curve curve;
    curve.pattern = &pattern;
    const TokenGridPtr image = pattern.grid ? makeTokenGrid(pattern.grid, "raster") : nullptr;
    if (image) {
        curve.sizes.assign(kImageSweep.begin(), kImageSweep.end());
        curve.grid = scaledGrid(*image, curve.sizes.front());
    } else {
        curve.sizes.assign(kSweep.begin(), kSweep.end());
    }
    for (const std::int64_t n : curve.sizes) {
        // Repeats until half a second is spent (a pattern's tens of milliseconds at n = 16,384 get a median of
        // a dozen runs or more, where two runs left the ratio to one slow repeat), and at least two or three.
        const bool large = n >= 8192;
        curve.points.push_back(timeAttention(pattern.variant, n, causal, pattern.overrides, settings.threads, large ? 2 : 3,
                                             pointBudget(settings, large ? 0.5 : 0.2), 12, 64, 0,
                                             image ? scaledGrid(*image, n) : nullptr));
    }
    return curve;
}

[[gnu::format(printf, 1, 2)]] std::string format(const char* pattern, ...) {
    char text[200];
    va_list args;
    va_start(args, pattern);
    std::vsnprintf(text, sizeof text, pattern, args);
    va_end(args);
    return text;
}

TargetRow rateRow(const Curve& curve, const TimingResult& full, bool causal) {
    const double ratio = curve.atLength().gflops / full.gflops;
    const double goal = curve.pattern->minFractionOfFull;
    return {curve.pattern->label + " " + directionName(causal) + " n=16384: GFLOP/s / full's", ratio,
            format(">= %.2f", goal), ratio >= goal,
            format("%.1f vs %.1f GFLOP/s (%.3f s vs %.3f s)", curve.atLength().gflops, full.gflops,
                   curve.atLength().medianSeconds, full.medianSeconds)};
}

// Measured time over the cost model's prediction, at the n where they differ most (as a factor either way).
TargetRow predictionRow(const Curve& curve, bool causal) {
    std::vector<double> macs, seconds;
    for (const TimingResult& point : curve.points) {
        macs.push_back(point.attentionMacs);
        seconds.push_back(point.medianSeconds);
    }
    const double rate = fittedMacRate(macs, seconds);
    double worstFactor = 0, worstMeasured = 0, worstPredicted = 0;
    std::int64_t worstN = curve.sizes.back();
    for (std::size_t k = 0; k < curve.sizes.size(); ++k) {
        const TimingResult& point = curve.points[k];
        const double predicted = point.attentionMacs / rate;
        const double factor = std::max(point.medianSeconds / predicted, predicted / point.medianSeconds);
        if (factor > worstFactor) {
            worstFactor = factor;
            worstN = curve.sizes[k];
            worstMeasured = point.medianSeconds;
            worstPredicted = predicted;
        }
    }
    return {curve.pattern->label + " " + directionName(causal) + ": model vs measured time, " + curve.range(), worstFactor,
            "<= 2 (factor either way)", worstFactor <= 2,
            format("worst at n=%lld: measured %.3f ms, predicted %.3f ms", static_cast<long long>(worstN), 1e3 * worstMeasured,
                   1e3 * worstPredicted)};
}

TargetRow slopeRow(const SlopeCase& slope, const Curve& curve, bool causal) {
    std::vector<double> ns, seconds, macs;
    for (std::size_t k = 0; k < curve.sizes.size(); ++k) {
        ns.push_back(static_cast<double>(curve.sizes[k]));
        seconds.push_back(curve.points[k].medianSeconds);
        macs.push_back(curve.points[k].attentionMacs);
    }
    ProblemShape shape;
    shape.heads = 12;
    shape.d = shape.dv = 64;
    shape.causal = causal;
    const double measured = logLogSlope(ns, seconds).value_or(0.0);
    // On an image the cost model's MACs at the sweep's own grids (costModelExponent's sizes are not squares).
    const double model = curve.grid ? logLogSlope(ns, macs).value_or(0.0)
                                    : costModelExponent(requireVariant(slope.pattern.variant), shape, slope.pattern.overrides,
                                                        curve.sizes.front(), curve.sizes.back())
                                          .value_or(0.0);
    const double gap = std::abs(measured - model);
    return {slope.pattern.label + " " + directionName(causal) + ": time slope - cost model's, " + curve.range(), gap,
            format("<= %.2f", kSlopeTolerance), gap <= kSlopeTolerance,
            format("measured %.2f, cost model %.2f, theory %s", measured, model, slope.theory)};
}

// The slope cases' curves: the pattern curves already measured where there is one, else measured here.
std::vector<TargetRow> slopeRows(const std::vector<Curve>& curves, bool causal, const BenchSettings& settings,
                                 Progress& progress) {
    std::vector<TargetRow> rows;
    for (const SlopeCase& slope : slopeCases()) {
        if (!supports(slope.pattern, causal)) continue;
        const auto measured = std::find_if(curves.begin(), curves.end(),
                                           [&](const Curve& curve) { return curve.pattern->label == slope.pattern.label; });
        if (measured != curves.end()) {
            rows.push_back(slopeRow(slope, *measured, causal));
            continue;
        }
        progress.step(slope.pattern.label + " " + directionName(causal) + " n=1024..16384");
        rows.push_back(slopeRow(slope, measureCurve(slope.pattern, causal, settings), causal));
    }
    for (const Curve& curve : curves) // patterns on an image: a fixed neighbourhood per cell
        if (curve.grid) rows.push_back(slopeRow({*curve.pattern, "1 at a fixed neighbourhood"}, curve, causal));
    return rows;
}

TargetRow slowestAt1024Row(const std::vector<Curve>& curves, const TimingResult& full1024, bool causal) {
    const Curve* slowest = &curves.front();
    for (const Curve& curve : curves)
        if (curve.at1024().medianSeconds > slowest->at1024().medianSeconds) slowest = &curve;
    const double ratio = slowest->at1024().medianSeconds / full1024.medianSeconds;
    return {std::string("pattern variants ") + directionName(causal) + " n=1024: slowest time / full's", ratio, "<= 1",
            ratio <= 1,
            "slowest: " + slowest->pattern->label +
                format(" %.3f ms vs full %.3f ms", 1e3 * slowest->at1024().medianSeconds, 1e3 * full1024.medianSeconds)};
}

std::vector<TargetRow> directionTargets(bool causal, const BenchSettings& settings, const TimingResult& full, const PeakResult& peak,
                                        Progress& progress) {
    std::vector<TargetRow> rows;
    const double fraction = full.gflops / peak.fmaGflops;
    rows.push_back({std::string("full ") + directionName(causal) + " n=16384: fraction of FMA peak", fraction, ">= 0.60",
                    fraction >= 0.6,
                    format("%.1f GFLOP/s of %.1f FMA peak (%.3f s)", full.gflops, peak.fmaGflops, full.medianSeconds)});
    progress.step(std::string("full ") + directionName(causal) + " n=1024");
    const TimingResult full1024 = timeAttention("full", 1024, causal, {}, settings.threads, 5, pointBudget(settings, 0.3));
    std::vector<Curve> curves;
    for (const PatternCase& pattern : patternCases()) {
        if (!supports(pattern, causal)) continue;
        progress.step(pattern.label + " " + directionName(causal) + " n=1024..16384");
        curves.push_back(measureCurve(pattern, causal, settings));
    }
    for (const Curve& curve : curves) rows.push_back(rateRow(curve, full, causal));
    if (causal)
        for (const Curve& curve : curves)
            if (curve.pattern->label == "strided") {
                const double speedup = full.medianSeconds / curve.atLength().medianSeconds;
                rows.push_back({"strided causal n=16384: speed-up over full causal", speedup, ">= 10", speedup >= 10,
                                format("%.3f s vs %.3f s", curve.atLength().medianSeconds, full.medianSeconds)});
            }
    rows.push_back(slowestAt1024Row(curves, full1024, causal));
    for (const Curve& curve : curves) rows.push_back(predictionRow(curve, causal));
    for (TargetRow& row : slopeRows(curves, causal, settings, progress)) rows.push_back(std::move(row));
    return rows;
}

} // namespace

std::size_t patternTargetSteps() {
    std::size_t steps = 0;
    for (const bool causal : {false, true}) {
        ++steps; // full at n = 1024
        for (const PatternCase& pattern : patternCases()) steps += supports(pattern, causal) ? 1 : 0;
        for (const SlopeCase& slope : slopeCases()) {
            const bool measured = std::any_of(patternCases().begin(), patternCases().end(),
                                              [&](const PatternCase& pattern) { return pattern.label == slope.pattern.label; });
            steps += supports(slope.pattern, causal) && !measured ? 1 : 0;
        }
    }
    return steps;
}

std::vector<TargetRow> patternTargets(const BenchSettings& settings, const FullAtLength& full, const PeakResult& peak, Progress& progress) {
    std::vector<TargetRow> rows = directionTargets(false, settings, full.bidirectional, peak, progress);
    for (TargetRow& row : directionTargets(true, settings, full.causal, peak, progress)) rows.push_back(std::move(row));
    return rows;
}

} // namespace attnlab
