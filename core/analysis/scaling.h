#pragma once

// How a cost grows with n: the slope of a curve in log-log space, measured (timings) or from the cost
// model (the theoretical exponent a figure states beside a measured curve).

#include "core/param_schema.h"
#include "core/variant.h"

#include <cstdint>
#include <optional>
#include <vector>

namespace attnlab {

// Least-squares slope of log(y) against log(x) over the points with x > 0 and y > 0; nothing when
// fewer than two such points with distinct x remain.
std::optional<double> logLogSlope(const std::vector<double>& xs, const std::vector<double>& ys);

// The exponent of the variant's attention-core MACs between n = first and n = last (a least-squares fit
// over the powers of two in between, both ends included), with the user's parameter overrides and every
// other parameter at its default for each n: 2 for full attention, about 1.5 for strided at l = √n, 1
// for a fixed window or linear attention. Nothing when the variant cannot be costed at those n.
std::optional<double> costModelExponent(const VariantInfo& variant, const ProblemShape& shape,
                                        const ParamOverrides& overrides, std::int64_t first, std::int64_t last);

} // namespace attnlab
