// lsh: Reformer LSH attention. h(x) = argmax([xR ; −xR]) with R ∈ R^{d×b/2} ~ N(0,1), one R per round,
// shared by all heads. M_ij: h_r(q_i) = h_r(k_j) in some round r (∧ j ≤ i if causal). With shared_qk the
// keys are q_j/‖q_j‖ (K ignored) and j = i is excluded unless the row has no other member; without it an
// empty row gets j = i.
#include "core/decode_step.h"
#include "core/kernels/block_attention.h"
#include "core/kernels/tile_math.h"
#include "core/parallel_tasks.h"
#include "core/random_features.h"
#include "core/run_result.h"
#include "core/variant_support.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab {

namespace {

// Bucket of one row (d values) under rotation R (d × b/2), in double; ties go to the lower index.
std::int64_t hashRowExactly(const float* row, std::int64_t d, const std::vector<double>& rotation, std::int64_t halfBuckets,
                            std::vector<double>& projected) {
    projected.assign(static_cast<std::size_t>(halfBuckets), 0.0);
    for (std::int64_t c = 0; c < d; ++c)
        for (std::int64_t b = 0; b < halfBuckets; ++b) projected[b] += static_cast<double>(row[c]) * rotation[c * halfBuckets + b];
    std::int64_t best = 0;
    double bestValue = projected[0];
    for (std::int64_t b = 1; b < 2 * halfBuckets; ++b) {
        const double value = b < halfBuckets ? projected[b] : -projected[b - halfBuckets];
        if (value > bestValue) {
            bestValue = value;
            best = b;
        }
    }
    return best;
}

// Buckets of every row of one head's [n, d] matrix, as hashRowExactly gives them: the projections are
// one float tile product, and a row whose two best candidates are closer than float rounding could
// reorder (bounded by d·2⁻²³·‖x‖₁·max|R|, with margin) is hashed again in double.
std::vector<std::int64_t> hashRows(const float* rows, std::int64_t n, std::int64_t d, const std::vector<double>& rotation,
                                   std::int64_t halfBuckets) {
    const std::int64_t stride = (halfBuckets + tile::kLanes - 1) / tile::kLanes * tile::kLanes;
    std::vector<float> rotationFloat(rotation.begin(), rotation.end()), projected(static_cast<std::size_t>(n * stride));
    double largest = 0;
    for (const double x : rotation) largest = std::max(largest, std::fabs(x));
    tile::TileProduct product;
    product.depth = d;
    product.a = rows;
    product.aRowStride = d;
    product.aDepthStride = 1;
    product.b = rotationFloat.data();
    product.bRowStride = halfBuckets;
    product.c = projected.data();
    product.cRowStride = stride;
    tile::multiplyBlock(product, n, halfBuckets);
    std::vector<std::int64_t> buckets(static_cast<std::size_t>(n));
    std::vector<double> exact;
    for (std::int64_t i = 0; i < n; ++i) {
        float bestValue = 0, second = 0;
        const std::int64_t best = tile::signedArgmax(projected.data() + i * stride, halfBuckets, bestValue, second);
        double norm = 0;
        for (std::int64_t c = 0; c < d; ++c) norm += std::fabs(static_cast<double>(rows[i * d + c]));
        const double rounding = 4.0 * static_cast<double>(d + 1) * 0x1p-23 * norm * largest;
        buckets[static_cast<std::size_t>(i)] = static_cast<double>(bestValue) - second > rounding
                                                   ? best
                                                   : hashRowExactly(rows + i * d, d, rotation, halfBuckets, exact);
    }
    return buckets;
}

// Keys of every head: q_j/‖q_j‖ when shared_qk (zero stays zero), written into `storage` (kept by the
// caller between runs), else K itself.
const Tensor3& lshKeys(const AttentionInputs& inputs, bool shared, Tensor3& storage, int threads = 1) {
    if (!shared) return *inputs.k;
    const Tensor3& q = *inputs.q;
    if (storage.heads != q.heads || storage.rows != q.rows || storage.cols != q.cols) storage = Tensor3(q.heads, q.rows, q.cols);
    runTasks(q.heads, threads, {}, [&](std::int64_t h) {
        for (std::int64_t i = 0; i < q.rows; ++i) {
            const float* row = q.row(static_cast<int>(h), i);
            float* key = storage.row(static_cast<int>(h), i);
            double norm = 0;
            for (std::int64_t c = 0; c < q.cols; ++c) norm += static_cast<double>(row[c]) * row[c];
            const double inverse = norm > 0 ? 1.0 / std::sqrt(norm) : 0.0;
            for (std::int64_t c = 0; c < q.cols; ++c) key[c] = static_cast<float>(row[c] * inverse);
        }
    });
    return storage;
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

// One head's buckets per round: query[r][i] and key[r][j].
struct HeadHashes {
    std::vector<std::vector<std::int64_t>> query, key;
};

HeadHashes hashHead(const Tensor3& q, const Tensor3& keys, int h, int keyHead, const ParamSet& params) {
    const std::int64_t n = q.rows, d = q.cols, buckets = params.integer("buckets");
    const auto seed = static_cast<std::uint64_t>(params.integer("seed"));
    HeadHashes hashes;
    for (std::int64_t r = 0; r < params.integer("rounds"); ++r) {
        const auto rotation = lshRotation(d, buckets / 2, seed, r);
        hashes.key.push_back(hashRows(keys.head(keyHead), n, d, rotation, buckets / 2));
        hashes.query.push_back(hashRows(q.head(h), n, d, rotation, buckets / 2));
    }
    return hashes;
}

std::unique_ptr<BucketPattern> lshHeadPattern(const HeadHashes& hashes, std::int64_t n, const ParamSet& params,
                                              bool causal) {
    auto pattern = std::make_unique<BucketPattern>(n, causal, params.flag("shared_qk"));
    for (std::size_t r = 0; r < hashes.key.size(); ++r) {
        std::vector<std::vector<std::int64_t>> members(static_cast<std::size_t>(params.integer("buckets")));
        for (std::int64_t j = 0; j < n; ++j) members[static_cast<std::size_t>(hashes.key[r][static_cast<std::size_t>(j)])].push_back(j);
        pattern->addRound(hashes.query[r], std::move(members));
    }
    return pattern;
}

// Hashes of request.head: its queries and its key head.
HeadHashes requestHashes(const PatternRequest& request) {
    const bool shared = request.params->flag("shared_qk");
    Tensor3 storage;
    const Tensor3& keys = lshKeys(*request.inputs, shared, storage);
    return hashHead(*request.inputs->q, keys, request.head, keyHeadOf(*request.inputs, shared, request.head),
                    *request.params);
}

std::unique_ptr<Pattern> lshPattern(const PatternRequest& request) {
    return lshHeadPattern(requestHashes(request), request.shape.n, *request.params, request.shape.causal);
}

// Component k: the first round whose hashes match; kAddedDiagonal for a diagonal given to an empty row.
std::unique_ptr<PatternComponents> lshComponents(const PatternRequest& request) {
    auto pattern = lshHeadPattern(requestHashes(request), request.shape.n, *request.params, request.shape.causal);
    const BucketPattern* buckets = pattern.get(); // owned by the components object below, which outlives the layers
    std::vector<LayeredComponents::Layer> layers;
    for (std::size_t r = 0; r < buckets->rounds(); ++r)
        layers.push_back([buckets, r](std::int64_t i, std::vector<ColumnRange>& out) { buckets->roundRanges(r, i, out); });
    return std::make_unique<LayeredComponents>(std::move(pattern), std::move(layers));
}

// One pattern per query head, hashed in parallel. False when cancelled.
bool hashHeads(const AttentionInputs& inputs, const Tensor3& keys, const ParamSet& params, bool causal, int threads,
               const CancelCheck& cancelled, HeadPatterns& patterns) {
    const bool shared = params.flag("shared_qk");
    patterns.resize(static_cast<std::size_t>(inputs.q->heads));
    return runTasks(inputs.q->heads, threads, cancelled, [&](std::int64_t h) {
        const auto t = static_cast<int>(h);
        patterns[static_cast<std::size_t>(h)] =
            lshHeadPattern(hashHead(*inputs.q, keys, t, keyHeadOf(inputs, shared, t), params), inputs.q->rows, params, causal);
    });
}

// Reformer's way: one pass per round with queries and keys sorted by bucket (then by index), a block
// never spanning two buckets, so each bucket is a dense (causal) block. A pair that already matched in
// an earlier round is left out; with shared_qk a row's own key is left out unless nothing else is
// left; a row with no key at all gets its own (in round 0).
std::shared_ptr<const BlockPlan> lshPlan(const HeadHashes& hashes, std::int64_t n, const ParamSet& params, bool causal) {
    const bool shared = params.flag("shared_qk");
    const auto buckets = static_cast<std::size_t>(params.integer("buckets"));
    const std::size_t rounds = hashes.key.size();
    std::vector<std::vector<std::int64_t>> keyOrder(rounds), bucketStart(rounds);
    std::vector<PlanRowOrder> rowOrder(rounds);
    auto sortByBucket = [buckets](const std::vector<std::int64_t>& bucket, std::vector<std::int64_t>& order,
                                  std::vector<std::int64_t>& start) {
        start.assign(buckets + 1, 0);
        for (const std::int64_t b : bucket) ++start[static_cast<std::size_t>(b) + 1];
        for (std::size_t b = 0; b < buckets; ++b) start[b + 1] += start[b];
        order.resize(bucket.size());
        std::vector<std::int64_t> next(start.begin(), start.end() - 1);
        for (std::size_t x = 0; x < bucket.size(); ++x)
            order[static_cast<std::size_t>(next[static_cast<std::size_t>(bucket[x])]++)] = static_cast<std::int64_t>(x);
    };
    for (std::size_t r = 0; r < rounds; ++r) {
        sortByBucket(hashes.key[r], keyOrder[r], bucketStart[r]);
        std::vector<std::int64_t> rowStart;
        sortByBucket(hashes.query[r], rowOrder[r].rows, rowStart);
        for (std::size_t b = 1; b <= buckets; ++b)
            if (rowStart[b] > rowStart[b - 1]) rowOrder[r].segmentEnds.push_back(rowStart[b]);
    }
    // Row i's keys in round r as positions of keyOrder[r], without pairs matched in earlier rounds.
    auto roundKeys = [&](std::size_t r, std::int64_t i, auto&& take) {
        const auto b = static_cast<std::size_t>(hashes.query[r][static_cast<std::size_t>(i)]);
        for (std::int64_t p = bucketStart[r][b]; p < bucketStart[r][b + 1]; ++p) {
            const std::int64_t j = keyOrder[r][static_cast<std::size_t>(p)];
            if (causal && j > i) break;
            bool earlier = false;
            for (std::size_t e = 0; e < r && !earlier; ++e)
                earlier = hashes.query[e][static_cast<std::size_t>(i)] == hashes.key[e][static_cast<std::size_t>(j)];
            if (!earlier) take(p, j);
        }
    };
    std::vector<std::uint8_t> hasOther(static_cast<std::size_t>(n), 0), hasAny(static_cast<std::size_t>(n), 0);
    for (std::size_t r = 0; r < rounds; ++r)
        for (std::int64_t i = 0; i < n; ++i)
            roundKeys(r, i, [&](std::int64_t, std::int64_t j) {
                hasAny[static_cast<std::size_t>(i)] = 1;
                if (j != i) hasOther[static_cast<std::size_t>(i)] = 1;
            });
    auto plan = std::make_shared<BlockPlan>();
    plan->n = n;
    for (std::size_t r = 0; r < rounds; ++r) {
        std::vector<std::int64_t> position(static_cast<std::size_t>(n));
        for (std::int64_t p = 0; p < n; ++p) position[static_cast<std::size_t>(keyOrder[r][static_cast<std::size_t>(p)])] = p;
        PassSpec pass;
        pass.order = &rowOrder[r];
        pass.columnOrder = &keyOrder[r];
        pass.resume = r > 0;
        pass.finish = r + 1 == rounds;
        std::vector<std::int64_t> positions;
        pass.ranges = [&](std::int64_t i, std::vector<ColumnRange>& out) {
            positions.clear();
            roundKeys(r, i, [&](std::int64_t p, std::int64_t j) {
                if (!(shared && j == i && hasOther[static_cast<std::size_t>(i)])) positions.push_back(p);
            });
            if (r == 0 && !hasAny[static_cast<std::size_t>(i)]) positions.push_back(position[static_cast<std::size_t>(i)]);
            std::sort(positions.begin(), positions.end());
            for (const std::int64_t p : positions)
                if (!out.empty() && out.back().end == p)
                    ++out.back().end;
                else
                    out.push_back({p, p + 1});
        };
        appendPass(*plan, pass);
    }
    return plan;
}

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

RunResult runLsh(const AttentionInputs& inputs, const RunOptions& options) {
    static thread_local Tensor3 storage; // the calling thread's, reused by its next run
    const bool shared = options.params.flag("shared_qk");
    const Tensor3& keys = lshKeys(inputs, shared, storage, options.threads);
    const std::int64_t n = inputs.q->rows;
    MaskedScoring scoring;
    scoring.scale = 1.0 / std::sqrt(static_cast<double>(inputs.q->cols));
    if (shared && inputs.v->heads != inputs.q->heads) {
        HeadPatterns own;
        if (!hashHeads(inputs, keys, options.params, options.causal, options.threads, options.cancelled, own)) {
            RunResult cancelled;
            cancelled.cancelled = true;
            return cancelled;
        }
        return runHeadByHead(inputs, keys, own, scoring, options);
    }
    HeadPatterns patterns(static_cast<std::size_t>(options.useReference ? inputs.q->heads : 0));
    HeadPlans plans(static_cast<std::size_t>(options.useReference ? 0 : inputs.q->heads));
    const bool hashed = runTasks(inputs.q->heads, options.threads, options.cancelled, [&](std::int64_t h) {
        const auto t = static_cast<int>(h);
        const HeadHashes hashes = hashHead(*inputs.q, keys, t, keyHeadOf(inputs, shared, t), options.params);
        if (options.useReference)
            patterns[static_cast<std::size_t>(h)] = lshHeadPattern(hashes, n, options.params, options.causal);
        else
            plans[static_cast<std::size_t>(h)] = lshPlan(hashes, n, options.params, options.causal);
    });
    if (!hashed) {
        RunResult cancelled;
        cancelled.cancelled = true;
        return cancelled;
    }
    AttentionInputs withKeys = inputs;
    withKeys.k = &keys;
    if (options.useReference) return runMaskedAttentionReference(withKeys, patterns, scoring, options);
    return runPlannedAttention(withKeys, plans, scoring, options);
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
        if (params.flag("shared_qk")) {
            Tensor3 storage;
            lshKeys(context, true, storage, threads);
            spec.ownKeys = std::move(storage);
        }
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
    v.plan = [](const PatternRequest& request) {
        return lshPlan(requestHashes(request), request.shape.n, *request.params, request.shape.causal);
    };
    v.run = runLsh;
    v.accuracySweeps = {{"lsh", "lsh (shared_qk=false) vs rounds", "rounds", {"1", "2", "4", "8"}, {{"shared_qk", "false"}}}};
    v.componentNames = {"round 1", "round 2", "round 3", "round 4", "round 5", "round 6", "round 7", "round 8"};
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
