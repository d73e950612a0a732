#pragma once

#include "core/jobs/cancel_check.h"
#include "core/param_schema.h"
#include "core/patterns/pattern.h"
#include "core/patterns/pattern_components.h"
#include "core/patterns/token_grid.h"
#include "core/tensor.h"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace attnlab {

// What a variant states about the reach of a stack of layers that all use its pattern (with a
// residual path), kept to what holds exactly for the pattern in use. Empty label: nothing to state.
struct ReachTheory {
    std::string label;                               // the formula with its source paper, as a legend shows it
    std::vector<std::pair<double, double>> maxReach; // (l, max over queries of the farthest |i − j|) where exact
    int allPairsBy = 0; // > 0: every pair (j ≤ i when causal) is connected within this many layers
};

// One series of the accuracy comparison against exact softmax attention: the variant run with `fixed`
// and `parameter` set to each of `values` in turn. A budget sweep (budget = true) is a curve over its
// numeric values in its variant's own panel (budget axis `axis`); otherwise each value is one reference
// line (e.g. linear attention's kernels). The error-vs-input-scale panel runs a budget sweep at
// `scaleBudget` only and a reference line at each of its values.
struct AccuracySweep {
    std::string family;               // the series' id in the CSV, e.g. "linformer_pool"
    std::string label;                // the legend text
    std::string parameter;            // the swept key
    std::vector<std::string> values;  // as typed with --set
    ParamOverrides fixed;             // the other overrides of the series
    bool budget = true;
    bool seeded = true;               // random method: averaged over seeds (the variant's `seed` key)
    bool atMostN = false;             // values above n are left out (and named)
    std::string axis;                 // the budget axis' title, e.g. "random features m"
    std::string scaleBudget;          // the value the error-vs-scale panel uses (budget sweeps)
    std::string note;                 // what the figure says about the series beside its legend (may be empty)
};

enum class CausalSupport { Both, CausalOnly, BidirectionalOnly };

// Shape of one attention problem: heads × n queries/keys of size d, values of size dv. With `queries`
// set, only the last `queries` positions query (n − queries … n − 1) against all n keys.
struct ProblemShape {
    int heads = 1;
    std::int64_t n = 0;
    std::int64_t d = 0;
    std::int64_t dv = 0;
    bool causal = false;
    int kvHeads = 0; // key/value heads (grouped heads divide `heads`); 0 means as many as `heads`
    // The token grid the n positions lie on (null: a plain sequence); when set, grid->cells() == n, or, in a
    // causal context (setCausalContext), grid->cells() > n: the grid's first n cells, in its order.
    // Only the grid primitives of pattern expressions read it: every other pattern acts on positions.
    TokenGridPtr grid = nullptr;
    // Sets n for a sweep over lengths: a grid fixes n, so at any other n the problem is a plain sequence.
    void setLength(std::int64_t length) {
        n = length;
        if (grid && grid->cells() != n) grid = nullptr;
    }
    // Sets n for the first n tokens of a causal generation (a decoding step's context, the keys of a chunk of
    // prefill): a grid of at least n cells is kept, whose first n cells are the tokens generated so far; a
    // smaller one is none.
    void setCausalContext(std::int64_t length) {
        n = length;
        causal = true;
        if (grid && grid->cells() < n) grid = nullptr;
    }
    // Sets n for a sweep over image sizes: the grid scaled to n cells (scaledGrid: the same frames and order,
    // the aspect kept) where there is one, else a plain sequence as with setLength.
    void setScaledLength(std::int64_t length) {
        n = length;
        if (grid && grid->cells() != n) grid = scaledGrid(*grid, n);
    }
    // 1 … n; 0 means n (every position queries). Last, so that aggregate initialisers keep their meaning.
    std::int64_t queries = 0;
    int keyValueHeads() const { return kvHeads > 0 ? kvHeads : heads; }
    std::int64_t queryRows() const { return queries > 0 ? queries : n; }
    // Position of query row 0: n − queryRows().
    std::int64_t firstQuery() const { return n - queryRows(); }
    ShapeContext context() const { return {n, d}; }
};

// Q, K, V as [h, n, d], [h, n, d], [h, n, dv]. K may be null for variants that derive keys from Q.
// Q may have fewer rows than K and V (m ≤ n: queries that are not the whole sequence), for the variants
// that take them (VariantInfo::queryRows): Q's row r is position n − m + r.
struct AttentionInputs {
    const Tensor3* q = nullptr;
    const Tensor3* k = nullptr;
    const Tensor3* v = nullptr;
    ProblemShape shape(bool causal) const;
    // Grouped key/value heads: K and V may hold h_kv heads, h_kv dividing h; query head t reads key/value
    // head ⌊t·h_kv/h⌋ (consecutive groups). Kernels index K and V only through this, never copying heads.
    int kvHead(int queryHead) const {
        const Tensor3* kv = v ? v : k;
        return kv ? static_cast<int>(static_cast<std::int64_t>(queryHead) * kv->heads / q->heads) : queryHead;
    }
};

// Queries that are not the whole sequence, for a variant whose run needs every position's query (lsh's
// shared keys): the inputs with Q grown to n rows, the earlier positions' rows taken from K (head t when
// K has as many heads as Q, else kvHead(t)), Q's own rows last. The inputs themselves when Q already has n rows. The
// whole run's last m rows are the rectangle's, since every output row depends on its own query only.
AttentionInputs withQueryPrefix(const AttentionInputs& inputs, Tensor3& storage);

struct RunResult;
struct DecodeInfo;
struct BlockPlan;

struct RunOptions {
    bool causal = false;
    ParamSet params;
    int threads = 1;             // OpenMP threads for this call; the caller decides
    bool wantWeights = false;    // also fill RunResult::weights ([h, n, n])
    bool useReference = false;   // the plain, obviously-correct path the fast kernels are tested against
    CancelCheck cancelled;       // may be empty
    // An earlier result whose output storage this run may take over and overwrite instead of allocating
    // and clearing a new one (timing loops pass their previous result, as a caller with a preallocated
    // output would).
    RunResult* recycle = nullptr;
    TokenGridPtr grid = nullptr; // the problem's token grid (ProblemShape::grid), null for none
};

struct RunResult {
    Tensor3 out;                    // [h, n, dv]
    std::optional<Tensor3> weights; // [h, n, n], out = W · V per head
    bool cancelled = false;
};

// Named multiply-add counts of a variant's attention core, for all heads, plus softmax exponentials.
struct CoreCost {
    std::map<std::string, double> terms; // scores, weights_v, feature_map, linear_state, projection, relpos, hashing
    double exps = 0;
    double workspaceBytes = 0;           // extra memory of the default kernel beyond inputs and outputs
    // Memory traffic the kernel cannot avoid beyond reading Q, K, V and writing out once (which the cost
    // model adds in one place, runIoBytes): copies the algorithm gathers (counted written once and read
    // once) and scattered reads nothing can reuse. Net of inputs never read (lsh shared_qk: K), so it
    // may be negative. bytes_min = runIoBytes + this.
    double extraMinBytes = 0;
};

// What the pattern entry point needs: the shape, the resolved parameters, and for data-dependent
// patterns (lsh) the inputs and which head.
struct PatternRequest {
    ProblemShape shape;
    const ParamSet* params = nullptr;
    const AttentionInputs* inputs = nullptr; // only for data-dependent patterns
    int head = 0;
};

struct VariantInfo {
    std::string id;
    std::string displayName;
    std::string family;
    std::string summary;
    ParamSchema params;
    CausalSupport causalSupport = CausalSupport::Both;
    bool dataDependentPattern = false; // the pattern needs Q (and K)
    bool hasMask = true;               // false: the pattern is where W may be non-zero (all or j ≤ i)
    // Takes queries that are not the whole sequence (ProblemShape::queries < n): run, pattern and cost
    // then cover the last rows only. False for the recurrent and low-rank variants, which compute every
    // query row from a state over the keys (they refuse them).
    bool queryRows = true;
    // Throws InputError for combinations the schema's per-key ranges cannot express (e.g. d odd with
    // relpos=sinusoid, pool with k > n, a global index outside [0, n)). May be empty.
    std::function<void(const ProblemShape&, const ParamSet&)> validate;
    // True when K must be given (false only for lsh with shared_qk).
    std::function<bool(const ParamSet&)> needsKeys;
    std::function<RunResult(const AttentionInputs&, const RunOptions&)> run;
    std::function<std::unique_ptr<Pattern>(const PatternRequest&)> pattern;
    // Optional: the fast kernel's block plan (core/kernels/block_plan.h) of `pattern` for the request,
    // usually kept between runs; covers exactly the pattern's cells. Set where a variant knows a better
    // plan than the generic one (a permutation that turns its scattered columns into dense blocks) or
    // wants its plan cached. Data-dependent patterns give request.head's plan. May be empty.
    std::function<std::shared_ptr<const BlockPlan>(const PatternRequest&)> plan;
    std::function<CoreCost(const ProblemShape&, const ParamSet&)> cost;
    // True when `cost` counts the pattern's column ranges row by row (no closed form for the row
    // counts): one evaluation is O(ranges), which the crossover search at n = 2^20 cannot always afford.
    bool costCountsRanges = false;
    // What this variant's pattern guarantees about reach over `layers` layers (receptive-field view). May be empty.
    std::function<ReachTheory(const ProblemShape&, const ParamSet&, int layers)> reachTheory;
    // The series the accuracy view measures for this variant (empty: not an approximation to compare).
    std::vector<AccuracySweep> accuracySweeps;
    // One generation step (core/decode/decode.h); null: a softmax pattern with the default rules there.
    std::shared_ptr<const DecodeInfo> decode;
    // The pattern with each allowed cell labelled by the part it comes from (window, globals, ...).
    std::function<std::unique_ptr<PatternComponents>(const PatternRequest&)> components;
    // What component k (1-based) is, at index k − 1 (e.g. "window", "globals", "random"); components
    // beyond the list are named by their number. The custom variant names its components by its terms.
    std::vector<std::string> componentNames;
    // A pattern expression that the `custom` variant turns into exactly this pattern and these
    // components (the same causal flag or not); empty for variants that have none.
    std::function<std::string(const PatternRequest&)> printExpr;
};

std::string causalSupportName(CausalSupport support);

} // namespace attnlab
