// lsh: Reformer LSH attention. h(x) = argmax([xR ; −xR]) with R ∈ R^{d×b/2} ~ N(0,1), one R per round,
// shared by all heads. M_ij: h_r(q_i) = h_r(k_j) in some round r (∧ j ≤ i if causal). With shared_qk the
// keys are q_j/‖q_j‖ (K ignored) and j = i is excluded unless the row has no other member; without it an
// empty row gets j = i.
#include "core/random_features.h"
#include "core/variant_support.h"
#include "core/variants/variant_factories.h"

#include <algorithm>

namespace attnlab {

namespace {

// Bucket of each row of one head's [n, d] matrix under rotation R (d × b/2); ties go to the lower index.
std::vector<std::int64_t> hashRows(const float* rows, std::int64_t n, std::int64_t d, const std::vector<double>& rotation,
                                   std::int64_t halfBuckets) {
    std::vector<std::int64_t> buckets(static_cast<std::size_t>(n));
    std::vector<double> projected(static_cast<std::size_t>(halfBuckets));
    for (std::int64_t i = 0; i < n; ++i) {
        std::fill(projected.begin(), projected.end(), 0.0);
        for (std::int64_t c = 0; c < d; ++c)
            for (std::int64_t b = 0; b < halfBuckets; ++b) projected[b] += static_cast<double>(rows[i * d + c]) * rotation[c * halfBuckets + b];
        std::int64_t best = 0;
        double bestValue = projected[0];
        for (std::int64_t b = 1; b < 2 * halfBuckets; ++b) {
            const double value = b < halfBuckets ? projected[b] : -projected[b - halfBuckets];
            if (value > bestValue) {
                bestValue = value;
                best = b;
            }
        }
        buckets[i] = best;
    }
    return buckets;
}

// Keys of one head: q_j/‖q_j‖ when shared_qk (zero stays zero), else K.
Tensor3 lshKeys(const AttentionInputs& inputs, bool shared) {
    if (!shared) return *inputs.k;
    Tensor3 keys = *inputs.q;
    for (int h = 0; h < keys.heads; ++h)
        for (std::int64_t i = 0; i < keys.rows; ++i) {
            float* row = keys.row(h, i);
            double norm = 0;
            for (std::int64_t c = 0; c < keys.cols; ++c) norm += static_cast<double>(row[c]) * row[c];
            norm = std::sqrt(norm);
            for (std::int64_t c = 0; c < keys.cols; ++c) row[c] = norm > 0 ? static_cast<float>(row[c] / norm) : 0.0f;
        }
    return keys;
}

std::unique_ptr<Pattern> lshHeadPattern(const Tensor3& q, const Tensor3& keys, int h, const ParamSet& params,
                                        bool causal) {
    const std::int64_t n = q.rows, d = q.cols, buckets = params.integer("buckets");
    const std::int64_t rounds = params.integer("rounds");
    const auto seed = static_cast<std::uint64_t>(params.integer("seed"));
    const bool shared = params.flag("shared_qk");
    std::vector<std::vector<std::int64_t>> columns(static_cast<std::size_t>(n));
    for (std::int64_t r = 0; r < rounds; ++r) {
        const auto rotation = lshRotation(d, buckets / 2, seed, r);
        const auto queryBucket = hashRows(q.head(h), n, d, rotation, buckets / 2);
        const auto keyBucket = hashRows(keys.head(h), n, d, rotation, buckets / 2);
        std::vector<std::vector<std::int64_t>> members(static_cast<std::size_t>(buckets));
        for (std::int64_t j = 0; j < n; ++j) members[keyBucket[j]].push_back(j);
        for (std::int64_t i = 0; i < n; ++i)
            for (const std::int64_t j : members[queryBucket[i]]) {
                if (causal && j > i) break;
                columns[i].push_back(j);
            }
    }
    std::vector<std::vector<ColumnRange>> rows(static_cast<std::size_t>(n));
    for (std::int64_t i = 0; i < n; ++i) {
        auto& row = columns[i];
        std::sort(row.begin(), row.end());
        row.erase(std::unique(row.begin(), row.end()), row.end());
        if (shared) {
            const auto self = std::find(row.begin(), row.end(), i);
            if (self != row.end() && row.size() > 1) row.erase(self);
        }
        if (row.empty()) row.push_back(i);
        rows[i] = rangesOfColumns(row);
    }
    return std::make_unique<ExplicitPattern>(n, rows);
}

std::unique_ptr<Pattern> lshPattern(const PatternRequest& request) {
    const Tensor3 keys = lshKeys(*request.inputs, request.params->flag("shared_qk"));
    return lshHeadPattern(*request.inputs->q, keys, request.head, *request.params, request.shape.causal);
}

RunResult runLsh(const AttentionInputs& inputs, const RunOptions& options) {
    const Tensor3 keys = lshKeys(inputs, options.params.flag("shared_qk"));
    HeadPatterns patterns(static_cast<std::size_t>(inputs.q->heads));
    for (int h = 0; h < inputs.q->heads; ++h)
        patterns[h] = lshHeadPattern(*inputs.q, keys, h, options.params, options.causal);
    AttentionInputs hashed = inputs;
    hashed.k = &keys;
    MaskedScoring scoring;
    scoring.scale = 1.0 / std::sqrt(static_cast<double>(inputs.q->cols));
    return runMasked(hashed, patterns, scoring, options);
}

} // namespace

VariantInfo makeLshVariant() {
    VariantInfo v;
    v.id = "lsh";
    v.displayName = "Reformer LSH";
    v.family = "Data-dependent";
    v.summary = "Queries attend to keys hashed into the same bucket by random rotations (angular LSH).";
    v.dataDependentPattern = true;
    ParamSpec buckets = integerParam("buckets", "Number of hash buckets b (even)", "max(2, 2*floor(n/64))",
                                     [](const ShapeContext& s, const ParamSet&) {
                                         return std::max<std::int64_t>(2, 2 * (s.n / 64));
                                     },
                                     2, ">= 2, even");
    v.params = {buckets,
                integerParam("rounds", "Hashing rounds; a pair is allowed if it collides in any round", "1",
                             [](const ShapeContext&, const ParamSet&) { return std::int64_t{1}; }, 1, ">= 1"),
                seedParam(), boolParam("shared_qk", "Keys are the normalised queries (K is ignored)", true)};
    v.validate = [](const ProblemShape&, const ParamSet& params) {
        if (params.integer("buckets") % 2 != 0)
            throw InputError("lsh parameter 'buckets' = " + std::to_string(params.integer("buckets")) +
                             " is out of range: >= 2, even");
    };
    v.needsKeys = [](const ParamSet& params) { return !params.flag("shared_qk"); };
    v.pattern = lshPattern;
    v.run = runLsh;
    v.cost = [](const ProblemShape& shape, const ParamSet& params) {
        const auto n = static_cast<double>(shape.n), b = static_cast<double>(params.integer("buckets"));
        const auto rounds = static_cast<double>(params.integer("rounds"));
        CoreCost cost = maskedCoreCost(shape, rounds * n * n / b);
        cost.terms["hashing"] = 2.0 * rounds * n * static_cast<double>(shape.d) * (b / 2) * shape.heads;
        cost.workspaceBytes = 4.0 * n * static_cast<double>(shape.d) * shape.heads + 16.0 * rounds * n * n / b * shape.heads;
        return cost;
    };
    return v;
}

} // namespace attnlab
