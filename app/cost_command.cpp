#include "app/cli_args.h"
#include "app/commands.h"
#include "app/grid_options.h"
#include "app/model_option.h"

#include "core/analysis/crossovers.h"
#include "core/cost/cost_model.h"
#include "core/decode/decode.h"
#include "core/errors.h"
#include "core/io/json_writer.h"
#include "core/patterns/block_counts.h"
#include "core/registry.h"

#include <cstdio>
#include <optional>

namespace attnlab {

namespace {

constexpr const char* kCostHelp = R"(usage: attnlab cost --variant ID --n N --d D --heads H [--kv-heads G] [--causal]
                    [--decode [--kv-dtype f32|f16|bf16]] [--grid H,W | T,H,W [--order ORDER]] [--queries M]
                    [--set KEY=VALUE]... [--block-size B] [--json]
       attnlab cost --layer gau --variant relu2|mixed_chunk --n N --d D --heads H [--causal] [--set KEY=VALUE]... [--json]
       attnlab cost --model NAME [--variant ID] [any option above] [--json]
       attnlab cost --model list

Multiply-add counts of one Transformer layer (model width hd, FFN width 4hd) whose attention core is
the variant: qkv_proj n(hd)(h + 2g)d (3n(hd)^2 when g = h), out_proj n(hd)^2, ffn 8n(hd)^2, and the
core's own terms (scores, weights_v, feature_map, linear_state, projection, relpos, hashing).
flops = 2*macs. Softmax exponentials are counted separately. peak_bytes: float32 Q, K, V and out
plus the kernel's extra memory. bytes_min: the memory traffic the core must at least move: Q, K, V
read once and out written once (float32), plus the variant's unavoidable extras (lsh's bucket-sorted
copies, linformer's projected keys/values, bigbird's scattered random keys; see docs/benchmarks.md).
Also prints the crossovers of this case, searched in the cost model for n up to 2^20 (less, and
said so, where counting a pattern's cells costs too much, e.g. stride(2) in custom) with the
given parameters (the others at their defaults for each n): where self-attention passes the FFN, where
the attention core passes the rest of the layer, and where a linear-cost core at head size 4d costs
less than full attention at d (with a closed form such as 2hd or 16d when there is one; see
docs/cost_model.md).
--kv-heads G: grouped key/value heads (GQA; 1 is MQA), G divides H; default H.
--decode: one generation step at context length n instead (causal; the new token is query row
n-1): qkv_proj (hd)(h + 2g)d, out_proj (hd)^2, ffn 8(hd)^2 and the core of that row, with
retained_keys (keys kept per key/value head; null for a recurrent state), kv_cache_bytes (what
one layer keeps) and kv_read_bytes (the cached keys and values the step reads). docs/inference.md
states the rules per variant. No crossovers then.
--kv-dtype (with --decode): the precision of the cached keys and values, f32 (default), f16 or bf16
(2 bytes per element); recurrent states stay float32. The JSON gives kv_dtype.
--grid, --order: the tokens lie on an image or video grid (docs/grids.md); n is its cell count (--n
may be left out) and the pattern's allowed cells are counted on it. The JSON gains grid and order. A
grid fixes n, so there are no crossovers then either.
--block-size B: also what a block kernel computes of the pattern cut into B x B blocks (the last row
and column of blocks may be smaller): full, partial and empty blocks, computed_cells (the area of
every non-empty block) and allowed_cells (nnz). B >= 1; not with --decode, nor for lsh (its pattern
depends on Q and K).
--model NAME: a known model's shape as the defaults (--model list shows them): n (its context), d,
heads, kv-heads, the FFN (width and gating, e.g. LLaMA's SwiGLU: 3 products of n x hd x f) and, with
--decode, the cache precision it ships in; each option given still overrides its default. Without
--variant the model's own attention (full, or Mistral's sliding window as longformer). The JSON gains
model, layers and ffn_width, with --decode model_kv_cache_bytes (all layers).
--layer gau: FLASH's gated attention unit instead, the layer FLASH stacks in place of attention + FFN
(relu2 and mixed_chunk only): model width hd, expansion e = 2hd, one head of size s = 128, no FFN.
Terms uv_proj 2n(hd)e, z_proj n(hd)s, scores nnz*s, weights_v nnz*e (mixed_chunk: its chunks' cells,
plus linear_state 2n*s*e) and out_proj n*e(hd). FLASH keeps a standard model's parameter count with two
GAU layers per attention + FFN layer, so it also prints that comparison: two GAU layers against one
layer of full attention + FFN 4hd at the same n, h and d. --layer standard (the default) is the layer
above. The JSON gains layer ("gau" or "standard") and, for gau, gau_comparison.
--queries M: M new tokens over a cache of n (a chunk of prefill, or M tokens verified at once): the
core of query rows n-M ... n-1 only (with --causal, the sum of those rows' allowed keys, not half
the rectangle) and qkv_proj, out_proj and ffn of the M new tokens. M = 1 with --causal is the
--decode step's count. The JSON gives `queries` (n without the option). No crossovers then.
)";

// "NAME_n": the crossover threshold (the statement holds for n > it) or null; "NAME_closed_form" likewise;
// "NAME_searched_to": the top of the n searched.
void crossoverJson(JsonWriter& json, const std::string& name, const Crossover& crossover) {
    json.key(name + "_n");
    if (crossover.threshold)
        json.value(static_cast<double>(*crossover.threshold));
    else
        json.null();
    json.key(name + "_closed_form");
    if (crossover.closedForm.empty())
        json.null();
    else
        json.value(crossover.closedForm);
    json.key(name + "_searched_to").value(static_cast<double>(crossover.searchedTo));
}

// crossovers: null for a decoding step (they describe whole sequences); blocks: null unless asked for;
// model: the --model whose shape this is, or null.
// gau: the layer FLASH stacks two of in place of one attention + FFN layer (Hua et al. 2022), and that layer.
struct GauComparison {
    double twoGauLayersMacs = 0;
    double attentionFfnLayerMacs = 0;
};

GauComparison gauComparison(const LayerCost& gau) {
    const VariantInfo& full = requireVariant("full");
    ProblemShape shape = gau.shape;
    shape.dv = shape.d;
    return {2.0 * gau.layerMacs, layerCost(full, shape, prepareParams(full, shape, {})).layerMacs};
}

std::string costJson(const LayerCost& cost, const LayerCrossovers* crossovers, const BlockCounts* blocks, const ModelShape* model) {
    JsonWriter json;
    json.beginObject();
    json.key("layer").value(cost.layer == LayerKind::Gau ? "gau" : "standard");
    if (model) {
        json.key("model").value(model->id);
        json.key("layers").value(static_cast<double>(model->layers));
        json.key("ffn_width").value(static_cast<double>(model->ffn.width));
        json.key("ffn_gated").value(model->ffn.gated);
        if (cost.decode) json.key("model_kv_cache_bytes").value(cost.kvCacheBytes * static_cast<double>(model->layers));
    }
    json.key("variant").value(cost.variant);
    json.key("n").value(static_cast<double>(cost.shape.n));
    json.key("d").value(static_cast<double>(cost.shape.d));
    json.key("heads").value(cost.shape.heads);
    json.key("kv_heads").value(cost.shape.keyValueHeads());
    json.key("causal").value(cost.shape.causal);
    if (cost.shape.grid) {
        json.key("grid").value(cost.shape.grid->sizeText());
        json.key("order").value(cost.shape.grid->orderText());
    }
    json.key("queries").value(static_cast<double>(cost.decode ? 1 : cost.shape.queryRows()));
    if (cost.decode) {
        json.key("decode").value(true);
        json.key("retained_keys");
        if (cost.retainedKeys)
            json.value(static_cast<double>(*cost.retainedKeys));
        else
            json.null();
        json.key("kv_dtype").value(kvDtypeName(cost.kvDtype));
        json.key("kv_cache_bytes").value(cost.kvCacheBytes);
        json.key("kv_read_bytes").value(cost.kvReadBytes);
    }
    json.key("convention").value("macs; flops = 2*macs");
    json.key("terms").beginObject();
    for (const auto& [name, macs] : cost.terms) json.key(name).value(macs);
    json.endObject();
    json.key("exps").value(cost.exps);
    json.key("attention_macs").value(cost.attentionMacs);
    json.key("layer_macs").value(cost.layerMacs);
    json.key("layer_flops").value(cost.layerFlops());
    json.key("peak_bytes").value(cost.peakBytes);
    json.key("bytes_min").value(cost.bytesMin);
    if (cost.layer == LayerKind::Gau) {
        const GauComparison comparison = gauComparison(cost);
        json.key("gau_comparison").beginObject();
        json.key("two_gau_layers_macs").value(comparison.twoGauLayersMacs);
        json.key("attention_ffn_layer_macs").value(comparison.attentionFfnLayerMacs);
        json.endObject();
    }
    if (crossovers) {
        json.key("crossovers").beginObject();
        crossoverJson(json, "attention_exceeds_ffn", crossovers->attentionExceedsFfn);
        crossoverJson(json, "core_dominates", crossovers->coreDominates);
        crossoverJson(json, "linear_beats_full", crossovers->linearBeatsFull);
        json.endObject();
    }
    if (blocks) {
        json.key("blocks").beginObject();
        json.key("size").value(static_cast<double>(blocks->size));
        json.key("full").value(static_cast<double>(blocks->full));
        json.key("partial").value(static_cast<double>(blocks->partial));
        json.key("empty").value(static_cast<double>(blocks->empty));
        json.key("computed_cells").value(static_cast<double>(blocks->computedCells));
        json.key("allowed_cells").value(static_cast<double>(blocks->allowedCells));
        json.endObject();
    }
    json.endObject();
    return json.str();
}

void printTable(const LayerCost& cost, const LayerCrossovers* crossovers, const BlockCounts* blocks, const ModelShape* model) {
    if (model)
        std::printf("%s (%lld layers, FFN %lld%s)\n", model->name.c_str(), static_cast<long long>(model->layers),
                    static_cast<long long>(model->ffn.width), model->ffn.gated ? " gated" : "");
    if (cost.layer == LayerKind::Gau)
        std::printf("%s in a GAU layer (FLASH)  n=%lld width hd=%lld e=%lld, one head of s=%lld, no FFN, %s  (MACs; flops = 2*macs)\n",
                    cost.variant.c_str(), static_cast<long long>(cost.shape.n), static_cast<long long>(cost.shape.heads * cost.shape.d),
                    static_cast<long long>(2 * cost.shape.heads * cost.shape.d), static_cast<long long>(kGauHeadSize),
                    cost.shape.causal ? "causal" : "bidirectional");
    else
        std::printf("%s  n=%lld queries=%lld d=%lld heads=%d kv_heads=%d %s%s  (MACs; flops = 2*macs)\n", cost.variant.c_str(),
                    static_cast<long long>(cost.shape.n), static_cast<long long>(cost.decode ? 1 : cost.shape.queryRows()),
                    static_cast<long long>(cost.shape.d), cost.shape.heads, cost.shape.keyValueHeads(),
                    cost.shape.causal ? "causal" : "bidirectional", cost.decode ? ", one decoding step" : "");
    for (const auto& [name, macs] : cost.terms) std::printf("  %-14s %22.0f  (%5.1f%%)\n", name.c_str(), macs, 100.0 * macs / cost.layerMacs);
    std::printf("  %-14s %22.0f\n  %-14s %22.0f\n  %-14s %22.0f\n  %-14s %22.0f\n  %-14s %22.0f\n", "exps", cost.exps,
                "attention_macs", cost.attentionMacs, "layer_macs", cost.layerMacs, "peak_bytes", cost.peakBytes,
                "bytes_min", cost.bytesMin);
    if (cost.layer == LayerKind::Gau) {
        const GauComparison comparison = gauComparison(cost);
        std::printf("  two GAU layers %22.0f  (%.3f x one layer of full attention + FFN, %.0f)\n", comparison.twoGauLayersMacs,
                    comparison.twoGauLayersMacs / comparison.attentionFfnLayerMacs, comparison.attentionFfnLayerMacs);
    }
    if (crossovers)
        std::printf("  self-attention > FFN: %s\n  attention core > rest of the layer: %s\n"
                    "  linear-cost core at 4d < full attention at d: %s\n",
                    crossoverStatement(crossovers->attentionExceedsFfn).c_str(),
                    crossoverStatement(crossovers->coreDominates).c_str(),
                    crossoverStatement(crossovers->linearBeatsFull).c_str());
    if (blocks)
        std::printf("  blocks of %lld: %lld full, %lld partial, %lld empty; computed cells %lld for %lld allowed (%.3f x)\n",
                    static_cast<long long>(blocks->size), static_cast<long long>(blocks->full),
                    static_cast<long long>(blocks->partial), static_cast<long long>(blocks->empty),
                    static_cast<long long>(blocks->computedCells), static_cast<long long>(blocks->allowedCells),
                    static_cast<double>(blocks->computedCells) / static_cast<double>(blocks->allowedCells));
    if (!cost.decode) return;
    if (cost.retainedKeys)
        std::printf("  retained_keys  %22lld per key/value head\n", static_cast<long long>(*cost.retainedKeys));
    else
        std::printf("  retained_keys  %22s (a recurrent state only)\n", "none");
    std::printf("  kv_cache_bytes %22.0f per layer (%s)\n", cost.kvCacheBytes, kvDtypeName(cost.kvDtype).c_str());
    std::printf("  kv_read_bytes  %22.0f per layer and step\n", cost.kvReadBytes);
    if (model) std::printf("  model cache    %22.0f bytes, all %lld layers\n", cost.kvCacheBytes * static_cast<double>(model->layers),
                           static_cast<long long>(model->layers));
}

LayerKind layerOption(const CliArgs& cli) {
    const std::string layer = cli.value("--layer").value_or("standard");
    if (layer == "gau") return LayerKind::Gau;
    if (layer != "standard") throw InputError("--layer must be standard or gau, not '" + layer + "'");
    return LayerKind::Standard;
}

// A GAU layer has one head, no key/value cache of grouped heads and no FFN to take from a model; the
// options that describe those are refused rather than ignored.
int gauCost(const CliArgs& cli) {
    for (const char* option : {"--kv-heads", "--grid", "--order", "--block-size", "--queries", "--kv-dtype", "--model"})
        if (cli.value(option)) throw InputError(std::string(option) + " does not go with --layer gau");
    if (cli.flag("--decode")) throw InputError("--decode does not go with --layer gau");
    const VariantInfo& variant = requireVariant(cli.required("--variant"));
    if (!hasGauLayer(variant))
        throw InputError("--layer gau: a GAU layer's attention is relu2 or mixed_chunk (FLASH's), not " + variant.id);
    ProblemShape shape;
    shape.n = cli.requiredInteger("--n", 1, kMaxGridCells);
    shape.d = cli.requiredInteger("--d", 1, 1 << 20);
    shape.dv = shape.d;
    shape.heads = static_cast<int>(cli.requiredInteger("--heads", 1, 1 << 16));
    shape.causal = cli.flag("--causal");
    const LayerCost cost = gauLayerCost(variant, shape, prepareParams(variant, gauCoreShape(shape), cli.overrides()));
    if (cli.flag("--json"))
        std::printf("%s\n", costJson(cost, nullptr, nullptr, nullptr).c_str());
    else
        printTable(cost, nullptr, nullptr, nullptr);
    return 0;
}

} // namespace

int costCommand(const std::vector<std::string>& args) {
    if (asksForHelp(args)) {
        std::fputs(kCostHelp, stdout);
        return 0;
    }
    if (listsModels(args)) {
        std::fputs(modelShapesListing().c_str(), stdout);
        return 0;
    }
    const CliArgs cli("cost", args, {"--variant", "--n", "--d", "--heads", "--kv-heads", "--grid", "--order",
                      "--block-size", "--queries", "--kv-dtype", "--model", "--layer"},
                      {"--causal", "--json", "--decode"});
    if (layerOption(cli) == LayerKind::Gau) return gauCost(cli);
    const ModelShape* model = modelOption(cli);
    ParamOverrides overrides = cli.overrides();
    std::string id = cli.value("--variant").value_or("");
    if (id.empty() && model) {
        auto [modelVariant, modelOverrides] = modelAttention(*model);
        id = modelVariant;
        overrides.insert(modelOverrides.begin(), modelOverrides.end()); // --set keeps its own values
    }
    const VariantInfo& variant = requireVariant(id.empty() ? cli.required("--variant") : id);
    ProblemShape shape;
    shape.grid = gridOption(cli);
    shape.n = model && !cli.value("--n") && !shape.grid ? model->contextLength : sizeWithGrid(cli, shape.grid.get());
    shape.d = model ? cli.integer("--d", model->d, 1, 1 << 20) : cli.requiredInteger("--d", 1, 1 << 20);
    shape.dv = shape.d;
    shape.heads = static_cast<int>(model ? cli.integer("--heads", model->heads, 1, 1 << 16) : cli.requiredInteger("--heads", 1, 1 << 16));
    const int kvDefault = model && !cli.value("--heads") ? model->kvHeads : shape.heads;
    shape.kvHeads = static_cast<int>(cli.integer("--kv-heads", kvDefault, 1, 1 << 16));
    if (shape.heads % shape.kvHeads != 0)
        throw InputError("--kv-heads " + std::to_string(shape.kvHeads) + " must divide --heads " + std::to_string(shape.heads));
    const bool decode = cli.flag("--decode");
    if (decode && cli.value("--queries"))
        throw InputError("--decode counts one new token (--queries 1 --causal): give one of --decode and --queries");
    const std::int64_t queries = cli.integer("--queries", shape.n, 1, shape.n);
    shape.queries = queries == shape.n ? 0 : queries;
    if (decode) requireDecoding(variant);
    shape.causal = decode || cli.flag("--causal");
    const ParamSet params = prepareParams(variant, shape, overrides);
    std::optional<BlockCounts> blocks;
    if (cli.value("--block-size")) {
        const std::int64_t blockSize = cli.integer("--block-size", 1, 1, INT64_MAX);
        if (decode) throw InputError("--block-size counts a whole pattern's blocks, not one decoding step (--decode)");
        if (variant.dataDependentPattern)
            throw InputError("--block-size: " + variant.id + "'s pattern depends on Q and K, which cost does not take");
        blocks = countBlocks(*buildPattern(variant, shape, params), blockSize);
    }
    if (!decode && cli.value("--kv-dtype")) throw InputError("--kv-dtype is the precision of a decoding step's cache: it goes with --decode");
    const KvDtype dtype = kvDtypeFromName(cli.value("--kv-dtype").value_or(kvDtypeName(model ? model->kvDtype : KvDtype::F32)), "--kv-dtype");
    const FeedForward ffn = model ? model->ffn : FeedForward{};
    const LayerCost cost = decode ? decodeLayerCost(variant, shape, params, dtype, ffn) : layerCost(variant, shape, params, ffn);
    std::optional<LayerCrossovers> crossovers;
    if (!decode && !shape.grid && shape.queries == 0 && !model) crossovers = layerCrossovers(variant, shape, overrides);
    if (cli.flag("--json"))
        std::printf("%s\n", costJson(cost, crossovers ? &*crossovers : nullptr, blocks ? &*blocks : nullptr, model).c_str());
    else
        printTable(cost, crossovers ? &*crossovers : nullptr, blocks ? &*blocks : nullptr, model);
    return 0;
}

} // namespace attnlab
