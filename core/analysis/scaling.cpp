#include "core/analysis/scaling.h"

#include "core/cost/cost_model.h"
#include "core/errors.h"
#include "core/registry.h"

#include <cmath>

namespace attnlab {

std::optional<double> logLogSlope(const std::vector<double>& xs, const std::vector<double>& ys) {
    double sumX = 0, sumY = 0, sumXX = 0, sumXY = 0;
    int count = 0;
    for (std::size_t p = 0; p < xs.size() && p < ys.size(); ++p) {
        if (!(xs[p] > 0) || !(ys[p] > 0) || !std::isfinite(xs[p]) || !std::isfinite(ys[p])) continue;
        const double x = std::log(xs[p]), y = std::log(ys[p]);
        sumX += x;
        sumY += y;
        sumXX += x * x;
        sumXY += x * y;
        ++count;
    }
    const double spread = count * sumXX - sumX * sumX;
    if (count < 2 || spread <= 1e-12 * count * sumXX) return std::nullopt;
    return (count * sumXY - sumX * sumY) / spread;
}

std::optional<double> costModelExponent(const VariantInfo& variant, const ProblemShape& shape,
                                        const ParamOverrides& overrides, std::int64_t first, std::int64_t last) {
    std::vector<double> ns, macs;
    auto add = [&](std::int64_t n) {
        ProblemShape at = shape;
        at.setLength(n);
        try {
            macs.push_back(layerCost(variant, at, prepareParams(variant, at, overrides)).attentionMacs);
            ns.push_back(static_cast<double>(n));
        } catch (const InputError&) {
        }
    };
    add(first);
    for (std::int64_t n = 1; n < last; n *= 2)
        if (n > first) add(n);
    if (last > first) add(last);
    return logLogSlope(ns, macs);
}

} // namespace attnlab
