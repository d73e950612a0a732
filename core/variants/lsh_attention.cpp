// lsh: Reformer LSH attention. h(x) = argmax([xR ; −xR]) with R ∈ R^{d×b/2} ~ N(0,1), one R per round,
// shared by all heads. M_ij: h_r(q_i) = h_r(k_j) in some round r (∧ j ≤ i if causal). With shared_qk the
// keys are q_j/‖q_j‖ (K ignored) and j = i is excluded unless the row has no other member; without it an
// empty row gets j = i.
#include "core/parallel_tasks.h"
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

// M of one head kept as its hash buckets, O(rounds · n) memory however large the buckets are: per round,
// each query's bucket and each bucket's keys (ascending). A row's columns are merged from its buckets
// when asked. Safe to query from several threads at once.
class BucketPattern : public Pattern {
public:
    BucketPattern(std::int64_t n, bool causal, bool shared) : Pattern(n), m_causal(causal), m_shared(shared) {}

    void addRound(std::vector<std::int64_t> queryBucket, std::vector<std::vector<std::int64_t>> members) {
        m_queryBuckets.push_back(std::move(queryBucket));
        m_members.push_back(std::move(members));
    }

    bool allowed(std::int64_t i, std::int64_t j) const override {
        const std::vector<std::int64_t> columns = rowColumns(i);
        return std::binary_search(columns.begin(), columns.end(), j);
    }

    void rowRanges(std::int64_t i, std::vector<ColumnRange>& out) const override {
        const std::vector<ColumnRange> ranges = rangesOfColumns(rowColumns(i));
        out.insert(out.end(), ranges.begin(), ranges.end());
    }

    std::int64_t rowCount(std::int64_t i) const override { return static_cast<std::int64_t>(rowColumns(i).size()); }

    std::size_t rounds() const { return m_members.size(); }
    // Keys hashed to query i's bucket in round r, as ranges (before the causal and self rules).
    void roundRanges(std::size_t r, std::int64_t i, std::vector<ColumnRange>& out) const {
        for (const std::int64_t j : m_members[r][static_cast<std::size_t>(m_queryBuckets[r][static_cast<std::size_t>(i)])])
            appendRange(out, j, j + 1, size());
    }

private:
    // Row i's columns, ascending: its bucket's keys in every round (j ≤ i if causal); with shared_qk
    // without i itself unless nothing else is left; an empty row gets i.
    std::vector<std::int64_t> rowColumns(std::int64_t i) const {
        std::vector<std::int64_t> columns;
        for (std::size_t r = 0; r < m_members.size(); ++r)
            for (const std::int64_t j : m_members[r][static_cast<std::size_t>(m_queryBuckets[r][static_cast<std::size_t>(i)])]) {
                if (m_causal && j > i) break;
                columns.push_back(j);
            }
        if (m_members.size() > 1) {
            std::sort(columns.begin(), columns.end());
            columns.erase(std::unique(columns.begin(), columns.end()), columns.end());
        }
        if (m_shared && columns.size() > 1) {
            const auto self = std::lower_bound(columns.begin(), columns.end(), i);
            if (self != columns.end() && *self == i) columns.erase(self);
        }
        if (columns.empty()) columns.push_back(i);
        return columns;
    }

    bool m_causal;
    bool m_shared;
    std::vector<std::vector<std::int64_t>> m_queryBuckets;          // [round][i]
    std::vector<std::vector<std::vector<std::int64_t>>> m_members;  // [round][bucket]: keys, ascending
};

std::unique_ptr<BucketPattern> lshHeadPattern(const Tensor3& q, const Tensor3& keys, int h, const ParamSet& params,
                                        bool causal) {
    const std::int64_t n = q.rows, d = q.cols, buckets = params.integer("buckets");
    const std::int64_t rounds = params.integer("rounds");
    const auto seed = static_cast<std::uint64_t>(params.integer("seed"));
    auto pattern = std::make_unique<BucketPattern>(n, causal, params.flag("shared_qk"));
    for (std::int64_t r = 0; r < rounds; ++r) {
        const auto rotation = lshRotation(d, buckets / 2, seed, r);
        const auto keyBucket = hashRows(keys.head(h), n, d, rotation, buckets / 2);
        std::vector<std::vector<std::int64_t>> members(static_cast<std::size_t>(buckets));
        for (std::int64_t j = 0; j < n; ++j) members[static_cast<std::size_t>(keyBucket[static_cast<std::size_t>(j)])].push_back(j);
        pattern->addRound(hashRows(q.head(h), n, d, rotation, buckets / 2), std::move(members));
    }
    return pattern;
}

std::unique_ptr<Pattern> lshPattern(const PatternRequest& request) {
    const Tensor3 keys = lshKeys(*request.inputs, request.params->flag("shared_qk"));
    return lshHeadPattern(*request.inputs->q, keys, request.head, *request.params, request.shape.causal);
}

// Component k: the first round whose hashes match; kAddedDiagonal for a diagonal given to an empty row.
std::unique_ptr<PatternComponents> lshComponents(const PatternRequest& request) {
    const Tensor3 keys = lshKeys(*request.inputs, request.params->flag("shared_qk"));
    auto pattern = lshHeadPattern(*request.inputs->q, keys, request.head, *request.params, request.shape.causal);
    const BucketPattern* buckets = pattern.get(); // owned by the components object below, which outlives the layers
    std::vector<LayeredComponents::Layer> layers;
    for (std::size_t r = 0; r < buckets->rounds(); ++r)
        layers.push_back([buckets, r](std::int64_t i, std::vector<ColumnRange>& out) { buckets->roundRanges(r, i, out); });
    return std::make_unique<LayeredComponents>(std::move(pattern), std::move(layers));
}

RunResult runLsh(const AttentionInputs& inputs, const RunOptions& options) {
    const Tensor3 keys = lshKeys(inputs, options.params.flag("shared_qk"));
    HeadPatterns patterns(static_cast<std::size_t>(inputs.q->heads));
    const bool hashed = runTasks(inputs.q->heads, options.threads, options.cancelled, [&](std::int64_t h) {
        patterns[static_cast<std::size_t>(h)] = lshHeadPattern(*inputs.q, keys, static_cast<int>(h), options.params, options.causal);
    });
    if (!hashed) {
        RunResult cancelled;
        cancelled.cancelled = true;
        return cancelled;
    }
    AttentionInputs withKeys = inputs;
    withKeys.k = &keys;
    MaskedScoring scoring;
    scoring.scale = 1.0 / std::sqrt(static_cast<double>(inputs.q->cols));
    return runMasked(withKeys, patterns, scoring, options);
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
    v.components = lshComponents;
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
