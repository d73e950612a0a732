// lsh: Reformer LSH attention. h(x) = argmax([xR ; −xR]) with R ∈ R^{d×b/2} ~ N(0,1), one R per round,
// shared by all heads. M_ij: h_r(q_i) = h_r(k_j) in some round r (∧ j ≤ i if causal). With shared_qk the
// keys are q_j/‖q_j‖ (K ignored) and j = i is excluded unless the row has no other member; without it an
// empty row gets j = i.
#include "core/decode_step.h"
#include "core/parallel_tasks.h"
#include "core/random_features.h"
#include "core/run_result.h"
#include "core/variant_support.h"

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

// shared_qk's keys: every query row normalised, q_j/‖q_j‖ (zero stays zero), one key head per query head.
Tensor3 normalisedQueries(const Tensor3& q) {
    Tensor3 keys = q;
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

// The key head query head t hashes and scores against: its own normalised queries with shared_qk (K is
// not used, so there is nothing to share), else its key/value group's head of K.
int keyHeadOf(const AttentionInputs& inputs, bool shared, int t) { return shared ? t : inputs.kvHead(t); }

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

// Per round, each bucket's keys (ascending) for one key head: hashed once per key head, shared by the
// query heads of its group.
using KeyBuckets = std::vector<std::vector<std::vector<std::int64_t>>>; // [round][bucket]

KeyBuckets hashKeys(const float* keys, std::int64_t n, std::int64_t d, const ParamSet& params) {
    const std::int64_t buckets = params.integer("buckets");
    const auto seed = static_cast<std::uint64_t>(params.integer("seed"));
    KeyBuckets members(static_cast<std::size_t>(params.integer("rounds")));
    for (std::size_t r = 0; r < members.size(); ++r) {
        const auto keyBucket = hashRows(keys, n, d, lshRotation(d, buckets / 2, seed, static_cast<std::int64_t>(r)), buckets / 2);
        members[r].resize(static_cast<std::size_t>(buckets));
        for (std::int64_t j = 0; j < n; ++j) members[r][static_cast<std::size_t>(keyBucket[static_cast<std::size_t>(j)])].push_back(j);
    }
    return members;
}

std::unique_ptr<BucketPattern> lshHeadPattern(const Tensor3& q, int h, KeyBuckets members, const ParamSet& params,
                                              bool causal) {
    const std::int64_t n = q.rows, d = q.cols, buckets = params.integer("buckets");
    const auto seed = static_cast<std::uint64_t>(params.integer("seed"));
    auto pattern = std::make_unique<BucketPattern>(n, causal, params.flag("shared_qk"));
    for (std::size_t r = 0; r < members.size(); ++r) {
        const auto rotation = lshRotation(d, buckets / 2, seed, static_cast<std::int64_t>(r));
        pattern->addRound(hashRows(q.head(h), n, d, rotation, buckets / 2), std::move(members[r]));
    }
    return pattern;
}

// The bucket pattern of request.head: its key head hashed, then its queries.
std::unique_ptr<BucketPattern> lshRequestPattern(const PatternRequest& request) {
    const AttentionInputs& inputs = *request.inputs;
    const bool shared = request.params->flag("shared_qk");
    const int keyHead = keyHeadOf(inputs, shared, request.head);
    const Tensor3 normalised = shared ? normalisedQueries(*inputs.q) : Tensor3();
    const Tensor3& keys = shared ? normalised : *inputs.k;
    return lshHeadPattern(*inputs.q, request.head, hashKeys(keys.head(keyHead), keys.rows, keys.cols, *request.params),
                          *request.params, request.shape.causal);
}

std::unique_ptr<Pattern> lshPattern(const PatternRequest& request) { return lshRequestPattern(request); }

Tensor3 headOf(const Tensor3& t, int head) {
    Tensor3 one(1, t.rows, t.cols);
    std::copy(t.head(head), t.head(head) + t.headStride(), one.values.data());
    return one;
}

// shared_qk with grouped values: each query head has its own keys but shares its group's V head, so K and
// V no longer follow one head mapping. Each query head runs alone on copies of its Q, keys and V head
// (one head at a time: V is never repeated).
RunResult runHeadByHead(const AttentionInputs& inputs, const Tensor3& keys, HeadPatterns& patterns,
                        const MaskedScoring& scoring, const RunOptions& options) {
    RunResult result = makeQueryResult(inputs, options);
    RunOptions single = options;
    single.recycle = nullptr;
    for (int t = 0; t < inputs.q->heads; ++t) {
        const Tensor3 q = headOf(*inputs.q, t), k = headOf(keys, t), v = headOf(*inputs.v, inputs.kvHead(t));
        HeadPatterns own;
        own.push_back(std::move(patterns[static_cast<std::size_t>(t)]));
        const RunResult part = runMasked({&q, &k, &v}, own, scoring, single);
        if (part.cancelled) {
            result.cancelled = true;
            return result;
        }
        std::copy(part.out.values.begin(), part.out.values.end(), result.out.head(t));
        if (result.weights) std::copy(part.weights->values.begin(), part.weights->values.end(), result.weights->head(t));
    }
    return result;
}

// One pattern per query head: each key head hashed once, then each query head's buckets. False when cancelled.
bool hashHeads(const AttentionInputs& inputs, const Tensor3& keys, const ParamSet& params, bool causal, int threads,
               const CancelCheck& cancelled, HeadPatterns& patterns) {
    const bool shared = params.flag("shared_qk");
    std::vector<KeyBuckets> members(static_cast<std::size_t>(keys.heads));
    patterns.resize(static_cast<std::size_t>(inputs.q->heads));
    return runTasks(keys.heads, threads, cancelled,
                    [&](std::int64_t g) {
                        members[static_cast<std::size_t>(g)] = hashKeys(keys.head(static_cast<int>(g)), keys.rows, keys.cols, params);
                    }) &&
           runTasks(inputs.q->heads, threads, cancelled, [&](std::int64_t h) {
               const auto t = static_cast<int>(h);
               patterns[static_cast<std::size_t>(h)] =
                   lshHeadPattern(*inputs.q, t, members[static_cast<std::size_t>(keyHeadOf(inputs, shared, t))], params, causal);
           });
}

// Component k: the first round whose hashes match; kAddedDiagonal for a diagonal given to an empty row.
std::unique_ptr<PatternComponents> lshComponents(const PatternRequest& request) {
    auto pattern = lshRequestPattern(request);
    const BucketPattern* buckets = pattern.get(); // owned by the components object below, which outlives the layers
    std::vector<LayeredComponents::Layer> layers;
    for (std::size_t r = 0; r < buckets->rounds(); ++r)
        layers.push_back([buckets, r](std::int64_t i, std::vector<ColumnRange>& out) { buckets->roundRanges(r, i, out); });
    return std::make_unique<LayeredComponents>(std::move(pattern), std::move(layers));
}

RunResult runLsh(const AttentionInputs& inputs, const RunOptions& options) {
    const bool shared = options.params.flag("shared_qk");
    const Tensor3 normalised = shared ? normalisedQueries(*inputs.q) : Tensor3();
    const Tensor3& keys = shared ? normalised : *inputs.k;
    HeadPatterns patterns;
    if (!hashHeads(inputs, keys, options.params, options.causal, options.threads, options.cancelled, patterns)) {
        RunResult cancelled;
        cancelled.cancelled = true;
        return cancelled;
    }
    MaskedScoring scoring;
    scoring.scale = 1.0 / std::sqrt(static_cast<double>(inputs.q->cols));
    if (shared && inputs.v->heads != inputs.q->heads) return runHeadByHead(inputs, keys, patterns, scoring, options);
    AttentionInputs withKeys = inputs;
    withKeys.k = &keys;
    return runMasked(withKeys, patterns, scoring, options);
}

// Decoding keeps every key (any later query may hash into any bucket). The step's core is the expected
// row, rounds·n/b keys, plus hashing the new query (per query head) and key (per key head) in every round.
// The cached keys' buckets are part of the cache, hashed when the step is prepared.
std::shared_ptr<const DecodeInfo> lshDecode() {
    auto info = std::make_shared<DecodeInfo>();
    info->cost = [](const ProblemShape& shape, const ParamSet& params) {
        const auto n = static_cast<double>(shape.n), b = static_cast<double>(params.integer("buckets"));
        const auto rounds = static_cast<double>(params.integer("rounds"));
        CoreCost cost = maskedCoreCost(shape, std::min(n, rounds * n / b));
        const double keyHeads = params.flag("shared_qk") ? shape.heads : shape.keyValueHeads();
        cost.terms["hashing"] = rounds * static_cast<double>(shape.d) * (b / 2) * (shape.heads + keyHeads);
        return cost;
    };
    info->prepare = [](const AttentionInputs& context, const ParamSet& params, int threads) {
        MaskedRowSpec spec;
        if (params.flag("shared_qk")) spec.ownKeys = normalisedQueries(*context.q);
        hashHeads(context, spec.ownKeys ? *spec.ownKeys : *context.k, params, true, threads, {}, spec.patterns);
        spec.scoring.scale = 1.0 / std::sqrt(static_cast<double>(context.q->cols));
        return makeMaskedRowStep(context, std::move(spec), threads);
    };
    return info;
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
    v.accuracySweeps = {{"lsh", "lsh (shared_qk=false) vs rounds", "rounds", {"1", "2", "4", "8"}, {{"shared_qk", "false"}}}};
    v.components = lshComponents;
    v.cost = [](const ProblemShape& shape, const ParamSet& params) {
        const auto n = static_cast<double>(shape.n), b = static_cast<double>(params.integer("buckets"));
        const auto rounds = static_cast<double>(params.integer("rounds"));
        CoreCost cost = maskedCoreCost(shape, rounds * n * n / b);
        cost.terms["hashing"] = 2.0 * rounds * n * static_cast<double>(shape.d) * (b / 2) * shape.heads;
        cost.workspaceBytes = 4.0 * n * static_cast<double>(shape.d) * shape.heads + 16.0 * rounds * n * n / b * shape.heads;
        // Per round, Reformer's bucket-sorted copies of the queries, the keys (unless shared: they are the
        // sorted queries normalised) and the values, written once and read once; a shared K is never read.
        const bool shared = params.flag("shared_qk");
        const auto d = static_cast<double>(shape.d), dv = static_cast<double>(shape.dv);
        cost.extraMinBytes = rounds * 2.0 * 4.0 * shape.heads * n * ((shared ? d : 2.0 * d) + dv) -
                             (shared ? 4.0 * shape.heads * n * d : 0.0);
        return cost;
    };
    v.decode = lshDecode();
    return v;
}

} // namespace attnlab
