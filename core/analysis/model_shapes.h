#pragma once

// The shapes of well-known models, one list for the app's model presets and the command line's --model:
// per layer h query heads and h_kv key/value heads of size d (model width h·d), the FFN, the depth, the
// context the model was trained for and the precision its weights ship in, as its paper or model card
// gives them (docs/inference.md, "Model shapes").

#include "core/analysis/lab_settings.h"
#include "core/cost/cost_model.h"
#include "core/decode/kv_cache.h"

#include <cstdint>
#include <string>
#include <vector>

namespace attnlab {

struct ModelShape {
    std::string id;   // command-line name, e.g. llama2-7b
    std::string name; // e.g. LLaMA-2-7B
    int heads = 1;
    int kvHeads = 1;
    std::int64_t d = 64;
    std::int64_t layers = 1;
    std::int64_t contextLength = 512;
    std::int64_t slidingWindow = 0; // keys each token attends to (0: all)
    FeedForward ffn;
    KvDtype kvDtype =
        KvDtype::F32; // the precision the released weights use, which a deployment keeps its cache in
};

// BERT-base, GPT-2 small, LLaMA-2-7B, LLaMA-2-70B, Mistral-7B, LLaMA-3-8B.
const std::vector<ModelShape>& modelShapes();
// Throws InputError naming every id when `id` is not one of them.
const ModelShape& requireModelShape(const std::string& id);
// One line per model: id, name and shape, for --model list.
std::string modelShapesListing();

// The settings with the model's h, h_kv, d, layers, n (its context length) and cache precision; the variant
// stays.
LabSettings withModelShape(const LabSettings& settings, const ModelShape& model);

} // namespace attnlab
