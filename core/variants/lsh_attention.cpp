// lsh: Reformer LSH attention. h(x) = argmax([xR ; −xR]) with R ∈ R^{d×b/2} ~ N(0,1), one R per round,
// shared by all heads. M_ij: h_r(q_i) = h_r(k_j) in some round r (∧ j ≤ i if causal). With shared_qk the
// keys are q_j/‖q_j‖ (K ignored) and j = i is excluded unless the row has no other member; without it an
// empty row gets j = i.
#include "core/decode/decode_step.h"
#include "core/jobs/parallel_tasks.h"
#include "core/kernels/block_attention.h"
#include "core/kernels/run_result.h"
#include "core/variants/lsh_hashing.h"
#include "core/variants/lsh_plan.h"
#include "core/variants/variant_support.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace attnlab {

namespace {

// Σ x_c² in double over eight interleaved partial sums (independent chains instead of one long one).
double squaredNorm(const float* x, std::int64_t count) {
    constexpr int kChains = 8;
    double partial[kChains] = {};
    std::int64_t c = 0;
    for (; c + kChains <= count; c += kChains)
        for (int l = 0; l < kChains; ++l) partial[l] += static_cast<double>(x[c + l]) * x[c + l];
    double sum = 0;
    for (; c < count; ++c) sum += static_cast<double>(x[c]) * x[c];
    for (const double p : partial) sum += p;
    return sum;
}

// Head h of `keys` (shaped like q) = q_j/‖q_j‖ row by row (zero stays zero).
void normaliseHead(const Tensor3& q, int h, Tensor3& keys) {
    for (std::int64_t i = 0; i < q.rows; ++i) {
        const float* row = q.row(h, i);
        float* key = keys.row(h, i);
        const double norm = squaredNorm(row, q.cols);
        const double inverse = norm > 0 ? 1.0 / std::sqrt(norm) : 0.0;
        for (std::int64_t c = 0; c < q.cols; ++c) key[c] = static_cast<float>(row[c] * inverse);
    }
}

// `storage` with q's shape; its values are reallocated (zeroed) only when that shape changes.
Tensor3& shapedLike(const Tensor3& q, Tensor3& storage) {
    if (storage.heads != q.heads || storage.rows != q.rows || storage.cols != q.cols) storage = Tensor3(q.heads, q.rows, q.cols);
    return storage;
}

// Keys of every head: q_j/‖q_j‖ when shared_qk, written into `storage` (kept by the caller between
// runs), else K itself.
const Tensor3& lshKeys(const AttentionInputs& inputs, bool shared, Tensor3& storage, int threads = 1) {
    if (!shared) return *inputs.k;
    Tensor3& keys = shapedLike(*inputs.q, storage);
    runTasks(inputs.q->heads, threads, {}, [&](std::int64_t h) { normaliseHead(*inputs.q, static_cast<int>(h), keys); });
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
    HeadHashes hashes;
    hashHead(*request.inputs->q, keys, request.head, keyHeadOf(*request.inputs, shared, request.head), *request.params,
             hashes);
    return hashes;
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
        HeadHashes hashes;
        hashHead(*inputs.q, keys, t, keyHeadOf(inputs, shared, t), params, hashes);
        patterns[static_cast<std::size_t>(h)] = lshHeadPattern(hashes, inputs.q->rows, params, causal);
    });
}

// `one` = head `head` of t, as a one-head tensor (its storage reused when the shape allows).
const Tensor3& copyHead(const Tensor3& t, int head, Tensor3& one) {
    if (one.heads != 1 || one.rows != t.rows || one.cols != t.cols) one = Tensor3(1, t.rows, t.cols);
    std::copy(t.head(head), t.head(head) + t.headStride(), one.values.data());
    return one;
}

// shared_qk with grouped values: each query head has its own keys but shares its group's V head, so K and
// V no longer follow one head mapping. Each query head runs alone on copies of its Q, keys and V head
// (one head at a time: V is never repeated). Each head's result reuses the previous head's buffers.
RunResult runHeadByHead(const AttentionInputs& inputs, const Tensor3& keys, HeadPatterns& patterns,
                        const MaskedScoring& scoring, const RunOptions& options) {
    RunResult result = makeQueryResult(inputs, options);
    static thread_local RunResult part; // the calling thread's, reused by its next run
    RunOptions single = options;
    single.recycle = &part;
    for (int t = 0; t < inputs.q->heads; ++t) {
        static thread_local Tensor3 oneQ, oneK, oneV; // the calling thread's, reused by its next run
        const Tensor3 &q = copyHead(*inputs.q, t, oneQ), &k = copyHead(keys, t, oneK),
                      &v = copyHead(*inputs.v, inputs.kvHead(t), oneV);
        HeadPatterns own;
        own.push_back(std::move(patterns[static_cast<std::size_t>(t)]));
        part = runMasked({&q, &k, &v}, own, scoring, single);
        if (part.cancelled) {
            result.cancelled = true;
            return result;
        }
        std::copy(part.out.values.begin(), part.out.values.end(), result.out.head(t));
        if (result.weights) std::copy(part.weights->values.begin(), part.weights->values.end(), result.weights->head(t));
    }
    return result;
}

RunResult runLsh(const AttentionInputs& inputs, const RunOptions& options);

// Queries that are not the whole sequence: the run of every position (shared keys are the queries of
// all of them), of which the last m rows are kept. The grown Q and the whole run's output are the
// calling thread's, reused by its next run: fresh pages for both on every call cost more than the run.
RunResult runLshQueryRows(const AttentionInputs& inputs, const RunOptions& options) {
    static thread_local Tensor3 storage;
    static thread_local RunResult previous;
    const std::int64_t first = inputs.shape(options.causal).firstQuery(), m = inputs.q->rows;
    RunOptions whole = options;
    whole.recycle = &previous;
    RunResult all = runLsh(withQueryPrefix(inputs, storage), whole);
    RunResult result = makeQueryResult(inputs, options);
    result.cancelled = all.cancelled;
    for (int t = 0; t < inputs.q->heads && !result.cancelled; ++t) {
        std::copy(all.out.row(t, first), all.out.row(t, first) + m * all.out.cols, result.out.head(t));
        if (result.weights)
            std::copy(all.weights->row(t, first), all.weights->row(t, first) + m * all.weights->cols, result.weights->head(t));
    }
    previous.out = std::move(all.out);
    return result;
}

RunResult runLsh(const AttentionInputs& inputs, const RunOptions& options) {
    if (inputs.shape(options.causal).queries > 0) return runLshQueryRows(inputs, options);
    static thread_local Tensor3 storage; // the calling thread's, reused by its next run
    const bool shared = options.params.flag("shared_qk");
    const std::int64_t n = inputs.q->rows;
    MaskedScoring scoring;
    scoring.scale = 1.0 / std::sqrt(static_cast<double>(inputs.q->cols));
    if (shared && inputs.v->heads != inputs.q->heads) {
        const Tensor3& keys = lshKeys(inputs, shared, storage, options.threads);
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
    // The calling thread's hashes and plans, reused by its next run (named inside the tasks, a
    // thread_local would be each worker's own).
    static thread_local std::vector<HeadHashes> callerHashes;
    static thread_local std::vector<std::shared_ptr<BlockPlan>> callerPlans;
    std::vector<HeadHashes>& headHashes = callerHashes;
    std::vector<std::shared_ptr<BlockPlan>>& keptPlans = callerPlans;
    const auto heads = static_cast<std::size_t>(inputs.q->heads);
    headHashes.resize(std::max(headHashes.size(), heads));
    keptPlans.resize(std::max(keptPlans.size(), heads));
    // With shared_qk each head's keys are normalised by the task that hashes them.
    Tensor3* normalised = shared ? &shapedLike(*inputs.q, storage) : nullptr;
    const Tensor3& keys = shared ? *normalised : *inputs.k;
    const bool hashed = runTasks(inputs.q->heads, options.threads, options.cancelled, [&](std::int64_t h) {
        const auto t = static_cast<int>(h);
        if (normalised) normaliseHead(*inputs.q, t, *normalised);
        HeadHashes& hashes = headHashes[static_cast<std::size_t>(h)];
        hashHead(*inputs.q, keys, t, keyHeadOf(inputs, shared, t), options.params, hashes);
        if (options.useReference)
            patterns[static_cast<std::size_t>(h)] = lshHeadPattern(hashes, n, options.params, options.causal);
        else
            plans[static_cast<std::size_t>(h)] =
                lshPlan(hashes, n, options.params, options.causal, &keptPlans[static_cast<std::size_t>(h)]);
    });
    if (!hashed) {
        RunResult cancelled;
        cancelled.cancelled = true;
        return cancelled;
    }
    AttentionInputs withKeys = inputs;
    withKeys.k = &keys;
    if (options.useReference) return runMaskedAttentionReference(withKeys, patterns, scoring, options);
    bool nonFiniteOutput = false;
    RunResult result = runPlannedAttention(withKeys, plans, scoring, options, &nonFiniteOutput);
    // Scores past float32 (separate keys are not normalised) are scored again in double, as the masked kernels do.
    if (hasNonFiniteRow(result, options.threads, nonFiniteOutput)) {
        HeadPatterns exact(heads);
        for (std::size_t h = 0; h < heads; ++h) exact[h] = lshHeadPattern(headHashes[h], n, options.params, options.causal);
        redoNonFiniteRows(withKeys, exact, scoring, result);
    }
    return result;
}

// Memory of the hashing however the pattern is used: the rotations (rounds × d × b/2, in double and in
// float) and, per round, one bucket for each query and key of a head. Grows with rounds, not only n.
double lshHashingBytes(const ProblemShape& shape, const ParamSet& params) {
    const auto n = static_cast<double>(shape.n), d = static_cast<double>(shape.d);
    const auto rounds = static_cast<double>(params.integer("rounds")), b = static_cast<double>(params.integer("buckets"));
    return rounds * (12.0 * d * (b / 2) + 16.0 * n);
}

// Decoding keeps every key (any later query may hash into any bucket). The step's core is the expected
// row, rounds·n/b keys, plus hashing the new query (per query head) and key (per key head) in every round.
// The cached keys' buckets are part of the cache, hashed when the step is prepared.
// The same for `rows` new tokens at once (queries that are not the whole sequence).
CoreCost lshNewRowsCost(const ProblemShape& shape, const ParamSet& params, double rows) {
    const auto n = static_cast<double>(shape.n), b = static_cast<double>(params.integer("buckets"));
    const auto rounds = static_cast<double>(params.integer("rounds"));
    CoreCost cost = maskedCoreCost(shape, rows * std::min(n, rounds * n / b));
    const double keyHeads = params.flag("shared_qk") ? shape.heads : shape.keyValueHeads();
    cost.terms["hashing"] = rows * rounds * static_cast<double>(shape.d) * (b / 2) * (shape.heads + keyHeads);
    return cost;
}

std::shared_ptr<const DecodeInfo> lshDecode() {
    auto info = std::make_shared<DecodeInfo>();
    info->cost = [](const ProblemShape& shape, const ParamSet& params) {
        CoreCost cost = lshNewRowsCost(shape, params, 1);
        cost.workspaceBytes = lshHashingBytes(shape, params);
        return cost;
    };
    info->prepare = [](const AttentionInputs& context, const ParamSet& params, const DecodeOptions& options) {
        MaskedRowSpec spec;
        if (params.flag("shared_qk")) {
            Tensor3 storage;
            lshKeys(context, true, storage, options.threads);
            spec.ownKeys = std::move(storage);
        }
        hashHeads(context, spec.ownKeys ? *spec.ownKeys : *context.k, params, true, options.threads, {}, spec.patterns);
        spec.scoring.scale = 1.0 / std::sqrt(static_cast<double>(context.q->cols));
        return makeMaskedRowStep(context, std::move(spec), options);
    };
    info->everyQuery = [](const ParamSet&) { return true; }; // every position's query is hashed (and, with shared_qk, is a key)
    return info;
}

CoreCost lshCost(const ProblemShape& shape, const ParamSet& params) {
    if (shape.queries > 0) {
        // The model counts the m new rows as decoding does; the run hashes every position and attends all
        // of them before keeping the last rows, so its memory is the whole run's plus the grown Q and out.
        ProblemShape whole = shape;
        whole.queries = 0;
        const CoreCost wholeCost = lshCost(whole, params);
        CoreCost cost = lshNewRowsCost(shape, params, static_cast<double>(shape.queries));
        cost.workspaceBytes = wholeCost.workspaceBytes + 4.0 * static_cast<double>(shape.n * (shape.d + shape.dv)) * shape.heads;
        cost.extraMinBytes = wholeCost.extraMinBytes;
        return cost;
    }
    const auto n = static_cast<double>(shape.n), b = static_cast<double>(params.integer("buckets"));
    const auto rounds = static_cast<double>(params.integer("rounds"));
    CoreCost cost = maskedCoreCost(shape, rounds * n * n / b);
    cost.terms["hashing"] = 2.0 * rounds * n * static_cast<double>(shape.d) * (b / 2) * shape.heads;
    cost.workspaceBytes = 4.0 * n * static_cast<double>(shape.d) * shape.heads + 16.0 * rounds * n * n / b * shape.heads +
                          lshHashingBytes(shape, params);
    // Per round, Reformer's bucket-sorted copies of the queries, the keys (unless shared: they are the
    // sorted queries normalised) and the values, written once and read once; a shared K is never read.
    const bool shared = params.flag("shared_qk");
    const auto d = static_cast<double>(shape.d), dv = static_cast<double>(shape.dv);
    cost.extraMinBytes = rounds * 2.0 * 4.0 * shape.heads * n * ((shared ? d : 2.0 * d) + dv) -
                         (shared ? 4.0 * shape.heads * n * d : 0.0);
    return cost;
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
    v.accuracySweeps = {{"lsh",
                         "lsh (shared_qk=false)",
                         "rounds",
                         {"1", "2", "4", "8"},
                         {{"shared_qk", "false"}},
                         true,
                         true,
                         false,
                         "hashing rounds",
                         "4",
                         "LSH keeps only the keys hashed into the query's bucket: where softmax is flat (small logits) the "
                         "dropped keys hold most of the weight, and with separate Q and K the key with the largest q·k need "
                         "not share the query's bucket; more rounds keep more keys"}};
    v.componentNames = {"round 1", "round 2", "round 3", "round 4", "round 5", "round 6", "round 7", "round 8"};
    v.components = lshComponents;
    v.cost = lshCost;
    v.decode = lshDecode();
    return v;
}

} // namespace attnlab
